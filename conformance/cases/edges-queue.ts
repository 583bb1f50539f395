/**
 * Edge cases on the job queue found by reviewing generated mutation survivors in gateway/queue.
 * The kit's jobs ran on the provider engine, which never asks for
 * approval (interactiveApprovals: false), so the one job_progress the spec gives content to, a
 * permission request with the full request, was never produced.
 */
import type { CaseContext } from '../harness/context.ts'
import { Unsupported, type Case } from '../types.ts'
import { submitCwdJob } from './cwd-session.ts'
import { requireRunningQueue } from './jobs.ts'

const NON_TERMINAL = ['queued', 'running', 'parked']

/** Whether `value` holds, at any depth, an object with every key of `wanted` at an equal value. */
function holds(value: unknown, wanted: Record<string, unknown>): boolean {
  if (typeof value !== 'object' || value === null) return false
  if (!Array.isArray(value) && Object.entries(wanted).every(([k, v]) => JSON.stringify(canonical((value as Record<string, unknown>)[k])) === JSON.stringify(canonical(v)))) return true
  return Object.values(value).some((child) => holds(child, wanted))
}

/** Key order is no part of a JSON value. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]))
}

async function jobSession(ctx: CaseContext, id: string): Promise<string> {
  const deadline = Date.now() + ctx.deadlineMs
  for (;;) {
    const job = (await ctx.http('GET', `/jobs/${encodeURIComponent(id)}`)).json?.job
    if (typeof job?.sessionId === 'string') return job.sessionId
    if (typeof job?.status === 'string' && !NON_TERMINAL.includes(job.status)) throw new Error(`the job ended (${job.status}) before it asked for approval: ${JSON.stringify(job).slice(0, 200)}`)
    if (Date.now() > deadline) {
      // other-shapes.5 does not list sessionId on JobInfo: without it the kit cannot read the request.
      if (job?.status === 'running') throw new Unsupported('JobInfo names no sessionId while running (other-shapes.5 does not list it), so the kit cannot read the request the run asked')
      await requireRunningQueue(ctx)
      throw new Error(`timed out after ${ctx.deadlineMs} ms waiting for the job to run; job is ${job?.status}`)
    }
    await new Promise((r) => setTimeout(r, 25))
  }
}

export const queueEdgeCases: Case[] = [
  {
    id: 'jobs-progress-carries-permission-request', title: 'a job whose run asks for approval sends job_progress carrying the full permission request', section: 'events',
    clauses: ['events.23', 'job-status.4', 'events.13'], requires: ['cli_primary', 'queue', 'receiver'],
    async run(ctx) {
      // A mutating command, which a real CLI asks about too (cli-primary-permission-flow).
      const { id, hook } = await submitCwdJob(ctx, 'cli_primary', 'scenario:permission-write', 'approval-job')
      const sessionId = await jobSession(ctx, id)
      // Job sessions are ordinary registry sessions (queue-options): the request as the session shows it.
      const ws = await ctx.ws(sessionId)
      const asked = await ws.waitForEvent('permission_requested', ctx.deadlineMs)
      const request = asked.request
      if (typeof request !== 'object' || request === null) throw new Unsupported(`permission_requested carries no request object to compare (${JSON.stringify(asked).slice(0, 160)})`)
      // events.23: job_progress is "JobProgress with a preview and, for permission requests, the full
      // request"; job-status.4: a permission request while running sends job_progress. The layout of
      // JobProgress is not shown, so the request may sit anywhere in the delivery.
      const deadline = Date.now() + ctx.deadlineMs
      let carried = false
      while (!carried && Date.now() <= deadline) {
        carried = ctx.receiver!.received(hook.path).some((d) => d.body?.type === 'job_progress' && holds(d.body, request))
        if (!carried) await new Promise((r) => setTimeout(r, 25))
      }
      const types = ctx.receiver!.received(hook.path).map((d) => d.body?.type)
      ctx.check('events.23', carried, `a job_progress delivery carrying the permission request ${JSON.stringify(request).slice(0, 200)}`, `deliveries: ${JSON.stringify(types)}`)
      if (typeof request.requestId === 'string') await ctx.http('POST', `/sessions/${encodeURIComponent(sessionId)}/permissions/${encodeURIComponent(request.requestId)}`, { body: { behavior: 'deny', message: 'the kit only looked' } })
    },
  },
]
