/**
 * A session on a profile role created in the manifest's `cwdRoot` and attached at once: what every
 * CLI-engine case starts from. A target that names no cwdRoot makes the case `unsupported`.
 */
import type { CaseContext } from '../harness/context.ts'
import type { WsClient } from '../harness/ws-client.ts'
import { Unsupported } from '../types.ts'

export async function openCwdSession(ctx: CaseContext, role: string, body: Record<string, unknown> = {}): Promise<{ session: any; ws: WsClient }> {
  const cwd = ctx.manifest.cwdRoot
  if (!cwd) throw new Unsupported('the manifest gives no cwdRoot')
  const session = await ctx.createSession({ profile: ctx.profile(role), cwd, ...body })
  return { session, ws: await ctx.ws(session.id) }
}
