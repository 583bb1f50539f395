/**
 * Runs the `gateway` command as operators do, as one process (`node --import tsx gateway/cli.ts`,
 * never an npm → tsx → node chain), so signals reach the gateway itself.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))

export interface CommandResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export function gatewayArgs(args: string[]): string[] {
  return ['--import', 'tsx', join(ROOT, 'gateway/cli.ts'), ...args]
}

/** Runs a command that exits by itself (check, token create, --help); killed (signal SIGKILL) after `timeoutMs`. */
export function runGateway(args: string[], env: NodeJS.ProcessEnv = process.env, { timeoutMs = 60_000, nodeArgs = [] as string[] } = {}): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, ...gatewayArgs(args)], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('exit', () => clearTimeout(timer))
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.on('error', reject)
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
}

export interface ServingGateway {
  child: ChildProcess
  url: string
  origin: string
  /** Every stdout line so far (JSON log lines). */
  lines: string[]
  stderr: () => string
  /** Settles once the process has exited and its output has been read to the end. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** Starts `gateway serve --config <file> --port 0` and waits for its "gateway listening" log line. */
export function serveGateway(config: string, env: NodeJS.ProcessEnv = process.env, timeoutMs = 30_000): Promise<ServingGateway> {
  const child = spawn(process.execPath, gatewayArgs(['serve', '--config', config, '--port', '0']), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  const lines: string[] = []
  let stderr = ''
  let partial = ''
  // 'close', not 'exit': the process has ended and its stdout is read to the end, so the log lines
  // it wrote last (the logger's buffer, flushed as it exits) are in `lines`.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`gateway serve did not start in ${timeoutMs} ms:\n${stderr}\n${lines.join('\n')}`))
    }, timeoutMs)
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.stdout.on('data', (chunk) => {
      partial += chunk
      const parts = partial.split('\n')
      partial = parts.pop() ?? ''
      for (const line of parts) {
        lines.push(line)
        let parsed
        try { parsed = JSON.parse(line) } catch { continue }
        if (parsed.msg === 'gateway listening') {
          clearTimeout(timer)
          resolve({ child, url: parsed.url, origin: new URL(parsed.url).origin, lines, stderr: () => stderr, exited })
        }
      }
    })
    void exited.then(({ code, signal }) => {
      clearTimeout(timer)
      reject(new Error(`gateway serve exited (${code ?? signal}) before listening:\n${stderr}\n${lines.join('\n')}`))
    })
  })
}
