/**
 * The two retry-timing rules, judged the same way by their cases and by `--explore`: a job's
 * retries wait retryDelayMs doubled each time (job-status.7), and a notification answered with
 * errors is retried with exponential backoff from its retry delay (events.24, limits.14). Both
 * judge several rounds (backoff.ts): a loaded machine cannot fail a conforming target, and one
 * lucky round cannot pass a constant delay.
 */
import { doublingProblem, exponentialProblem, judgeRetryWaits, waitsBetween } from '../backoff.ts'
import type { CaseContext } from '../context.ts'
import { jobEventType } from '../job-event.ts'
import { Unsupported } from '../../types.ts'
import { deliveries, RETRY_BASE_MS, submit, waitForJob } from './jobs.ts'

/** The shortest notification retry delay whose doubling timer jitter cannot hide. */
export const MIN_JUDGED_RETRY_DELAY_MS = 20

/**
 * job-status.7, limits.12: a run failed three times is retried after RETRY_BASE_MS, then twice
 * that, then fails. "Doubled each retry" is exact. The JobEvent layout is not shown: where
 * job_retrying carries `nextRunAt` (a JobInfo field, other-shapes.5) and `ts`, the target's own
 * delays are read; otherwise each wait is measured from a job_retrying to the next job_started
 * at the receiver.
 */
export async function checkJobRetryDoubling(ctx: CaseContext): Promise<void> {
  const measure = async (round: number) => {
    const hook = ctx.receiver!.urlFor(`retry-${Math.floor(ctx.random() * 1e9)}`)
    const job = await submit(ctx, { session: { prompt: 'scenario:model-error' }, attempts: 3, retryDelayMs: RETRY_BASE_MS, webhook: { url: hook.url } })
    const done = await waitForJob(ctx, job.id, (j) => j.status === 'failed', 'failed')
    const order = await deliveries(ctx, hook.path, (t) => t.endsWith('C'))
    if (round === 0) {
      if ('attempt' in done) ctx.equal('job-status.7', done.attempt, 3, 'attempts used')
      ctx.equal('job-status.7', order, 'SYSYSC', 'webhook sequence')
    }
    const got = ctx.receiver!.received(hook.path)
    const retrying = got.filter((d) => jobEventType(d.body) === 'job_retrying')
    const stated = retrying.map((d) => (d.body?.event ?? d.body) as any).map((e) => (typeof e?.nextRunAt === 'number' && typeof e?.ts === 'number' ? e.nextRunAt - e.ts : undefined))
    const waits = stated.every((w) => w !== undefined)
      ? stated as number[]
      : retrying.map((d) => (got.find((n) => n.at >= d.at && n !== d && jobEventType(n.body) === 'job_started')?.at ?? Infinity) - d.at)
    ctx.check('job-status.7', waits.length === 2, 'two retries', waits)
    return waits
  }
  const problem = await judgeRetryWaits(RETRY_BASE_MS, measure, (waits) => doublingProblem(waits, RETRY_BASE_MS))
  ctx.check('job-status.7', problem === undefined, `retry waits of ${RETRY_BASE_MS} then ${2 * RETRY_BASE_MS} ms (retryDelayMs doubled each retry)`, problem)
}

/** The manifest's notificationRetryDelayMs when the backoff can be judged from it, else why not. */
export function notificationRetryBase(ctx: CaseContext): number | string {
  const base = Number(ctx.manifest.timers?.notificationRetryDelayMs)
  if (!(base >= MIN_JUDGED_RETRY_DELAY_MS)) return `notificationRetryDelayMs ${base} ms is too short to tell a backoff from jitter (${MIN_JUDGED_RETRY_DELAY_MS} ms or more)`
  return base
}

/**
 * events.24, limits.14: a turn_completed notification answered 500 twice is retried with
 * exponential backoff from notificationRetryDelayMs, then delivered once. Notifications share one
 * configured URL: only this check's own session's deliveries are made to fail.
 */
export async function checkNotificationBackoff(ctx: CaseContext): Promise<void> {
  const base = notificationRetryBase(ctx)
  if (typeof base === 'string') throw new Unsupported(base)
  const path = new URL(ctx.manifest.webhookUrl ?? ctx.receiver!.url).pathname
  const measure = async () => {
    const session = await ctx.createSession()
    const mine = (body: any) => body?.sessionId === session.id && body?.type === 'turn_completed'
    ctx.receiver!.answerNextWhere(path, mine, [500, 500])
    const ws = await ctx.ws(session.id)
    ws.send({ type: 'user_message', text: 'scenario:hello' })
    await ws.waitForEvent('turn_result', ctx.deadlineMs)
    const attempts = () => ctx.receiver!.deliveries.filter((d) => d.path === path && mine(d.body))
    // Three attempts (the default, limits.14) take base + growth; past that the target gave up early.
    const deadline = Date.now() + ctx.deadlineMs + 8 * base
    while (!attempts().some((d) => d.status < 300) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    const seen = attempts()
    if (seen.length < 3 && !seen.some((d) => d.status < 300)) throw new Unsupported(`the target stopped after ${seen.length} attempt(s): its notifications.attempts is below the default 3`)
    ctx.equal('events.24', seen.map((d) => d.status), [500, 500, 200], 'attempts of the turn_completed notification (retried after each 500, delivered once)')
    return waitsBetween(seen.map((d) => d.at))
  }
  const problem = await judgeRetryWaits(base, measure, (waits) => exponentialProblem(waits, base))
  ctx.check('limits.14', problem === undefined, `retry waits growing exponentially from retryDelayMs ${base} ms`, problem)
}
