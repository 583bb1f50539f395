/**
 * Job webhooks from the outbox, for an adapter that records events: every
 * live process claims due events (each the oldest undelivered one of its job), POSTs them, and
 * settles them; a job's next event is claimed only once the previous one was delivered or given
 * up, so per-job order holds whichever processes deliver, and an event whose claimant died is
 * delivered by another once that claim lapses. At least once: a delivery whose claim lapsed while
 * it was in flight (a stall longer than the claim) may arrive a second time, with the same `seq`.
 */
import type { WebhookDeliverer } from '../sessions/webhooks.ts'
import type { OutboxEntry, QueueAdapter } from './adapter.ts'

/** The adapter's outbox members. */
export type OutboxStore = Required<Pick<QueueAdapter, 'claimOutbox' | 'finishOutbox'>>

export interface OutboxDeliveryOptions {
  /** How long a claimed event is this process's before another may deliver it: past a delivery's timeout. */
  claimMs: number
  /** Deliveries in flight at once, each for a different job (default 16). */
  concurrency?: number
  onError: (err: unknown, where: string) => void
}

export class OutboxDelivery {
  readonly #adapter: OutboxStore
  readonly #deliverer: WebhookDeliverer
  readonly #options: OutboxDeliveryOptions
  readonly #timers = new Set<NodeJS.Timeout>()
  #inFlight = 0
  #claiming = false
  #again = false
  #closed = false
  #idle: Array<() => void> = []

  constructor(adapter: OutboxStore, deliverer: WebhookDeliverer, options: OutboxDeliveryOptions) {
    this.#adapter = adapter
    this.#deliverer = deliverer
    this.#options = options
  }

  /** Claims and delivers what is due now (an event was recorded, a retry came due, a claim may have lapsed). Single-flight. */
  kick(): void {
    if (this.#closed) return
    if (this.#claiming) {
      this.#again = true
      return
    }
    this.#claiming = true
    void this.#claim().finally(() => {
      this.#claiming = false
      if (this.#again) {
        this.#again = false
        this.kick()
      } else this.#settleIdle()
    })
  }

  /** Resolves once nothing claimed here is in flight (a graceful shutdown's grace). */
  idle(): Promise<void> {
    if (this.#inFlight === 0 && !this.#claiming) return Promise.resolve()
    return new Promise((resolve) => this.#idle.push(resolve))
  }

  /** Claims nothing more; events left go out from another process, or this one's successor. */
  close(): void {
    this.#closed = true
    for (const timer of this.#timers) clearTimeout(timer)
    this.#timers.clear()
  }

  async #claim(): Promise<void> {
    const max = this.#options.concurrency ?? 16
    try {
      while (!this.#closed && this.#inFlight < max) {
        const entries = await this.#adapter.claimOutbox(max - this.#inFlight, this.#options.claimMs)
        if (entries.length === 0) return
        for (const entry of entries) {
          this.#inFlight++
          void this.#deliver(entry).finally(() => {
            this.#inFlight--
            this.kick() // the job's next event is due now
          })
        }
      }
    } catch (err) {
      this.#options.onError(err, 'job webhook outbox') // the next kick (heartbeat, event) claims again
    }
  }

  async #deliver(entry: OutboxEntry): Promise<void> {
    const attempt = entry.attempts + 1
    const outcome = await this.#deliverer.sendOnce(entry.target, entry.event, attempt)
    const giveUp = !outcome.ok && attempt >= this.#deliverer.attempts
    const retryAfterMs = outcome.ok || giveUp ? undefined : this.#deliverer.retryDelayMs(attempt)
    try {
      await this.#adapter.finishOutbox(entry, retryAfterMs)
    } catch (err) {
      // Unsettled: the claim lapses and the event goes out again (at least once).
      this.#options.onError(err, 'job webhook outbox')
      return
    }
    if (giveUp) this.#options.onError(new Error(`job ${entry.jobId} event ${entry.seq} (${entry.event.type}): webhook given up after ${attempt} attempts: ${outcome.error}`), 'job webhook')
    if (retryAfterMs !== undefined) this.#later(retryAfterMs)
  }

  #later(ms: number): void {
    if (this.#closed) return
    const timer = setTimeout(() => {
      this.#timers.delete(timer)
      this.kick()
    }, ms)
    timer.unref()
    this.#timers.add(timer)
  }

  #settleIdle(): void {
    if (this.#inFlight > 0 || this.#claiming) return
    for (const resolve of this.#idle.splice(0)) resolve()
  }
}
