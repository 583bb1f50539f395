/**
 * Case helpers: the commands and session routes tried in every state (cases-in-states.ts). Each
 * check asks only what the spec states for the command, whatever the state: the command's event
 * (events.5, events.6, events.20, events.21), the turn it ends or leaves alone (commands.3,
 * session-status-values.9), the session usable afterwards (commands.10), a refusal by its stated
 * status (errors.6) or frame (errors.12).
 */
import type { CaseContext } from '../context.ts'
import { Unsupported } from '../../types.ts'
import type { Engine } from '../../matrix/dimensions.ts'
import { expectEvent, stillServes, turnEnds, type Family } from './cases-in-states.ts'

const OTHER_MODEL: Partial<Record<Engine, string>> = { cli_primary: 'opus', cli_secondary: 'another-model' }

/** A model other than the session's: from the manifest's list, else the one the CLI cases use. */
function otherModel(ctx: CaseContext, engine: Engine, session: any): string {
  const listed = (ctx.manifest.models as Record<string, string[] | undefined> | undefined)?.[engine]
  const found = listed && listed.length >= 2 ? listed.find((m) => m !== session.model) : OTHER_MODEL[engine]
  if (!found) throw new Unsupported(`the manifest lists fewer than two ${engine} models`)
  return found
}

const PREFERRED_MODE: Record<Engine, string> = { provider: 'dontAsk', cli_primary: 'acceptEdits', cli_secondary: 'acceptEdits' }
const ALL_MODES = ['default', 'acceptEdits', 'bypassPermissions', 'dontAsk', 'auto']

export const INTERRUPT_IN_STATES: Family = {
  name: 'interrupt', what: 'interrupt', clauses: ['commands.3', 'commands.10'], turn: 'hang',
  async check(ctx, s, _engine, state) {
    const ws = await s.socket()
    ws.send({ type: 'interrupt' })
    // With no turn in progress there is nothing to end; otherwise the turn in progress ends.
    const ended = state === 'idle' ? s.mark : (await turnEnds(ctx, 'commands.3', ws, s.mark, `the turn in progress ended by the interrupt (${state})`)).seq
    await stillServes(ctx, 'commands.10', ws, ended, `after an interrupt sent ${state}`)
  },
}

export const SET_MODEL_IN_STATES: Family = {
  name: 'set-model', what: 'set_model', clauses: ['commands.5', 'events.5'], turn: 'slow',
  async check(ctx, s, engine, state) {
    const model = otherModel(ctx, engine, s.session)
    const ws = await s.socket()
    ws.send({ type: 'set_model', model })
    await s.finish()
    const changed = await expectEvent(ctx, 'events.5', ws, 'model_changed', (e) => e.seq > s.mark, `model_changed after set_model sent ${state}`)
    ctx.equal('events.5', changed.model, model, 'model_changed.model')
  },
}

export const SET_PERMISSION_MODE_IN_STATES: Family = {
  name: 'set-permission-mode', what: 'set_permission_mode (a mode of the record, then one outside it)', clauses: ['commands.4', 'events.6', 'errors.12'], turn: 'slow',
  async check(ctx, s, engine, state) {
    const record: string[] | undefined = Array.isArray(s.session?.capabilities?.permissionModes) ? s.session.capabilities.permissionModes : undefined
    const mode = !record || record.includes(PREFERRED_MODE[engine]) ? PREFERRED_MODE[engine] : record.find((m) => m !== s.session.permissionMode && m !== 'bypassPermissions')
    if (!mode) throw new Unsupported(`no mode to switch to in the record ${JSON.stringify(record)}`)
    const ws = await s.socket()
    ws.send({ type: 'set_permission_mode', mode })
    await s.finish()
    // events.6 names no field for the new mode: the event names it somewhere.
    await expectEvent(ctx, 'events.6', ws, 'permission_mode_changed', (e) => e.seq > s.mark && JSON.stringify(e).includes(`"${mode}"`), `permission_mode_changed naming ${mode} after set_permission_mode sent ${state}`)
    const outside = record && ALL_MODES.find((m) => !record.includes(m))
    if (!outside) return
    const start = ws.frames.length
    ws.send({ type: 'set_permission_mode', mode: outside })
    try {
      await ws.waitFor((f) => f.type === 'protocol_error' && ws.frames.indexOf(f) >= start, ctx.deadlineMs, 'a protocol_error')
    } catch {
      ctx.check('errors.12', false, `a protocol_error for mode ${outside}, outside the record ${JSON.stringify(record)} (${state})`, ws.frames.slice(start).map((f) => f.type))
    }
  },
}

export const CLEAR_CONTEXT_IN_STATES: Family = {
  name: 'clear-context', what: 'clear_context', clauses: ['commands.6', 'session-status-values.9', 'events.20'], turn: 'slow',
  async check(ctx, s, _engine, state) {
    const ws = await s.socket()
    ws.send({ type: 'clear_context' })
    if (s.session?.capabilities?.clearContext !== true) {
      // The row's condition is the engine's clearContext (absent means false, engine-capability-record.1):
      // without it the command clears nothing, and as bad input it never breaks the session (errors.12).
      await s.finish()
      const ended = state === 'idle' ? s.mark : (await turnEnds(ctx, 'session-status-values.9', ws, s.mark, `the turn in progress ended (${state})`)).seq
      await stillServes(ctx, 'errors.12', ws, ended, `after clear_context sent ${state} to an engine whose record lacks clearContext`)
      const resets = ws.events().filter((e) => e.type === 'conversation_reset' && e.seq > s.mark)
      ctx.check('session-status-values.9', resets.length === 0, `no conversation_reset from an engine whose record has clearContext ${JSON.stringify(s.session?.capabilities?.clearContext)}`, resets)
      return
    }
    if (state === 'idle') {
      await expectEvent(ctx, 'session-status-values.9', ws, 'conversation_reset', (e) => e.seq > s.mark, 'conversation_reset after clear_context on an idle session')
      return
    }
    await s.finish()
    // session-status-values.9: queued behind the running turn, not an interrupt: the turn ends as it would have, then the reset.
    const ended = await turnEnds(ctx, 'session-status-values.9', ws, s.mark, `the turn in progress ended (${state})`)
    ctx.check('session-status-values.9', ended.isError === false, `clear_context sent ${state} does not interrupt the turn`, ended)
    const reset = await expectEvent(ctx, 'session-status-values.9', ws, 'conversation_reset', (e) => e.seq > s.mark, `conversation_reset once the turn in progress ended (${state})`)
    ctx.check('session-status-values.9', reset.seq > ended.seq, `clear_context sent ${state} is queued behind the turn: the reset after its turn_result`, { reset: reset.seq, turnResult: ended.seq })
  },
}

export const CLOSE_IN_STATES: Family = {
  name: 'close', what: 'close', clauses: ['commands.7', 'events.21', 'commands.10'], turn: 'hang',
  async check(ctx, s, _engine, state) {
    const ws = await s.socket()
    ws.send({ type: 'close' })
    const closed = await expectEvent(ctx, 'events.21', ws, 'session_closed', (e) => e.seq > s.mark, `session_closed after close sent ${state}`)
    ctx.equal('events.21', closed.reason, 'client', 'session_closed.reason')
    ctx.equal('commands.7', (await ctx.http('GET', `/sessions/${s.id}`)).json?.session?.status, 'closed', `status after close sent ${state}`)
  },
}

export const UNKNOWN_ANSWERS_IN_STATES: Family = {
  name: 'unknown-answers', what: 'permission_decision, tool_call_result and tool_call_error for unknown ids', clauses: ['commands.2', 'commands.8', 'commands.9', 'errors.12'], turn: 'slow',
  async check(ctx, s, _engine, state) {
    const ws = await s.socket()
    ws.send({ type: 'permission_decision', requestId: 'kit-no-such-request', behavior: 'allow' })
    ws.send({ type: 'permission_decision', requestId: 'kit-no-such-request', behavior: 'deny', message: 'no', interrupt: true })
    ws.send({ type: 'tool_call_result', executionId: 'kit-no-such-execution', result: { type: 'text', value: 'x' } })
    ws.send({ type: 'tool_call_error', executionId: 'kit-no-such-execution', error: 'boom' })
    await s.finish()
    // The turn in progress is neither answered nor interrupted by answers to ids it never issued.
    const ended = state === 'idle' ? s.mark : (await turnEnds(ctx, 'commands.2', ws, s.mark, `the turn in progress ends as it would have (${state})`)).seq
    if (state !== 'idle') ctx.check('commands.2', ws.events().find((e) => e.type === 'turn_result' && e.seq > s.mark)?.isError === false, `answers for unknown ids sent ${state} do not end the turn in error`, ws.events().filter((e) => e.seq > s.mark).map((e) => e.type))
    await stillServes(ctx, 'commands.8', ws, ended, `after answers for unknown ids sent ${state}`)
    ctx.check('errors.12', ws.open, 'the socket still open', 'closed')
  },
}

export const USER_MESSAGE_IN_STATES: Family = {
  name: 'user-message', what: 'user_message', clauses: ['commands.1', 'events.10'], turn: 'slow',
  async check(ctx, s, _engine, state) {
    const ws = await s.socket()
    const text = `kit message sent ${state} ${Math.floor(ctx.random() * 1e9)}`
    const start = ws.frames.length
    ws.send({ type: 'user_message', text })
    await s.finish()
    // The message is taken (shown as a user_message and answered by a turn) or refused by a
    // protocol_error (errors.12); silence loses the command.
    const shown = (e: any) => e.type === 'user_message' && e.seq > s.mark && JSON.stringify(e.message ?? null).includes(text)
    let outcome: any
    try {
      outcome = await ws.waitFor((f) => ws.frames.indexOf(f) >= start && (f.type === 'protocol_error' || (f.type === 'event' && shown(f.event))), ctx.deadlineMs, 'the message shown or refused')
    } catch {
      ctx.check('commands.1', false, `a user_message sent ${state} shown as a user_message event (or refused by a protocol_error)`, ws.events().filter((e) => e.seq > s.mark).map((e) => e.type))
    }
    if (outcome.type === 'protocol_error') {
      ctx.observe(false, `a user_message sent ${state} was refused with a protocol_error: ${JSON.stringify(outcome).slice(0, 160)}`)
      return
    }
    await turnEnds(ctx, 'commands.1', ws, outcome.event.seq, `a turn_result after the message sent ${state}`)
  },
}

export const PERMISSION_DECISION_IN_STATES: Family = {
  name: 'permission-decision', what: 'permission_decision answering the pending request', clauses: ['commands.2', 'events.13', 'permission-request.1'], turn: 'slow',
  cells: [['cli_primary', 'awaiting_approval'], ['cli_secondary', 'awaiting_approval']],
  async check(ctx, s) {
    const ws = await s.socket()
    ws.send({ type: 'permission_decision', requestId: s.requestId, behavior: 'allow' })
    const resolved = await expectEvent(ctx, 'permission-request.1', ws, 'permission_resolved', (e) => e.seq > s.mark, 'permission_resolved after the decision')
    ctx.check('events.13', typeof resolved.resolvedBy === 'string', 'permission_resolved carries resolvedBy', resolved)
    const ended = await turnEnds(ctx, 'commands.2', ws, s.mark, 'the allowed turn ends')
    ctx.check('commands.2', ended.isError === false, 'the allowed tool ran and the turn ended without error', ended)
    const again = await ctx.http('POST', `/sessions/${s.id}/permissions/${s.requestId}`, { body: { behavior: 'deny' } })
    ctx.errorStatus('permission-request.1', again, 404)
  },
}

export const DELETE_IN_STATES: Family = {
  name: 'delete', what: 'DELETE /sessions/:id', clauses: ['sessions.5', 'session-status-values.5'], turn: 'hang',
  async check(ctx, s, _engine, state) {
    const del = await ctx.http('DELETE', `/sessions/${s.id}`)
    // sessions.5 gives DELETE no status ("Closes and removes"): any 2xx.
    ctx.check('sessions.5', del.status >= 200 && del.status < 300, `a 2xx for the DELETE of a session ${state}`, `HTTP ${del.status} ${del.text.slice(0, 120)}`)
    ctx.errorStatus('session-status-values.5', await ctx.http('GET', `/sessions/${s.id}`), 404)
    if (!s.executionId) return
    // "Stored park state dropped, so a late result cannot wake it": the execution is gone with its session.
    const late = await ctx.http('POST', `/executions/${s.executionId}/result`, { body: { status: 'ok', output: { type: 'text', value: 'late' } } })
    ctx.check('session-status-values.5', late.status === 404 || (late.status < 300 && late.json?.applied === false), `a late result for a session deleted ${state} applies to nothing (404)`, `HTTP ${late.status} ${late.text.slice(0, 120)}`)
    ctx.errorStatus('session-status-values.5', await ctx.http('GET', `/sessions/${s.id}`), 404)
  },
}

export const RENAME_IN_STATES: Family = {
  name: 'rename', what: 'PATCH /sessions/:id {title}', clauses: ['sessions.4', 'updatesessionrequest.1', 'errors.6', 'session.2'], turn: 'slow',
  async check(ctx, s, _engine, state) {
    const title = `kit title ${state} ${Math.floor(ctx.random() * 1e9)}`
    const res = await ctx.http('PATCH', `/sessions/${s.id}`, { body: { title } })
    if (state === 'parked') {
      ctx.errorStatus('errors.6', res, 409)
      return
    }
    ctx.status('sessions.4', res, 200)
    ctx.equal('updatesessionrequest.1', res.json?.session?.title, title, `title after a rename ${state}`)
    const ws = await s.socket()
    await s.finish()
    if (state !== 'idle') await turnEnds(ctx, 'sessions.4', ws, s.mark, `the turn in progress ends (${state})`)
    // session.2: meta.title is preferred however many turns follow the rename.
    ctx.equal('session.2', (await ctx.http('GET', `/sessions/${s.id}`)).json?.session?.title, title, `title once the turn in progress ended (renamed ${state})`)
  },
}


/**
 * The families tried one after another on one session per cell (cases-in-states.ts): those that
 * leave it open. set_permission_mode last: a mode that approves edits would answer the next
 * family's permission request itself.
 */
export const GROUPED_COMMANDS: Family[] = [USER_MESSAGE_IN_STATES, UNKNOWN_ANSWERS_IN_STATES, INTERRUPT_IN_STATES, SET_MODEL_IN_STATES, CLEAR_CONTEXT_IN_STATES, RENAME_IN_STATES, SET_PERMISSION_MODE_IN_STATES]
