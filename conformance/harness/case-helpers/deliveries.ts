/** Case helpers: deliveries. Shared by the cases of every section through case-helpers/index.ts. */
import type { CaseContext } from '../context.ts'
import { jobEventJobId, jobEventType } from '../job-event.ts'

/** The job's webhook deliveries' event types, in arrival order, once `job_completed` came (or the deadline passed). */
export async function deliveredTypes(ctx: CaseContext, path: string, jobId: string): Promise<string[]> {
  const deadline = Date.now() + ctx.deadlineMs
  for (;;) {
    const types = ctx.receiver!.received(path)
      .filter((d) => { const id = jobEventJobId(d.body); return id === undefined || id === jobId })
      .map((d) => jobEventType(d.body) ?? '?')
    if (types.includes('job_completed') || Date.now() > deadline) return types
    await new Promise((r) => setTimeout(r, 20))
  }
}
