/** Case helpers: jobs. Shared by the cases of every section through case-helpers/index.ts. */
import { NON_TERMINAL } from './job-webhooks.ts'
import type { CaseContext } from '../context.ts'
import { jobEventType } from '../job-event.ts'
import { Unsupported } from '../../types.ts'

/** The base retry delay the retry case asks for: long enough that doubling stands out from jitter. */
export const RETRY_BASE_MS = 250

/** The run limit the watchdog case asks for: long enough that a run failed at once is told apart. */
export const MAX_DURATION_MS = 300

export const ORDER = /^(S(P|KR)*K?Y)*(S(P|KR)*K?)?C$/

export const LETTER: Record<string, string> = { job_started: 'S', job_progress: 'P', job_parked: 'K', job_resumed: 'R', job_retrying: 'Y', job_completed: 'C', job_submitted: 'U' }

export const terminal = (j: any) => typeof j?.status === 'string' && !NON_TERMINAL.includes(j.status)

/**
 * A spent daily token budget holds every queued job (queue-options.3): that is conforming, and
 * on a long-lived gateway it happens after enough runs. A case needing a job to run is then
 * `unsupported`, never failed.
 */
export async function requireRunningQueue(ctx: CaseContext): Promise<void> {
  const stats = (await ctx.http('GET', '/queue')).json?.stats
  if (stats?.paused === true) throw new Unsupported('the target\'s queue is paused (its daily token budget is spent until the UTC day rolls over)')
}

export async function submit(ctx: CaseContext, body: Record<string, unknown>, as: 'operator' | 'tenantA' | 'restricted' = 'operator', evenIfPaused = false): Promise<any> {
  if (!evenIfPaused) await requireRunningQueue(ctx)
  const session = { profile: ctx.profile('provider'), ...(body.session as object) }
  const res = await ctx.http('POST', '/jobs', { as, body: { ...body, session } })
  // jobs-and-queue.2 answers JobInfo with no status; protocol 7 answers 201.
  ctx.created('jobs-and-queue.2', res, 201)
  const job = res.json?.job
  ctx.check('jobs-and-queue.2', typeof job?.id === 'string', 'a {job} envelope with an id', res.text.slice(0, 200))
  ctx.onCleanup(() => ctx.http('DELETE', `/jobs/${job.id}`))
  return job
}

export async function waitForJob(ctx: CaseContext, id: string, done: (job: any) => boolean, what: string): Promise<any> {
  const deadline = Date.now() + ctx.deadlineMs
  for (;;) {
    const job = (await ctx.http('GET', `/jobs/${id}`)).json?.job
    if (job && done(job)) return job
    if (Date.now() > deadline) {
      // Held because the budget ran out meanwhile is conforming (queue-options.3), not a timeout.
      if (job?.status === 'queued') await requireRunningQueue(ctx)
      throw new Error(`timed out after ${ctx.deadlineMs} ms waiting for ${what}; job is ${job?.status}`)
    }
    await new Promise((r) => setTimeout(r, 25))
  }
}

/**
 * The job once it left `parked`, read until the manifest's maxParkedDurationMs plus the kit's
 * deadline have passed (the job as last read if it never left), with the cap it waited for.
 */
export async function afterParkedCap(ctx: CaseContext, id: string): Promise<{ job: any; cap: number }> {
  const cap = Number(ctx.manifest.timers?.maxParkedDurationMs)
  const deadline = Date.now() + cap + ctx.deadlineMs
  let job: any
  while (Date.now() < deadline) {
    job = (await ctx.http('GET', `/jobs/${id}`)).json?.job
    if (job?.status !== 'parked') break
    await new Promise((r) => setTimeout(r, 50))
  }
  return { job, cap }
}

export async function deliveries(ctx: CaseContext, path: string, until: (types: string) => boolean): Promise<string> {
  const deadline = Date.now() + ctx.deadlineMs
  for (;;) {
    const types = ctx.receiver!.received(path).map((d) => LETTER[jobEventType(d.body) ?? ''] ?? '?').join('')
    if (until(types)) return types
    if (Date.now() > deadline) throw new Error(`timed out waiting for webhook deliveries; got '${types}'`)
    await new Promise((r) => setTimeout(r, 20))
  }
}
