/** Case helpers: engine death. Shared by the cases of every section through case-helpers/index.ts. */
import type { CaseContext } from '../context.ts'
import type { WsClient } from '../ws-client.ts'

export async function engineDeath(ctx: CaseContext, open: (body?: Record<string, unknown>) => Promise<{ session: any; ws: WsClient }>): Promise<void> {
  const { session, ws } = await open()
  ws.send({ type: 'user_message', text: 'scenario:crash' })
  const end: any = await ws.waitFor((f: any) => f.type === 'event' && (f.event.type === 'session_error' || (f.event.type === 'turn_result' && f.event.isError === true)), ctx.deadlineMs, 'session_error or an error turn_result')
  if (end.event.type === 'session_error') {
    await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'failed')
    // events.21 names only 'client' among the reasons ("Other reason values: not shown").
    const closed = await ws.waitForEvent('session_closed', ctx.deadlineMs)
    ctx.check('events.21', typeof closed.reason === 'string', 'session_closed with a reason', closed)
    ctx.observe(closed.reason === 'error', `session_closed after the engine died has reason ${JSON.stringify(closed.reason)}, not 'error' (protocol 7's reasons: client, server, error)`)
  } else {
    // Only the turn ended: the session is not terminal. Before its next message (its engine perhaps
    // between processes) GET /mcp answers as in any live state: the list, or 501 where the record
    // has no mcpStatus (sessions.9, errors.9; no clause lists another refusal for a live session).
    const mcp = await ctx.http('GET', `/sessions/${session.id}/mcp`)
    if (session.capabilities?.mcpStatus === false) ctx.errorStatus('errors.9', mcp, 501)
    else ctx.check('sessions.9', mcp.status === 200 && typeof mcp.json === 'object', 'GET /sessions/:id/mcp answers its McpServersResponse after the engine died mid-turn', `HTTP ${mcp.status} ${mcp.text.slice(0, 160)}`)
    // Its next message is answered.
    ws.send({ type: 'user_message', text: 'after the crash' })
    const next = await ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.seq > end.event.seq)
    const info = (await ctx.http('GET', `/sessions/${session.id}`)).json?.session
    ctx.check('events.21', next.isError === false && info?.status !== 'failed' && info?.status !== 'closed', 'a session given no session_error is not terminal: its next turn completes', { next, status: info?.status })
  }
  const other = await open({ prompt: 'are you there?' })
  const result = await other.ws.waitForEvent('turn_result', ctx.deadlineMs)
  ctx.check('events.21', result.isError === false, 'another session still completes a turn', result)
}
