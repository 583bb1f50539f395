/**
 * Edge cases on the job queue found by reviewing generated mutation survivors in gateway/queue.
 * The kit's jobs ran on the provider engine, and on cli_primary only to
 * see a permission request: no job ran on cli_secondary, whose assistant messages (codex agent
 * text) carry no per-message usage, so nothing showed that such a message is announced at all.
 */
import type { CaseContext } from '../harness/context.ts'
import { jobEventJobId, jobEventType } from '../harness/job-event.ts'
import type { Case } from '../types.ts'
import { submitCwdJob } from './cwd-session.ts'
import { requireRunningQueue } from './jobs.ts'

/** The job's webhook deliveries' event types, in arrival order, once `job_completed` came (or the deadline passed). */
async function deliveredTypes(ctx: CaseContext, path: string, jobId: string): Promise<string[]> {
  const deadline = Date.now() + ctx.deadlineMs
  for (;;) {
    const types = ctx.receiver!.received(path)
      .filter((d) => { const id = jobEventJobId(d.body); return id === undefined || id === jobId })
      .map((d) => jobEventType(d.body) ?? '?')
    if (types.includes('job_completed') || Date.now() > deadline) return types
    await new Promise((r) => setTimeout(r, 20))
  }
}

export const killCEdgeCases: Case[] = [
  {
    id: 'jobs-progress-on-assistant-message-cli-secondary', title: 'a cli_secondary job announces its run\'s assistant message with job_progress before job_completed', section: 'job-status',
    clauses: ['job-status.4', 'events.23', 'events.10'], requires: ['cli_secondary', 'queue', 'receiver'],
    async run(ctx) {
      // `hello` is text only ("Hello, " then "world!"): an assistant reply on any engine (events.10), nothing to approve.
      const { id, hook } = await submitCwdJob(ctx, 'cli_secondary', 'scenario:hello', 'codex-job')
      const types = await deliveredTypes(ctx, hook.path, id)
      const job = (await ctx.http('GET', `/jobs/${encodeURIComponent(id)}`)).json?.job
      if (!types.includes('job_completed')) {
        if (job?.status === 'queued') await requireRunningQueue(ctx)
        throw new Error(`timed out after ${ctx.deadlineMs} ms waiting for job_completed; deliveries ${JSON.stringify(types)}, job ${JSON.stringify(job).slice(0, 200)}`)
      }
      // Only a run that answered had an assistant message to announce. Terminal status names are not
      // shown (job-status.1), so the answer is read from the job's result (other-shapes.5).
      if (!JSON.stringify(job ?? null).includes('world!')) throw new Error(`the job's result does not carry the run's answer (status ${job?.status}, ${JSON.stringify(job).slice(0, 300)}), so the case cannot tell that an assistant message came`)
      // job-status.4: an assistant message while running sends job_progress (quieted only by
      // `webhook.progress: 'completion'`, not set here); events.23: progress comes before completed.
      const progress = types.indexOf('job_progress')
      ctx.check('job-status.4', progress >= 0 && progress < types.indexOf('job_completed'), 'a job_progress delivery for the run\'s assistant message, before job_completed', `deliveries: ${JSON.stringify(types)}`)
    },
  },
]
