/**
 * The child processes of a self target that announces its URL on stdout (the self-serve target's
 * `gateway serve`, the self-minimal target's embedding program): each started with its output
 * collected, its URL read from the JSON line `{"msg":"gateway listening","url":…}`, stopped with
 * SIGTERM then SIGKILL, and every one killed if the kit's process ends without closing the target.
 * `close()` runs the target's closers (last first) and removes its scratch directory.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { rm } from 'node:fs/promises'

const STARTUP_MS = 30_000

/** A started child: its exit, and the URL its "gateway listening" line names. */
export interface ListeningProcess { child: ChildProcess; exited: Promise<number | null>; url: Promise<string> }

export class TargetProcesses {
  /** Everything every child wrote to stdout and stderr so far. */
  output = ''
  /** What `close()` undoes, last first: servers the target started beside its children. */
  readonly closers: Array<() => Promise<void>> = []
  readonly #children = new Set<ChildProcess>()
  readonly #dir: string
  readonly #killAll = () => { for (const c of this.#children) c.kill('SIGKILL') }

  /** `dir`: the target's scratch directory, removed on close. */
  constructor(dir: string) {
    this.#dir = dir
    process.once('exit', this.#killAll)
  }

  /** Starts `node <args>`; `label` names it in the errors of a child that exits or stays silent. */
  spawn(label: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): ListeningProcess {
    const child = spawn(process.execPath, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'], env: options.env })
    this.#children.add(child)
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => { this.#children.delete(child); resolve(code) }))
    let pending = ''
    let found: (url: string) => void = () => {}
    const url = new Promise<string>((resolve, reject) => {
      found = resolve
      // The child's own last line first (a mutation run's `boot` verdict shows only the first line).
      void exited.then((code) => reject(new Error(`${label} exited (${code}) before listening: ${lastLine(this.output)}\n${this.output.slice(-4000)}`)))
      setTimeout(() => reject(new Error(`${label} did not listen within ${STARTUP_MS} ms:\n${this.output.slice(-4000)}`)), STARTUP_MS).unref()
    })
    url.catch(() => {})
    child.stdout!.on('data', (chunk: Buffer) => {
      this.output += chunk
      pending += chunk
      const lines = pending.split('\n')
      pending = lines.pop()!
      for (const line of lines) {
        if (!line.includes('gateway listening')) continue
        try {
          const parsed = JSON.parse(line) as { msg?: string; url?: string }
          if (parsed.msg === 'gateway listening' && parsed.url) found(parsed.url)
        } catch { /* not a log line */ }
      }
    })
    child.stderr!.on('data', (c: Buffer) => { this.output += c })
    return { child, exited, url }
  }

  /** SIGTERM, then SIGKILL after `killAfterMs` if it has not exited. */
  async stop(p: ListeningProcess, killAfterMs: number): Promise<void> {
    if (p.child.exitCode !== null || p.child.signalCode !== null) return
    p.child.kill('SIGTERM')
    const timer = setTimeout(() => p.child.kill('SIGKILL'), killAfterMs)
    await p.exited
    clearTimeout(timer)
  }

  async close(): Promise<void> {
    process.off('exit', this.#killAll)
    for (const closer of this.closers.reverse()) await closer().catch(() => {})
    await rm(this.#dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 })
  }
}

function lastLine(text: string): string {
  return text.trim().split('\n').pop()?.slice(0, 300) ?? ''
}
