/**
 * Both CLI engines past their plain turns: an engine that dies after the
 * conversation has a completed turn, a question codex asks its user, and a sub-agent's events.
 * The spec says nothing of an engine's death, of how an engine's own questions reach the client,
 * or of sub-agents beyond naming `parentToolUseId` (events.10); so these cases fail only on what
 * clauses do say (a session without `session_error` is not terminal, events.21; a permission
 * request is settled by its decision and reported, permission-request.1) and otherwise observe.
 */
import type { CaseContext } from '../harness/context.ts'
import { permissionRequestIdOf } from '../harness/permission-request.ts'
import { scripted } from '../harness/scripted-engine.ts'
import { openCwdSession } from './cwd-session.ts'
import type { Case } from '../types.ts'

type CliEngine = 'cli_primary' | 'cli_secondary'

const open = (ctx: CaseContext, engine: CliEngine, body: Record<string, unknown> = {}) => openCwdSession(ctx, engine, body)

async function sdkSessionIdOf(ctx: CaseContext, id: string): Promise<unknown> {
  return (await ctx.http('GET', `/sessions/${id}`)).json?.session?.sdkSessionId
}

/** A death after a completed turn: the session fails (terminal), or goes on and its next turn completes. */
async function resumeAfterCrash(ctx: CaseContext, engine: CliEngine): Promise<void> {
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
async function subAgentEvents(ctx: CaseContext, engine: CliEngine): Promise<void> {
  const { ws } = await open(ctx, engine)
  ws.send({ type: 'user_message', text: 'scenario:subagent' })
  const result = await ws.waitForEvent('turn_result', ctx.deadlineMs)
  ctx.check('events.12', typeof result.isError === 'boolean' && typeof result.subtype === 'string', 'the turn that ran a sub-agent ends with its turn_result', result)
  const messages = ws.events().filter((e) => e.type === 'assistant_message' || e.type === 'user_message')
  const parents = messages.map((e) => e.parentToolUseId).filter((p) => p !== undefined && p !== null)
  // events.10 names parentToolUseId without its type: a present value names something, so a non-empty string.
  ctx.check('events.10', parents.every((p) => typeof p === 'string' && p.length > 0), 'every non-null parentToolUseId is a non-empty string', parents)
  ctx.observe(parents.length > 0, 'no message of the sub-agent\'s turn carried a parentToolUseId: a client cannot tell the sub-agent\'s messages from the session\'s own (events.10 names the field, not its use)')
}

export const cliEngineRequestCases: Case[] = [
  ...(['cli_primary', 'cli_secondary'] as const).flatMap((engine): Case[] => [
    {
      id: `${engine.replace('_', '-')}-resume-after-crash`, section: 'events',
      title: `${engine}: an engine that dies after a completed turn fails the session (session_error) or the session goes on and its next turn completes`,
      clauses: ['events.21', 'session-status-values.1'], requires: [engine, scripted(engine, 'crash')],
      run: (ctx) => resumeAfterCrash(ctx, engine),
    },
    {
      id: `${engine.replace('_', '-')}-subagent-events`, section: 'events',
      title: `${engine}: a turn that runs a sub-agent ends with its turn_result; a message's parentToolUseId, when set, names a call`,
      clauses: ['events.10', 'events.12'], requires: [engine, scripted(engine, 'subagent')],
      run: (ctx) => subAgentEvents(ctx, engine),
    },
  ]),
  {
    id: 'cli-secondary-question', section: 'permission-request',
    title: 'cli_secondary: a question codex asks its user, when it reaches the client as a permission request, is settled by the decision and reported; the turn ends',
    clauses: ['permission-request.1', 'createsessionrequest.1'], requires: ['cli_secondary', scripted('cli_secondary', 'question')],
    async run(ctx) {
      const { ws } = await open(ctx, 'cli_secondary', { questionBehavior: 'ask' })
      ws.send({ type: 'user_message', text: 'scenario:question' })
      const first: any = await ws.waitFor((f: any) => f.type === 'event' && (f.event.type === 'permission_requested' || f.event.type === 'turn_result'), ctx.deadlineMs, 'permission_requested or turn_result')
      if (first.event.type === 'turn_result') {
        ctx.observe(false, 'codex\'s question never reached the client: the turn ended without a permission request (the spec does not say how an engine\'s questions reach the client)')
        return
      }
      const requestId = permissionRequestIdOf(first.event)
      const request = first.event.request ?? {}
      const questions: Array<{ question?: string; options?: Array<{ label?: string }> }> = Array.isArray(request.input?.questions) ? request.input.questions : []
      const answers = Object.fromEntries(questions.map((q) => [String(q.question), String(q.options?.[0]?.label ?? '')]))
      ws.send({ type: 'permission_decision', requestId, behavior: 'allow', updatedInput: { ...(request.input ?? {}), answers } })
      const resolved = await ws.waitForEvent('permission_resolved', ctx.deadlineMs, (e) => e.requestId === requestId)
      ctx.equal('permission-request.1', resolved.behavior, 'allow', 'permission_resolved after the permission_decision')
      const result = await ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.seq > resolved.seq)
      ctx.check('permission-request.1', result.isError === false, 'the turn goes on after the answer and ends', result)
    },
  },
]
