/** Case helpers: cwd session. Shared by the cases of every section through case-helpers/index.ts. */
import { requireRunningQueue } from './jobs.ts'
import type { CaseContext } from '../context.ts'
import type { WsClient } from '../ws-client.ts'
import { Unsupported } from '../../types.ts'

export async function openCwdSession(ctx: CaseContext, role: string, body: Record<string, unknown> = {}): Promise<{ session: any; ws: WsClient }> {
  const cwd = ctx.manifest.cwdRoot
  if (!cwd) throw new Unsupported('the manifest gives no cwdRoot')
  const session = await ctx.createSession({ profile: ctx.profile(role), cwd, ...body })
  return { session, ws: await ctx.ws(session.id) }
}

/**
 * A job on a profile role in the manifest's `cwdRoot`, its webhook pointed at the kit's receiver:
 * what every CLI-engine job case starts from. The job is cancelled when the case ends.
 */
export async function submitCwdJob(ctx: CaseContext, role: string, prompt: string, hookName: string): Promise<{ id: string; hook: { url: string; path: string } }> {
  const cwd = ctx.manifest.cwdRoot
  if (!cwd) throw new Unsupported('the manifest gives no cwdRoot')
  await requireRunningQueue(ctx)
  const hook = ctx.receiver!.urlFor(`${hookName}-${Math.floor(ctx.random() * 1e9)}`)
  const res = await ctx.http('POST', '/jobs', { body: { session: { profile: ctx.profile(role), cwd, prompt }, webhook: { url: hook.url } } })
  ctx.created('jobs-and-queue.2', res, 201)
  const id = res.json?.job?.id
  ctx.check('jobs-and-queue.2', typeof id === 'string', 'a {job} envelope with an id', res.text.slice(0, 200))
  ctx.onCleanup(() => ctx.http('DELETE', `/jobs/${encodeURIComponent(id)}`))
  return { id, hook }
}
