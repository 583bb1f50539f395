/**
 * Edge cases on the job queue found by reviewing generated mutation survivors:
 * the kit timed a retry's delay with nothing else to claim, never with another job
 * arriving while the retry waits.
 */
import type { CaseContext } from '../harness/context.ts'
import { jobEventType } from '../harness/job-event.ts'
import { Unsupported, type Case } from '../types.ts'
import { requireRunningQueue } from './jobs.ts'

/** job-status.1 names these; every other status is terminal (its names are not shown). */
const NON_TERMINAL = ['queued', 'running', 'parked']
const RETRY_DELAY_MS = 5000

async function post(ctx: CaseContext, body: Record<string, unknown>): Promise<any> {
  const res = await ctx.http('POST', '/jobs', { body: { ...body, session: { profile: ctx.profile('provider'), ...(body.session as object) } } })
  ctx.check('jobs-and-queue.2', res.status >= 200 && res.status < 300 && typeof res.json?.job?.id === 'string', 'a 2xx with a {job} envelope', `HTTP ${res.status} ${res.text.slice(0, 200)}`)
  const job = res.json.job
  ctx.onCleanup(() => ctx.http('DELETE', `/jobs/${job.id}`))
  return job
}

async function until(ctx: CaseContext, found: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + ctx.deadlineMs
  while (!(await found())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ctx.deadlineMs} ms waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

export const jobEdgeCases: Case[] = [
  {
    id: 'jobs-retry-delay-holds-while-another-job-runs', title: 'a job waiting out its retry delay is not claimed early when another job is submitted and runs meanwhile', section: 'queue-options',
    clauses: ['queue-options.12', 'job-status.7', 'job-status.3'], requires: ['provider', 'queue', 'receiver'], isolation: 'global',
    async run(ctx) {
      // job-status.7: a failed run with attempts left is queued again with delay retryDelayMs;
      // queue-options.12: claimNext skips queued jobs whose nextRunAt is in the future, and
      // job-status.3 claims only when nextRunAt is not in the future. Another job submitted during
      // the delay triggers a claim: it must take that job, not the one still waiting. Run alone
      // (global), so no other case's jobs stretch the wait past the delay.
      await requireRunningQueue(ctx)
      const hook = ctx.receiver!.urlFor(`retry-hold-${Math.floor(ctx.random() * 1e9)}`)
      const a = await post(ctx, { session: { prompt: 'scenario:model-error' }, attempts: 2, retryDelayMs: RETRY_DELAY_MS, webhook: { url: hook.url } })
      await until(ctx, () => ctx.receiver!.received(hook.path).some((d) => jobEventType(d.body) === 'job_retrying'), 'job_retrying of the failing job')
      const retryingAt = ctx.receiver!.received(hook.path).find((d) => jobEventType(d.body) === 'job_retrying')!.at
      const b = await post(ctx, { session: { prompt: 'scenario:hello' } })
      await until(ctx, async () => !NON_TERMINAL.includes((await ctx.http('GET', `/jobs/${b.id}`)).json?.job?.status), 'the second job to finish')
      const seen = (await ctx.http('GET', `/jobs/${a.id}`)).json?.job
      // Judged only while the delay has certainly not run out (the target's clock is not ours).
      if (Date.now() - retryingAt > RETRY_DELAY_MS * 0.8) throw new Unsupported(`the second job took ${Date.now() - retryingAt} ms, too close to the ${RETRY_DELAY_MS} ms retry delay to judge`)
      ctx.check('queue-options.12', seen?.status === 'queued', `the retrying job still queued while its ${RETRY_DELAY_MS} ms delay runs, after another job was claimed and finished`, seen)
    },
  },
]
