/** Case helpers: creating routes. Shared by the cases of every section through case-helpers/index.ts. */
import type { CaseContext } from '../context.ts'
import type { HttpAnswer } from '../http-client.ts'
import { Unsupported } from '../../types.ts'

export function cwdRoot(ctx: CaseContext): string {
  const root = ctx.manifest.cwdRoot
  if (!root) throw new Unsupported('the manifest gives no cwdRoot')
  return root.replace(/\/+$/, '')
}

/** POST /jobs; a job the gateway wrongly accepted is cancelled so it runs no turn after the case. */
export async function postJob(ctx: CaseContext, session: Record<string, unknown>): Promise<HttpAnswer> {
  const res = await ctx.http('POST', '/jobs', { body: { session } })
  const id = res.json?.job?.id
  if (typeof id === 'string') ctx.onCleanup(() => ctx.http('DELETE', `/jobs/${encodeURIComponent(id)}`))
  return res
}

/**
 * A cwd outside every root is 403 (server-configuration.4). A sibling path need not exist, and a
 * gateway that checks existence before containment refuses it as bad input: both refuse, and
 * which of the two rows comes first the spec does not rank.
 */
export function outsideRefused(ctx: CaseContext, res: HttpAnswer, what: string): void {
  ctx.refusal('server-configuration.4', res, { allowed: [403, 400], protocol7: 403, why: `${what} resolves outside allowedCwdRoots` })
}
