/** Case helpers: cli engine requests. Shared by the cases of every section through case-helpers/index.ts. */
import type { CliEngine } from './cli-dormancy.ts'
import { openCwdSession } from './cwd-session.ts'
import type { CaseContext } from '../context.ts'

export const open = (ctx: CaseContext, engine: CliEngine, body: Record<string, unknown> = {}) => openCwdSession(ctx, engine, body)

export async function sdkSessionIdOf(ctx: CaseContext, id: string): Promise<unknown> {
  return (await ctx.http('GET', `/sessions/${id}`)).json?.session?.sdkSessionId
}

/** A death after a completed turn: the session fails (terminal), or goes on and its next turn completes. */
export async function resumeAfterCrash(ctx: CaseContext, engine: CliEngine): Promise<void> {
  const { session, ws } = await open(ctx, engine)
  ws.send({ type: 'user_message', text: 'remember the word apricot' })
  const first = await ws.waitForEvent('turn_result', ctx.deadlineMs)
  const before = await sdkSessionIdOf(ctx, session.id)
  ws.send({ type: 'user_message', text: 'scenario:crash' })
  const end: any = await ws.waitFor((f: any) => f.type === 'event' && f.event.seq > first.seq && (f.event.type === 'session_error' || (f.event.type === 'turn_result' && f.event.isError === true)), ctx.deadlineMs, 'session_error or an error turn_result')
  if (end.event.type === 'session_error') {
    // A failed session is one correct answer: then it is terminal (events.21, session-status-values.1).
    await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'failed')
    const closed = await ws.waitForEvent('session_closed', ctx.deadlineMs)
    ctx.check('events.21', typeof closed.reason === 'string', 'session_closed with a reason after session_error', closed)
    return
  }
  ws.send({ type: 'user_message', text: 'which word did I ask you to remember?' })
  const next = await ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.seq > end.event.seq)
  const info = (await ctx.http('GET', `/sessions/${session.id}`)).json?.session
  ctx.check('events.21', next.isError === false && info?.status !== 'failed' && info?.status !== 'closed', 'a session given no session_error is not terminal: the turn after the death completes', { next, status: info?.status })
  // Which conversation the new engine runs is open; a changed engine id says the earlier turns are gone from it.
  const after = await sdkSessionIdOf(ctx, session.id)
  ctx.observe(before === undefined || after === before, `after the engine died the session went on in another engine conversation (sdkSessionId ${JSON.stringify(before)} → ${JSON.stringify(after)}): the model no longer has the earlier turns (the spec is silent on engine death)`)
}

/** A sub-agent's turn: the session's turn still ends; nested messages, if told apart, name a call seen earlier. */
export async function subAgentEvents(ctx: CaseContext, engine: CliEngine): Promise<void> {
  const { ws } = await open(ctx, engine)
  ws.send({ type: 'user_message', text: 'scenario:subagent' })
  const result = await ws.waitForEvent('turn_result', ctx.deadlineMs)
  ctx.check('events.12', typeof result.isError === 'boolean' && typeof result.subtype === 'string', 'the turn that ran a sub-agent ends with its turn_result', result)
  const messages = ws.events().filter((e) => e.type === 'assistant_message' || e.type === 'user_message')
  const parents = messages.map((e) => e.parentToolUseId).filter((p) => p !== undefined && p !== null)
  // events.10 names parentToolUseId without its type: a present value names something, so a non-empty string.
  ctx.check('events.10', parents.every((p) => typeof p === 'string' && p.length > 0), 'every non-null parentToolUseId is a non-empty string', parents)
  ctx.observe(parents.length > 0, 'no message of the sub-agent\'s turn carried a parentToolUseId: a client cannot tell the sub-agent\'s messages from the session\'s own (events.10 names the field, not its use)')
  // The field's name says what it holds: the id of the tool use the message belongs under. Where the
  // turn shows tool_use blocks (the spawning call as a card), a parent names one of them; a turn
  // with no card at all leaves nothing to name, and is not judged here.
  const uses = new Set(messages.filter((e) => e.type === 'assistant_message').flatMap((e) => (Array.isArray(e.message?.content) ? e.message.content : []))
    .filter((b: any) => b?.type === 'tool_use' && typeof b.id === 'string').map((b: any) => b.id as string))
  if (uses.size > 0) ctx.check('events.10', parents.every((p) => uses.has(p)), 'each parentToolUseId names a tool_use block the session showed (the spawning call)', { parents, uses: [...uses] })
}
