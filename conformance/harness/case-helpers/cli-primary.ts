/** Case helpers: cli primary. Shared by the cases of every section through case-helpers/index.ts. */
import type { CaseContext } from '../context.ts'
import type { WsClient } from '../ws-client.ts'
import { Unsupported } from '../../types.ts'

export async function primary(ctx: CaseContext, body: Record<string, unknown> = {}): Promise<{ session: any; ws: WsClient }> {
  const cwd = ctx.manifest.cwdRoot
  if (!cwd) throw new Unsupported('the manifest gives no cwdRoot')
  const session = await ctx.createSession({ profile: ctx.profile('cli_primary'), cwd, ...body })
  const ws = await ctx.ws(session.id)
  return { session, ws }
}
