/**
 * The soak's job mix: what each submitted job asks for, and its timers.
 * Jobs succeed, fail and retry, or park on a deferred tool whose result the soak posts; with
 * timers, one in 6 parks on deferred_short and one in 6 on deferred_task, neither answered.
 */
const SUCCEED = `scenario:${JSON.stringify({ name: 'work', steps: [{ type: 'sleep', ms: 60 }, { type: 'text', text: 'done' }, { type: 'usage', input: 3, output: 2 }] })}`

export const TIMER_OPTIONS = { shortDeadlineMs: 2500, maxParkedDurationMs: 6000, expiredGraceMs: 0, deadlineSweepMs: 200 }
/** A webhook attempt's timeout in the fleet: a dead or stalled deliverer's claims lapse 5 s after it. */
export const WEBHOOK_TIMEOUT_MS = 2000

/** With timers, the jobs nobody answers: deferred_short (ends by its deadline) and deferred_task (by the cap). */
export function unansweredKind(i: number, timers: boolean | undefined): 'deadline' | 'cap' | undefined {
  if (!timers) return undefined
  return i % 6 === 4 ? 'deadline' : i % 6 === 5 ? 'cap' : undefined
}

export function jobBody(i: number, hook: string, timers?: boolean): Record<string, unknown> {
  const webhook = { url: hook }
  const unanswered = unansweredKind(i, timers)
  if (unanswered) return { session: { prompt: unanswered === 'deadline' ? 'scenario:deferred-short' : 'scenario:deferred' }, attempts: 2, retryDelayMs: 1000, webhook }
  switch (i % 3) {
    case 0: return { session: { prompt: SUCCEED }, attempts: 2, retryDelayMs: 1000, webhook }
    case 1: return { session: { prompt: 'scenario:model-error' }, attempts: 2, retryDelayMs: 1000, webhook }
    default: return { session: { prompt: 'scenario:deferred' }, attempts: 2, retryDelayMs: 1000, webhook }
  }
}
