/**
 * Commands run as a user's shell would run them in the install-path tests: this Node 22 first on
 * PATH, then the machine's own PATH without any node_modules/.bin (npm run puts the repository's
 * there), and no npm_* settings or NODE_OPTIONS of the npm run these tests are part of.
 */
import { spawn } from 'node:child_process'
import { delimiter, dirname } from 'node:path'

const NODE_DIR = dirname(process.execPath)
export const PATH = [NODE_DIR, ...(process.env.PATH ?? '').split(delimiter).filter((p) => p && !p.includes('node_modules'))].join(delimiter)
export const ENV: NodeJS.ProcessEnv = Object.fromEntries(Object.entries({ ...process.env, PATH }).filter(([key]) => !/^npm_/i.test(key) && key !== 'NODE_OPTIONS'))

export interface Ran { code: number | null; stdout: string; stderr: string }

/** `run` (its exit and output) and `ok` (its stdout, or a throw with both outputs), each capped at `defaultTimeoutMs` unless a call says otherwise. */
export function userShell(defaultTimeoutMs: number) {
  function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Ran> {
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? ENV, stdio: ['ignore', 'pipe', 'pipe'], timeout: options.timeoutMs ?? defaultTimeoutMs })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (c: Buffer) => { stdout += c })
      child.stderr.on('data', (c: Buffer) => { stderr += c })
      child.once('error', reject)
      child.once('close', (code) => resolve({ code, stdout, stderr }))
    })
  }
  async function ok(command: string, args: string[], cwd: string): Promise<string> {
    const ran = await run(command, args, { cwd })
    if (ran.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${ran.code}\n${ran.stdout}\n${ran.stderr}`)
    return ran.stdout
  }
  return { run, ok }
}
