/** Case helpers: cli secondary. Shared by the cases of every section through case-helpers/index.ts. */
import type { CaseContext } from '../context.ts'
import type { WsClient } from '../ws-client.ts'
import { Unsupported } from '../../types.ts'

export async function secondary(ctx: CaseContext, body: Record<string, unknown> = {}): Promise<{ session: any; ws: WsClient }> {
  const cwd = ctx.manifest.cwdRoot
  if (!cwd) throw new Unsupported('the manifest gives no cwdRoot')
  const session = await ctx.createSession({ profile: ctx.profile('cli_secondary'), cwd, ...body })
  const ws = await ctx.ws(session.id)
  return { session, ws }
}

/**
 * The engine's thread id after a turn: SessionInfo.sdkSessionId, or system_init's when the target
 * sends one (neither is obliged, so without both the case cannot go on: unsupported).
 */
export async function engineSessionId(ctx: CaseContext, ws: WsClient, id: string): Promise<string> {
  const info = (await ctx.http('GET', `/sessions/${id}`)).json?.session
  const found = info?.sdkSessionId ?? ws.events().find((e) => e.type === 'system_init')?.sdkSessionId
  if (typeof found !== 'string') throw new Unsupported('the session reports no sdkSessionId (SessionInfo or system_init) to read the thread by')
  return found
}
