/**
 * Case helpers: a permission mode set on a running conversation reaches the engine, not only the
 * permission_mode_changed event. One case per CLI engine (the engines with an approval flow).
 */
import type { Case } from '../../types.ts'
import { Unsupported } from '../../types.ts'
import type { Engine } from '../../matrix/dimensions.ts'
import type { CaseContext } from '../context.ts'
import type { WsClient } from '../ws-client.ts'
import { permissionRequestIdOf } from '../permission-request.ts'
import { openCwdSession } from './cwd-session.ts'
import { maxSeq } from './long-turns.ts'

const slug = (engine: Engine) => engine.replace('_', '-')

/** A turn that writes one new file inside the session's cwd (the kit's produce_file step, played by each engine's file tool). */
const editTurn = (name: string) => `scenario:${JSON.stringify({ name: 'kit-edit-in-cwd', steps: [{ type: 'produce_file', path: name, content: `written by the kit as ${name}\n` }, { type: 'text', text: `wrote ${name}` }] })}`

/** The first permission_requested or turn_result after `mark`. */
async function askOrEnd(ctx: CaseContext, ws: WsClient, mark: number): Promise<any> {
  const frame = await ws.waitFor((f) => f.type === 'event' && f.event.seq > mark && (f.event.type === 'permission_requested' || f.event.type === 'turn_result'), ctx.deadlineMs, 'permission_requested or turn_result')
  return frame.event
}

export const acceptEditsReachesEngineCase = (engine: Engine): Case => ({
  id: `${slug(engine)}-set-accept-edits-reaches-engine`,
  title: `${engine}: after set_permission_mode acceptEdits on a running conversation, an edit in the cwd that asked in default mode is taken unasked`,
  section: 'commands',
  clauses: ['commands.4', 'events.6', 'events.13', 'permission-request.1'],
  requires: [engine],
  async run(ctx) {
    // commands.4 sets the session's mode and events.6 reports it; the mode reported is the one the
    // next turn runs in, so a mode change that only produces the event is not a set_permission_mode.
    // `acceptEdits` names what it changes: file edits are accepted without the approval flow
    // (events.13). The case calibrates itself: the same kind of edit must ask in `default` first,
    // else this engine asks nothing for edits here and the case shows nothing (unsupported).
    const { session, ws } = await openCwdSession(ctx, engine)
    const modes: unknown = session.capabilities?.permissionModes
    if (Array.isArray(modes) && !modes.includes('acceptEdits')) throw new Unsupported(`the ${engine} record lists no acceptEdits (${JSON.stringify(modes)})`)
    if (session.permissionMode !== undefined && session.permissionMode !== 'default') throw new Unsupported(`the session starts in ${JSON.stringify(session.permissionMode)}, not default`)
    const tag = Math.floor(ctx.random() * 1e9)
    ws.send({ type: 'user_message', text: editTurn(`kit-edit-default-${tag}.txt`) })
    const first = await askOrEnd(ctx, ws, 0)
    if (first.type !== 'permission_requested') throw new Unsupported(`the ${engine} engine wrote a file in the cwd unasked in default mode: no approval to lift`)
    const requestId = permissionRequestIdOf(first)
    if (!requestId) throw new Unsupported(`the permission_requested event names no request id: ${JSON.stringify(first).slice(0, 200)}`)
    const answered = await ctx.http('POST', `/sessions/${session.id}/permissions/${requestId}`, { body: { behavior: 'allow' } })
    ctx.check('permission-request.1', answered.status >= 200 && answered.status < 300, 'a 2xx for the allow of the pending request', `HTTP ${answered.status} ${answered.text.slice(0, 120)}`)
    const ended = await ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.seq > first.seq)
    ws.send({ type: 'set_permission_mode', mode: 'acceptEdits' })
    const changed = await ws.waitForEvent('permission_mode_changed', ctx.deadlineMs, (e) => e.seq > ended.seq)
    ctx.check('events.6', JSON.stringify(changed).includes('"acceptEdits"'), 'permission_mode_changed naming acceptEdits', changed)
    const mark = maxSeq(ws.events())
    ws.send({ type: 'user_message', text: editTurn(`kit-edit-accepted-${tag}.txt`) })
    const end = await askOrEnd(ctx, ws, mark)
    ctx.check('commands.4', end.type === 'turn_result', 'the edit taken without a permission_requested (the turn runs in acceptEdits)', end)
  },
})
