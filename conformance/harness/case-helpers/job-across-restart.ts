/** Case helpers: job across restart. Shared by the cases of every section through case-helpers/index.ts. */
import { afterParkedCap, submit, terminal, waitForJob } from './jobs.ts'
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
  // A second job left parked across the restart, its result never delivered: the cap still fails it
  // (job-status.11, queue-options.5), though no run of this process parked it.
  const capped = typeof cap === 'number' ? await submit(ctx, { session: { prompt: 'scenario:deferred' } }) : undefined
  const parked = await waitForJob(ctx, job.id, (j) => j.status === 'parked', 'parked')
  if (capped) await waitForJob(ctx, capped.id, (j) => j.status === 'parked', 'the second job parked')
  const mayHaveLapsed = () => typeof cap === 'number' && Date.now() - submittedAt >= cap
  return async () => {
    const res = await ctx.http('POST', `/executions/${parked.parkedExecutionId}/result`, { body: { status: 'ok', output: { type: 'text', value: 'after the restart' } } })
    if (!mayHaveLapsed()) {
      ctx.equal('job-status.6', res.json?.applied, true, 'a result delivered after the restart to a job parked before it is applied')
      const done = await waitForJob(ctx, job.id, terminal, 'a terminal status after the resumed run')
      const resumed = ctx.receiver!.received(hook.path).some((d) => jobEventType(d.body) === 'job_resumed')
      ctx.check('job-status.6', resumed, 'job_resumed for the job the result woke after the restart', { status: done.status, events: ctx.receiver!.received(hook.path).map((d) => jobEventType(d.body)) })
    }
    if (!capped) return
    const { job: current } = await afterParkedCap(ctx, capped.id)
    ctx.equal('job-status.11', current?.status, 'failed', `status of a job parked before the restart, once ${cap} ms parked had passed`)
  }
}
