/** Case helpers: protocol7 client. Shared by the cases of every section through case-helpers/index.ts. */
import type { CaseContext } from '../context.ts'
import { openWs, type WsClient } from '../ws-client.ts'

/** The head protocol 7's `truncateResults` keeps of one tool_result block. */
export const HEAD_CHARS = 8000

/** Attaches with a raw query (the context's `ws` knows only `afterSeq`); closed at cleanup. */
export async function attachWith(ctx: CaseContext, id: string, query: string): Promise<WsClient> {
  const url = `${ctx.url(`/sessions/${encodeURIComponent(id)}/ws`).replace(/^http/, 'ws')}?${query}`
  const ws = await openWs(ctx.log, url, ctx.token('operator'), ctx.deadlineMs, 'operator')
  ctx.onCleanup(() => ws.close())
  return ws
}

/**
 * A provider session whose one `client_eval` call is answered with `answer` (a tool_call_result
 * or tool_call_error body); resolves once the turn has ended.
 */
export async function bridgedRequest(ctx: CaseContext, answer: Record<string, unknown>): Promise<{ id: string; ws: WsClient; request: any }> {
  const { session, ws } = await ctx.idleSession({ profile: ctx.profile('provider') })
  ws.send({ type: 'user_message', text: 'scenario:bridge' })
  const request = await ws.waitFor((f) => f.type === 'tool_call_request', ctx.deadlineMs, 'tool_call_request')
  ws.send({ type: 'error' in answer ? 'tool_call_error' : 'tool_call_result', executionId: request.executionId, ...answer })
  const end = await ws.waitFor((f) => f.type === 'protocol_error' || (f.type === 'event' && f.event.type === 'turn_result'), ctx.deadlineMs, 'turn_result')
  ctx.check('commands.8', end.type !== 'protocol_error', 'the answer to tool_call_request accepted', end)
  return { id: session.id, ws, request }
}

/** Ids of the tool_use blocks the session's assistant messages carry. */
export function toolUseIds(events: any[]): string[] {
  return events.filter((e) => e.type === 'assistant_message' && Array.isArray(e.message?.content))
    .flatMap((e) => e.message.content.filter((b: any) => b?.type === 'tool_use').map((b: any) => b.id))
}

/** The synthetic user message holding a tool_result block, with that block. */
export function toolResultOf(events: any[]): { event: any; block: any } | undefined {
  for (const event of events) {
    if (event.type !== 'user_message' || !Array.isArray(event.message?.content)) continue
    const block = event.message.content.find((b: any) => b?.type === 'tool_result')
    if (block) return { event, block }
  }
  return undefined
}
