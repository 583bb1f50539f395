/**
 * The app-server child and its NDJSON JSON-RPC peer (reference/codex-app-server-protocol.md §3,
 * §12.2-3): responses correlated by id in any order, server requests (ids from 0, so `0` is an id)
 * routed to one handler, notifications to another. A dead child rejects every pending request; a
 * bad line is skipped, never fatal. A bounded stderr tail explains an unexpected exit.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { createInterface } from 'node:readline'
import { reportProcess, type EngineProcessObserver } from '../process-events.ts'

export interface Launch {
  command: string
  args: string[]
  env: Record<string, string>
  /** Told of the app-server child's spawn and exit (metrics, shutdown signalling), under this profile's name. */
  observe?: { profile: string; onProcess: EngineProcessObserver }
}

export type Json = Record<string, unknown>

export interface PeerHandlers {
  onNotification(method: string, params: Json): void
  /** Resolves with the result to send; a throw answers with an error. */
  onRequest(method: string, params: Json, id: number | string): Promise<unknown>
  /** The child ended without `close()` being called. */
  onExit(summary: string): void
}

const STDERR_TAIL = 2000

export class CodexPeer {
  #child: ChildProcessWithoutNullStreams
  #pending = new Map<number, { resolve: (v: Json) => void; reject: (e: Error) => void; timer?: ReturnType<typeof setTimeout> }>()
  #nextId = 1
  #stderr = ''
  #closing = false
  #exited = false
  #handlers: PeerHandlers

  constructor(launch: Launch, handlers: PeerHandlers) {
    this.#handlers = handlers
    this.#child = spawn(launch.command, [...launch.args, 'app-server'], { env: launch.env, stdio: ['pipe', 'pipe', 'pipe'] })
    this.#child.stderr.on('data', (d: Buffer) => {
      this.#stderr = (this.#stderr + d.toString('utf8')).slice(-STDERR_TAIL)
    })
    // EPIPE after the child died must not crash the gateway; the exit handler reports it.
    this.#child.stdin.on('error', () => {})
    this.#child.on('error', (err) => this.#ended(`could not start codex: ${err.message}`))
    const observe = launch.observe
    if (observe) {
      reportProcess(observe.onProcess, { type: 'spawn', pid: this.#child.pid, profile: observe.profile })
      this.#child.once('exit', (code, signal) => reportProcess(observe.onProcess, { type: 'exit', pid: this.#child.pid, profile: observe.profile, code, signal, requested: this.#closing }))
    }
    this.#child.on('exit', (code, signal) => this.#ended(`the codex process exited (${signal ? `signal ${signal}` : `code ${code}`})${this.#stderr.trim() ? `: ${lastLine(this.#stderr)}` : ''}`))
    createInterface({ input: this.#child.stdout, crlfDelay: Infinity }).on('line', (line) => this.#onLine(line))
  }

  get pid(): number | undefined {
    return this.#child.pid
  }

  get alive(): boolean {
    return !this.#exited
  }

  request(method: string, params: Json, timeoutMs?: number): Promise<Json> {
    if (this.#exited) return Promise.reject(new Error('the codex process is not running'))
    const id = this.#nextId++
    return new Promise((resolve, reject) => {
      const entry: { resolve: (v: Json) => void; reject: (e: Error) => void; timer?: ReturnType<typeof setTimeout> } = { resolve, reject }
      if (timeoutMs) entry.timer = setTimeout(() => {
        this.#pending.delete(id)
        reject(new Error(`codex did not answer ${method} within ${timeoutMs} ms`))
      }, timeoutMs)
      this.#pending.set(id, entry)
      this.#write({ id, method, params })
    })
  }

  notify(method: string, params?: Json): void {
    this.#write(params ? { method, params } : { method })
  }

  /** Ends stdin (codex exits within milliseconds, reference §2); SIGTERM if it lingers. */
  close(graceMs = 2000): void {
    if (this.#closing) return
    this.#closing = true
    this.#child.stdin.end()
    if (this.#exited) return
    const timer = setTimeout(() => { if (!this.#exited) this.#child.kill('SIGTERM') }, graceMs)
    timer.unref()
  }

  #write(message: Json): void {
    if (this.#exited || this.#child.stdin.destroyed) return
    this.#child.stdin.write(`${JSON.stringify(message)}\n`)
  }

  #onLine(line: string): void {
    if (!line.trim()) return
    let m: Json
    try {
      m = JSON.parse(line) as Json
    } catch {
      return
    }
    if (typeof m !== 'object' || m === null) return
    const hasId = m.id !== undefined && m.id !== null
    if (typeof m.method === 'string') {
      const params = (m.params ?? {}) as Json
      if (!hasId) return this.#safely(() => this.#handlers.onNotification(m.method as string, params))
      const id = m.id as number | string
      this.#handlers.onRequest(m.method, params, id).then(
        (result) => this.#write({ id, result }),
        (err: Error) => this.#write({ id, error: { code: -32601, message: err.message } }),
      )
      return
    }
    if (!hasId) return
    const entry = this.#pending.get(m.id as number)
    if (!entry) return
    this.#pending.delete(m.id as number)
    clearTimeout(entry.timer)
    const error = m.error as { message?: string } | undefined
    if (error) entry.reject(new Error(error.message ?? 'codex answered with an error'))
    else entry.resolve((m.result ?? {}) as Json)
  }

  #safely(fn: () => void): void {
    try { fn() } catch { /* one bad notification never ends the session */ }
  }

  #ended(summary: string): void {
    if (this.#exited) return
    this.#exited = true
    for (const [id, entry] of this.#pending) {
      clearTimeout(entry.timer)
      entry.reject(new Error(summary))
      this.#pending.delete(id)
    }
    if (!this.#closing) this.#handlers.onExit(summary)
  }
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1)?.slice(0, 300) ?? ''
}
