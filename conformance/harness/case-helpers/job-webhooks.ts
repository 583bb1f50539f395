/** Case helpers: job webhooks. Shared by the cases of every section through case-helpers/index.ts. */
import type { CaseContext } from '../context.ts'

/** job-status.1 names these; every other status is terminal (its names are not shown). */
export const NON_TERMINAL = ['queued', 'running', 'parked']

export const RETRY_DELAY_MS = 5000

export async function post(ctx: CaseContext, body: Record<string, unknown>): Promise<any> {
  const res = await ctx.http('POST', '/jobs', { body: { ...body, session: { profile: ctx.profile('provider'), ...(body.session as object) } } })
  ctx.check('jobs-and-queue.2', res.status >= 200 && res.status < 300 && typeof res.json?.job?.id === 'string', 'a 2xx with a {job} envelope', `HTTP ${res.status} ${res.text.slice(0, 200)}`)
  const job = res.json.job
  ctx.onCleanup(() => ctx.http('DELETE', `/jobs/${job.id}`))
  return job
}

export async function until(ctx: CaseContext, found: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + ctx.deadlineMs
  while (!(await found())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ctx.deadlineMs} ms waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}
