/**
 * Case helpers: a session on a given engine driven to a given state (conformance/matrix), so one
 * command or route can be tried in every state where it can be sent. Each state is reached the way
 * the spec names it: `running` by a turn in progress, `awaiting_approval` by a pending permission
 * request (permission-request.1), `awaiting_tool` by a deferred execution dispatched while a client
 * is attached (events.14), `parked` by the park row (session-status-values.2). `finish` ends the
 * turn in progress the natural way (the turn's own end, an allow, the execution's result).
 */
import type { CaseContext } from '../context.ts'
import { permissionRequestIdOf } from '../permission-request.ts'
import type { WsClient } from '../ws-client.ts'
import { Unsupported } from '../../types.ts'
import type { Engine, SessionState } from '../../matrix/dimensions.ts'
import { maxSeq } from './long-turns.ts'
import { parked } from './parking.ts'

/** A turn that runs a while and ends by itself: a command sent while it runs meets `running`, and its deferred effect shows once the turn ends. */
export const SLOW_TURN = `scenario:${JSON.stringify({ name: 'kit-slow-turn', steps: [{ type: 'sleep', ms: 600 }, { type: 'text', text: 'kit slow turn done' }] })}`

/** The permission scenario of each CLI engine: a mutating command (a real CLI runs a read-only one unasked). */
const ASKING: Record<string, string> = { cli_primary: 'scenario:permission-write', cli_secondary: 'scenario:permission' }

export interface InState {
  id: string
  session: any
  /** The socket attached when the state was reached; for `parked`, a new attach (which wakes the session, session-status-values.6). */
  socket(): Promise<WsClient>
  /** The highest seq seen before the command: what the command causes comes after it. */
  mark: number
  /** The pending permission request's id (`awaiting_approval`) or the deferred execution's id (`awaiting_tool`, `parked`). */
  requestId?: string
  executionId?: string
  /** Ends the turn in progress the natural way; resolves once it is asked to (the turn_result is the caller's to wait for). */
  finish(): Promise<void>
}

export function createBody(ctx: CaseContext, engine: Engine): Record<string, unknown> {
  if (engine === 'provider') return { profile: ctx.profile('provider') }
  const cwd = ctx.manifest.cwdRoot
  if (!cwd) throw new Unsupported('the manifest gives no cwdRoot')
  return { profile: ctx.profile(engine), cwd }
}

/** An idle session on `engine` that has finished one turn: the state every other one starts from. */
export async function afterOneTurn(ctx: CaseContext, engine: Engine): Promise<{ session: any; ws: WsClient }> {
  const session = await ctx.createSession(createBody(ctx, engine))
  const ws = await ctx.ws(session.id)
  ws.send({ type: 'user_message', text: 'scenario:hello' })
  const first = await ws.waitForEvent('turn_result', ctx.deadlineMs)
  await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'idle' && e.seq > first.seq)
  return { session, ws }
}

/**
 * A session on `engine` in `state`. `turn` picks how `running` is reached: `hang` (ends only by an
 * interrupt or a close) or `slow` (ends by itself, for a command whose effect waits for the turn).
 */
export async function inState(ctx: CaseContext, engine: Engine, state: Exclude<SessionState, 'dormant'>, turn: 'hang' | 'slow' = 'hang'): Promise<InState> {
  const { session, ws } = await afterOneTurn(ctx, engine)
  return againInState(ctx, engine, state, turn, session, ws)
}

/** The same session (idle, `ws` attached) driven to `state` once more: the next command of a cell tried on one session. */
export async function againInState(ctx: CaseContext, engine: Engine, state: Exclude<SessionState, 'dormant' | 'parked'> | 'parked', turn: 'hang' | 'slow', session: any, ws: WsClient): Promise<InState> {
  const id = session.id as string
  const expected = expectedStatuses(state)!
  for (let attempt = 1; ; attempt++) {
    const reached = await reachState(ctx, engine, state, turn, id, session, ws)
    // sessions.3: GET /sessions/:id reads the state (session-status-values.1, session.5).
    const status = (await ctx.http('GET', `/sessions/${id}`)).json?.session?.status
    // A slow turn ends by itself: on a loaded machine the read may come after its end. Then
    // nothing was shown wrong; the state is reached again (a hang turn never ends by itself).
    if (!expected.includes(status) && state === 'running' && turn === 'slow' && attempt < 3 && await endedSince(ctx, ws, reached.mark)) {
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'idle' && e.seq > reached.mark)
      continue
    }
    ctx.check(state === 'parked' ? 'session.5' : 'session-status-values.1', expected.includes(status), `GET /sessions/:id status ${expected.join(' or ')} for a ${engine} session ${state}`, status)
    return reached
  }
}

/** The turn running at `mark` ended (its turn_result arrives), within the deadline. */
async function endedSince(ctx: CaseContext, ws: WsClient, mark: number): Promise<boolean> {
  return ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.seq > mark).then(() => true, () => false)
}

async function reachState(ctx: CaseContext, engine: Engine, state: Exclude<SessionState, 'dormant'>, turn: 'hang' | 'slow', id: string, session: any, ws: WsClient): Promise<InState> {
  const base = { id, session, socket: async () => ws, finish: async () => {} }
  if (state === 'idle') return { ...base, mark: maxSeq(ws.events()) }
  if (state === 'running') {
    const before = maxSeq(ws.events())
    ws.send({ type: 'user_message', text: turn === 'hang' ? 'scenario:hang' : SLOW_TURN })
    await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'running' && e.seq > before)
    return { ...base, mark: maxSeq(ws.events()), finish: async () => { if (turn === 'hang') ws.send({ type: 'interrupt' }) } }
  }
  if (state === 'awaiting_approval') {
    const prompt = ASKING[engine]
    if (!prompt) throw new Unsupported(`${engine} sessions ask no permission (interactiveApprovals)`)
    const before = maxSeq(ws.events())
    ws.send({ type: 'user_message', text: prompt })
    const asked = await ws.waitForEvent('permission_requested', ctx.deadlineMs, (e) => e.seq > before)
    await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'awaiting_approval' && e.seq > before)
    const requestId = permissionRequestIdOf(asked)
    if (!requestId) throw new Unsupported(`the permission_requested event names no request id: ${JSON.stringify(asked).slice(0, 200)}`)
    // The answer may find the request already settled by the command under test (a mode change): 404 is then expected.
    const finish = async () => { await ctx.http('POST', `/sessions/${id}/permissions/${requestId}`, { body: { behavior: 'allow' } }) }
    return { ...base, mark: maxSeq(ws.events()), requestId, finish }
  }
  if (engine !== 'provider') throw new Unsupported(`${engine} sessions do not wait on deferred executions`)
  if (state === 'awaiting_tool') {
    const before = maxSeq(ws.events())
    ws.send({ type: 'user_message', text: 'scenario:deferred' })
    const dispatched = await ws.waitForEvent('execution_dispatched', ctx.deadlineMs, (e) => e.seq > before && e.deferred === true)
    return { ...base, mark: maxSeq(ws.events()), executionId: dispatched.executionId, finish: () => deliver(ctx, dispatched.executionId) }
  }
  const { dispatched } = await parked(ctx, 'scenario:deferred', 'operator', { id, ws })
  let woken: WsClient | undefined
  const socket = async () => (woken ??= await ctx.ws(id, { afterSeq: dispatched.seq }))
  return { ...base, socket, mark: dispatched.seq, executionId: dispatched.executionId, finish: () => deliver(ctx, dispatched.executionId) }
}

async function deliver(ctx: CaseContext, executionId: string): Promise<void> {
  await ctx.http('POST', `/executions/${executionId}/result`, { body: { status: 'ok', output: { type: 'text', value: 'kit result' } } })
}

/** What GET /sessions/:id must say of a session in `state` (session-status-values.1, session.5); `undefined` where the spec leaves it open. */
export function expectedStatuses(state: SessionState): string[] | undefined {
  switch (state) {
    case 'idle': return ['idle']
    case 'running': return ['running']
    case 'awaiting_approval': return ['awaiting_approval']
    // "`parked` means waiting on a deferred execution": attached and waiting, running or parked.
    case 'awaiting_tool': return ['running', 'parked']
    case 'parked': return ['parked']
    default: return undefined
  }
}
