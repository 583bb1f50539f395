/**
 * The one webhook deliverer, shared by job events and session notifications (DESIGN.md §7):
 * POST JSON with the configured headers, ordered per key (a job, a session) even while an earlier
 * delivery is being retried, exponential backoff, best effort after the last attempt. Delivery
 * never blocks or throws into the caller.
 */
export interface WebhookTarget {
  url: string
  headers?: Record<string, string>
}

export interface DelivererOptions {
  attempts: number
  retryDelayMs: number
  fetch?: typeof fetch
  /** Per-attempt timeout. */
  timeoutMs?: number
  onGiveUp?: (target: WebhookTarget, error: string) => void
  /** Every attempt's outcome (for logs); `status` when the target answered, `error` otherwise. */
  onAttempt?: (attempt: WebhookAttempt) => void
}

export interface WebhookAttempt {
  /** The target's origin only: a webhook URL's path or query may carry a secret. */
  origin: string
  attempt: number
  ok: boolean
  status?: number
  error?: string
  /** From sending the request to the end of the response (or the failure), for latency metrics. */
  durationMs: number
}

export class WebhookDeliverer {
  #chains = new Map<string, Promise<void>>()
  #options: DelivererOptions

  constructor(options: DelivererOptions) {
    this.#options = options
  }

  deliver(key: string, target: WebhookTarget, body: unknown): void {
    const previous = this.#chains.get(key) ?? Promise.resolve()
    const next = previous.then(() => this.#send(target, body))
    this.#chains.set(key, next)
    // Drop the chain entry once drained, so idle keys hold no memory.
    void next.then(() => {
      if (this.#chains.get(key) === next) this.#chains.delete(key)
    })
  }

  /** Resolves when everything queued so far has been delivered or given up. */
  async idle(): Promise<void> {
    while (this.#chains.size) await Promise.all([...this.#chains.values()])
  }

  async #send(target: WebhookTarget, body: unknown): Promise<void> {
    const { attempts, retryDelayMs } = this.#options
    const payload = JSON.stringify(body)
    let lastError = 'no attempt made'
    for (let attempt = 0; attempt < Math.max(1, attempts); attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, retryDelayMs * 2 ** (attempt - 1)))
      const outcome = await this.#attempt(target, payload, attempt + 1)
      if (outcome.ok) return
      lastError = outcome.error
    }
    this.#options.onGiveUp?.(target, lastError)
  }

  /**
   * One POST of `body` (attempt number `attempt`, for the attempt observer), without retries: for
   * a caller that keeps its own schedule (the job events' outbox). Never throws.
   */
  sendOnce(target: WebhookTarget, body: unknown, attempt: number): Promise<{ ok: true } | { ok: false; error: string }> {
    return this.#attempt(target, JSON.stringify(body), attempt)
  }

  /** The retry schedule's delay before attempt `attempt + 1` (after `attempt` failed ones). */
  retryDelayMs(attempt: number): number {
    return this.#options.retryDelayMs * 2 ** (attempt - 1)
  }

  get attempts(): number {
    return Math.max(1, this.#options.attempts)
  }

  async #attempt(target: WebhookTarget, payload: string, attempt: number): Promise<{ ok: true } | { ok: false; error: string }> {
    const { timeoutMs = 10_000 } = this.#options
    const doFetch = this.#options.fetch ?? fetch
    const started = performance.now()
    const durationMs = () => Math.round((performance.now() - started) * 1000) / 1000
    try {
      const res = await doFetch(target.url, {
        method: 'POST',
        headers: { ...target.headers, 'content-type': 'application/json' },
        body: payload,
        signal: AbortSignal.timeout(timeoutMs),
      })
      await res.arrayBuffer().catch(() => undefined)
      this.#report(target, { attempt, ok: res.ok, status: res.status, durationMs: durationMs() })
      return res.ok ? { ok: true } : { ok: false, error: `HTTP ${res.status}` }
    } catch (err) {
      this.#report(target, { attempt, ok: false, error: err instanceof Error ? err.name : 'error', durationMs: durationMs() })
      return { ok: false, error: err instanceof Error ? err.message : String(err) }
    }
  }

  /** The per-attempt timeout. */
  get timeoutMs(): number {
    return this.#options.timeoutMs ?? 10_000
  }

  #report(target: WebhookTarget, attempt: Omit<WebhookAttempt, 'origin'>): void {
    if (!this.#options.onAttempt) return
    let origin = 'invalid-url'
    try { origin = new URL(target.url).origin } catch { /* reported as invalid */ }
    try { this.#options.onAttempt({ origin, ...attempt }) } catch { /* an observer never breaks delivery */ }
  }
}
