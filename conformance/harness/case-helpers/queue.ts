/** Case helpers: queue. Shared by the cases of every section through case-helpers/index.ts. */
import { NON_TERMINAL } from './job-webhooks.ts'
import { requireRunningQueue } from './jobs.ts'
import type { CaseContext } from '../context.ts'
import { Unsupported } from '../../types.ts'

/** Whether `value` holds, at any depth, an object with every key of `wanted` at an equal value. */
export function holds(value: unknown, wanted: Record<string, unknown>): boolean {
  if (typeof value !== 'object' || value === null) return false
  if (!Array.isArray(value) && Object.entries(wanted).every(([k, v]) => JSON.stringify(canonical((value as Record<string, unknown>)[k])) === JSON.stringify(canonical(v)))) return true
  return Object.values(value).some((child) => holds(child, wanted))
}

/** Key order is no part of a JSON value. */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]))
}

export async function jobSession(ctx: CaseContext, id: string): Promise<string> {
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
