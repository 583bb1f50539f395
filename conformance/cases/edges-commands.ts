/**
 * Edge cases on session commands found by reviewing generated mutation survivors:
 * a command's effect on the engine, not only the event that reports it, and a
 * command sent to a session that has already closed.
 */
import { permissionRequestIdOf } from '../harness/permission-request.ts'
import { Unsupported, type Case } from '../types.ts'
import { openCwdSession } from './cwd-session.ts'

/** session-status-values.1: every status a session may report. */
const STATUSES = ['starting', 'running', 'awaiting_approval', 'idle', 'parked', 'failed', 'closed']

/** A one-step scenario whose text shows the model the engine ran the turn on (`{{model}}`, scenarios/README.md). */
const MODEL_ECHO = `scenario:${JSON.stringify({ name: 'model-echo', steps: [{ type: 'text', text: 'running on model={{model}};' }] })}`

/** Text of the turn: its assistant messages' text blocks and the turn_result's result text. */
function turnText(events: any[], result: any): string {
  const texts = events.filter((e) => e.type === 'assistant_message').flatMap((e) => {
    const content = e.message?.content
    if (typeof content === 'string') return [content]
    return Array.isArray(content) ? content.filter((b: any) => b?.type === 'text').map((b: any) => String(b.text)) : []
  })
  return [...texts, String(result?.result ?? '')].join('\n')
}

export const commandEdgeCases: Case[] = [
  {
    id: 'cli-secondary-set-model-reaches-the-engine', title: 'cli_secondary: after set_model the next turn runs on the chosen model, not only model_changed reports it', section: 'commands',
    clauses: ['commands.5', 'events.5'], requires: ['cli_secondary'],
    async run(ctx) {
      // commands.5: set_model sets the session's model; events.5 reports it. The kit's codex fakes
      // (the app-server and the Responses API a real codex talks to) show the model a turn was run
      // on, so the next turn must show the chosen one: a model_changed with no effect is not a set_model.
      const { ws } = await openCwdSession(ctx, 'cli_secondary')
      // A first turn, so the engine's conversation exists before the choice: the choice must reach
      // a running conversation, not only the start of a new one.
      ws.send({ type: 'user_message', text: 'scenario:hello' })
      const first = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      const chosen = `kit-model-${Math.floor(ctx.random() * 1e6)}`
      ws.send({ type: 'set_model', model: chosen })
      ctx.equal('events.5', (await ws.waitForEvent('model_changed', ctx.deadlineMs)).model, chosen, 'model_changed.model')
      ws.send({ type: 'user_message', text: MODEL_ECHO })
      const result = await ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.seq > first.seq)
      const text = turnText(ws.events().filter((e) => e.seq > first.seq), result)
      if (!text.includes('running on model=')) throw new Unsupported(`the engine did not play the model-echo scenario (no "running on model=" in the turn's text): ${text.slice(0, 200)}`)
      ctx.check('commands.5', text.includes(`running on model=${chosen};`), `the turn after set_model runs on ${chosen}`, text.slice(0, 300))
    },
  },
  {
    id: 'ws-user-message-after-close-runs-nothing', title: 'a user_message sent after the close command runs no turn on the closed session', section: 'commands',
    clauses: ['commands.7', 'events.21', 'errors.12'], requires: ['provider'],
    async run(ctx) {
      // events.21: session_closed is the closure, terminal; so a message sent on the still-open
      // socket afterwards must not start a turn (no user_message, status or turn_result event).
      // An unknown command sent after it is bad input (errors.12): the first protocol_error after
      // the two (the message's own, as protocol 7 answers `session is closed`, or the marker's)
      // comes once the message has been handled. Whether the message gets one is left open.
      const { ws } = await ctx.idleSession()
      ws.send({ type: 'close' })
      const closed = await ws.waitForEvent('session_closed', ctx.deadlineMs)
      if (!ws.open) throw new Unsupported('the target closed the socket with the session, so no command can follow the close')
      const start = ws.frames.length
      ws.send({ type: 'user_message', text: 'scenario:hello' })
      ws.send({ type: 'kit_marker_not_a_command' })
      await ws.waitFor((f) => f.type === 'protocol_error' && ws.frames.indexOf(f) >= start, ctx.deadlineMs, 'a protocol_error for the unknown command sent after the message')
      const after = ws.events().filter((e) => typeof e.seq === 'number' && e.seq > closed.seq)
      ctx.check('events.21', !after.some((e) => e.type === 'user_message' || e.type === 'turn_result' || (e.type === 'status_changed' && e.status === 'running')), 'no turn on a closed session: no user_message, running status or turn_result after session_closed', after.map((e) => e.type))
    },
  },
  {
    id: 'cli-primary-interrupt-while-awaiting-approval', title: 'cli_primary: a turn interrupted while it awaits an approval ends, and every status the session reports on the way is a listed one', section: 'session-status-values',
    clauses: ['session-status-values.1', 'events.3', 'commands.3', 'events.12'], requires: ['cli_primary'],
    async run(ctx) {
      // events.3: status_changed carries a SessionStatus value; session-status-values.1 lists them.
      // An interrupt while the agent waits on an approval ends the turn (commands.3, events.12);
      // the approval may be settled by the interrupt or stay to be answered: answered here if it
      // is still pending. Whatever moves the session then makes, each status must be a listed value.
      const { session, ws } = await openCwdSession(ctx, 'cli_primary')
      ws.send({ type: 'user_message', text: 'scenario:permission-write' })
      const asked = await ws.waitForEvent('permission_requested', ctx.deadlineMs)
      ws.send({ type: 'interrupt' })
      const ended = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('events.12', ended.isError === true, 'turn_result.isError true for the interrupted turn', ended)
      const requestId = permissionRequestIdOf(asked)
      const settled = () => ws.events().some((e) => e.type === 'permission_resolved')
      if (requestId && !settled()) {
        const answer = await ctx.http('POST', `/sessions/${encodeURIComponent(session.id)}/permissions/${encodeURIComponent(requestId)}`, { body: { behavior: 'deny' } })
        // 404 when the interrupt already settled it (permission-request.1: resolved or expired).
        ctx.check('permission-request.1', (answer.status >= 200 && answer.status < 300) || answer.status === 404, 'the still-pending approval answered (2xx) or already settled (404)', `HTTP ${answer.status} ${answer.text.slice(0, 200)}`)
      }
      // The session comes to rest: a fresh message runs a turn to its end.
      ws.send({ type: 'user_message', text: 'scenario:hello' })
      const next = await ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.seq > ended.seq)
      ctx.check('commands.3', next.isError === false, 'the next message after the interrupt runs a successful turn', next)
      const statuses = ws.events().filter((e) => e.type === 'status_changed').map((e) => e.status)
      ctx.check('session-status-values.1', statuses.every((s) => STATUSES.includes(s)), `every status_changed a listed status (${STATUSES.join(', ')})`, statuses)
      const info = (await ctx.http('GET', `/sessions/${encodeURIComponent(session.id)}`)).json?.session
      ctx.check('session-status-values.1', STATUSES.includes(info?.status), 'SessionInfo.status a listed status', info?.status)
    },
  },
  {
    id: 'ws-user-message-text-with-json-punctuation', title: 'a user_message whose text is full of braces, brackets and commas is a message like any other', section: 'commands',
    clauses: ['commands.1', 'errors.12', 'events.10'], requires: ['provider'],
    async run(ctx) {
      // commands.1: user_message carries `text`, any text. Punctuation inside a JSON string is
      // text, not structure: a frame that is valid JSON with a modest text is no bad input
      // (errors.12), so it must be taken, shown as the user_message and answered by a turn.
      const { ws } = await ctx.idleSession()
      const text = `kit punctuation ${'{['.repeat(80)}${','.repeat(40)}${']}'.repeat(80)}`
      const start = ws.frames.length
      ws.send({ type: 'user_message', text })
      const end = await ws.waitFor((f) => ws.frames.indexOf(f) >= start && (f.type === 'protocol_error' || (f.type === 'event' && f.event?.type === 'turn_result')), ctx.deadlineMs, 'turn_result or protocol_error')
      ctx.check('errors.12', end.type !== 'protocol_error', 'the message taken (no protocol_error)', end)
      const shown = ws.events().some((e) => e.type === 'user_message' && JSON.stringify(e.message ?? null).includes(JSON.stringify(text).slice(1, -1)))
      ctx.check('events.10', shown, 'the user_message event carries the text as sent', ws.events().filter((e) => e.type === 'user_message').map((e) => JSON.stringify(e.message).slice(0, 120)))
    },
  },
]
