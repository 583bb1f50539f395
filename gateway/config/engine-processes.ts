/**
 * The engine processes the gateway started, by PID, so a shutdown ends every one of them before
 * the process exits: a grace to leave on their own (the SDK closed their input), then SIGTERM,
 * then SIGKILL after the kill grace. Nothing is left behind for the next start to trip over.
 * Lines name the engine's PID `enginePid`: `pid` is the gateway's own (the logger's base binding),
 * and one JSON object with two `pid` keys loses one of them in every parser.
 */
import type { Logger } from 'pino'
import type { EngineProcessEvent } from '../engines/cli-primary/index.ts'

export class EngineProcesses {
  #live = new Map<number, string>()
  /** Processes a shutdown signalled: their exit was asked for. */
  #signalled = new Set<number>()
  #logger: Logger

  constructor(logger: Logger) {
    this.#logger = logger
  }

  /** Logs the event; returns it with `requested` set when a shutdown of ours signalled that process. */
  readonly observe = (event: EngineProcessEvent): EngineProcessEvent => {
    if (event.pid === undefined) return event
    if (event.type === 'spawn') {
      this.#live.set(event.pid, event.profile)
      this.#logger.info({ kind: 'engine', enginePid: event.pid, profile: event.profile }, 'engine process spawned')
      return event
    }
    this.#live.delete(event.pid)
    const seen = { ...event, requested: this.#signalled.delete(event.pid) || event.requested }
    this.#logger.info({ kind: 'engine', enginePid: event.pid, profile: event.profile, code: event.code, signal: event.signal, requested: seen.requested }, 'engine process exited')
    return seen
  }

  get count(): number {
    return this.#live.size
  }

  /** Resolves when every process has exited (the exit lines are logged), whatever it took. */
  async endAll({ graceMs, killGraceMs }: { graceMs: number; killGraceMs: number }): Promise<void> {
    if (await this.#settled(graceMs)) return
    this.#signal('SIGTERM')
    if (await this.#settled(killGraceMs)) return
    this.#signal('SIGKILL')
    await this.#settled(killGraceMs)
  }

  #signal(signal: NodeJS.Signals): void {
    for (const [pid, profile] of this.#live) {
      this.#logger.warn({ kind: 'engine', enginePid: pid, profile, signal }, 'ending engine process')
      try {
        this.#signalled.add(pid)
        process.kill(pid, signal)
      } catch {
        this.#live.delete(pid) // already gone
      }
    }
  }

  async #settled(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms
    while (this.#live.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25))
    return this.#live.size === 0
  }
}
