/** Case helpers: job across restart. Shared by the cases of every section through case-helpers/index.ts. */
import { submit, terminal, waitForJob } from './jobs.ts'
import type { CaseContext } from '../context.ts'
import { jobEventType } from '../job-event.ts'

export async function jobAcrossRestart(ctx: CaseContext): Promise<() => Promise<void>> {
  const offered = new Set(ctx.manifest.features ?? [])
  const paused = async () => (await ctx.http('GET', '/queue')).json?.stats?.paused === true
  // A spent daily budget holds jobs (queue-options.3): this part is skipped, not the whole case.
  if (!offered.has('queue') || !offered.has('durableQueue') || !ctx.receiver || await paused()) return async () => {}
  const cap = ctx.manifest.timers?.maxParkedDurationMs
  const hook = ctx.receiver.urlFor(`restarted-job-${Math.floor(ctx.random() * 1e9)}`)
  // Taken before the submission, so the time it measures is never shorter than the time parked.
  const submittedAt = Date.now()
  const job = await submit(ctx, { session: { prompt: 'scenario:deferred' }, webhook: { url: hook.url } })
  const parked = await waitForJob(ctx, job.id, (j) => j.status === 'parked', 'parked')
  const mayHaveLapsed = () => typeof cap === 'number' && Date.now() - submittedAt >= cap
  return async () => {
    const res = await ctx.http('POST', `/executions/${parked.parkedExecutionId}/result`, { body: { status: 'ok', output: { type: 'text', value: 'after the restart' } } })
    if (mayHaveLapsed()) return
    ctx.equal('job-status.6', res.json?.applied, true, 'a result delivered after the restart to a job parked before it is applied')
    const done = await waitForJob(ctx, job.id, terminal, 'a terminal status after the resumed run')
    const resumed = ctx.receiver!.received(hook.path).some((d) => jobEventType(d.body) === 'job_resumed')
    ctx.check('job-status.6', resumed, 'job_resumed for the job the result woke after the restart', { status: done.status, events: ctx.receiver!.received(hook.path).map((d) => jobEventType(d.body)) })
  }
}
