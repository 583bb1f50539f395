/**
 * Fleet-wide deadline sweep, split out of parking.ts: with a shared store,
 * lapsed deadlines of parks stored by any process are fired here, so they never wait for their
 * parker (maybe dead). The timeout goes through the usual result delivery, whose adoption is
 * atomic, so exactly one process applies it and a race with the parker's own watchdog is a
 * duplicate (`applied: false`).
 */
import type { ExecutionOutcome } from './runner.ts'
import type { SessionStore } from './session-store.ts'

export interface DeadlineSweepDeps {
  store: SessionStore
  isClosed(): boolean
  /** A deadline this process armed itself is left to its own timer. */
  hasOwnTimer(executionId: string): boolean
  submit(executionId: string, outcome: ExecutionOutcome): Promise<unknown>
  report(err: unknown, where: 'resume'): void
}

export class DeadlineSweep {
  #deps: DeadlineSweepDeps
  #timer: ReturnType<typeof setInterval> | undefined
  #sweeping = false

  constructor(deps: DeadlineSweepDeps) {
    this.#deps = deps
  }

  /**
   * Starts sweeping every `everyMs` (once; only a store that lists expired executions can be
   * swept). No sweep fires before `notBefore`, the same grace deadlines re-armed at boot get.
   */
  start(notBefore: number, everyMs: number): void {
    if (!this.#deps.store.expiredExecutions || this.#timer || this.#deps.isClosed()) return
    this.#timer = setInterval(() => { if (Date.now() >= notBefore) void this.#sweep() }, everyMs)
    this.#timer.unref()
  }

  stop(): void {
    clearInterval(this.#timer)
  }

  async #sweep(): Promise<void> {
    if (this.#sweeping || this.#deps.isClosed()) return
    this.#sweeping = true
    try {
      for (const executionId of await this.#deps.store.expiredExecutions!(Date.now(), 20)) {
        if (this.#deps.hasOwnTimer(executionId) || this.#deps.isClosed()) continue
        const outcome: ExecutionOutcome = { status: 'failed', reason: 'timeout', error: 'deferred execution produced no result before its deadline' }
        await this.#deps.submit(executionId, outcome).catch((err) => this.#deps.report(err, 'resume'))
      }
    } catch (err) {
      this.#deps.report(err, 'resume')
    } finally {
      this.#sweeping = false
    }
  }
}
