/** The cases of § Commands (SessionCommand): each case's first clause is `commands.N`. */
import { NonStrict, Unsupported, type Case } from '../../types.ts'
import { primary, secondary, MODEL_ECHO, turnText, bridgedTurn, openCwdSession, startupCase, casesInStates, groupedCasesInStates, GROUPED_COMMANDS, PERMISSION_DECISION_IN_STATES, CLOSE_IN_STATES, acceptEditsReachesEngineCase } from '../../harness/case-helpers/index.ts'

export const commandsCases: Case[] = [
  {
    id: 'ws-user-message-turn', title: 'user_message runs a turn: user_message, assistant_message, turn_result', section: 'commands',
    clauses: ['commands.1', 'commands.10', 'events.10', 'events.12', 'websocket-framing.2', 'messages-and-attachments.1'], requires: ['provider'],
    async run(ctx) {
      const { ws } = await ctx.idleSession()
      ws.send({ type: 'user_message', text: 'scenario:hello' })
      const user = await ws.waitForEvent('user_message', ctx.deadlineMs)
      const assistant = await ws.waitForEvent('assistant_message', ctx.deadlineMs)
      const result = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('events.10', user.seq < assistant.seq && assistant.seq < result.seq, 'user, assistant, result in order', [user.seq, assistant.seq, result.seq])
      const content = assistant.message?.content
      ctx.check('messages-and-attachments.1', typeof content === 'string' || (Array.isArray(content) && content.every((b: any) => typeof b?.type === 'string')), 'an ApiMessage of typed content blocks', content)
      for (const key of ['subtype', 'isError', 'durationMs', 'numTurns', 'totalCostUsd']) ctx.check('events.12', key in result, `turn_result.${key}`, Object.keys(result))
    },
  },
  {
    id: 'ws-interrupt', title: 'interrupt ends a running turn', section: 'commands',
    clauses: ['commands.3', 'commands.10'], requires: ['provider'],
    cells: { states: ['running'] },
    async run(ctx) {
      const { ws } = await ctx.idleSession()
      ws.send({ type: 'user_message', text: 'scenario:hang' })
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'running')
      ws.send({ type: 'interrupt' })
      // The hanging turn ends only by the interrupt: its turn_result is the observable (the spec
      // does not say how an interrupted turn's turn_result reads, so isError is not compared).
      const result = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('commands.3', typeof result.seq === 'number', 'the interrupted turn ends with a turn_result', result)
    },
  },
  {
    id: 'ws-set-model', title: 'set_model emits model_changed; omitted means the default', section: 'commands',
    clauses: ['commands.5', 'events.5'], requires: ['provider'],
    async run(ctx) {
      const models = ctx.manifest.models?.provider
      if (!models || models.length < 2) throw new Unsupported('the manifest lists fewer than two provider models')
      const { session, ws } = await ctx.idleSession()
      const other = models!.find((m) => m !== session.model) ?? models![1]
      ws.send({ type: 'set_model', model: other })
      ctx.equal('events.5', (await ws.waitForEvent('model_changed', ctx.deadlineMs)).model, other, 'model_changed.model')
      // SessionInfo.model is listed, not required (session.1): compared when present.
      const info = (await ctx.http('GET', `/sessions/${session.id}`)).json.session
      if ('model' in info) ctx.equal('commands.5', info.model, other, 'SessionInfo.model')
      ws.send({ type: 'set_model' })
      const reset = await ws.waitForEvent('model_changed', ctx.deadlineMs, (e) => e.model !== other)
      ctx.check('events.5', reset.model === undefined || models!.includes(reset.model), 'model_changed back to the default', reset)
    },
  },
  {
    id: 'ws-set-permission-mode', title: 'set_permission_mode emits permission_mode_changed; a mode outside the record is refused', section: 'commands',
    clauses: ['commands.4', 'events.6', 'errors.12'], requires: ['provider'],
    async run(ctx) {
      const { ws } = await ctx.idleSession()
      ws.send({ type: 'set_permission_mode', mode: 'dontAsk' })
      // events.6 names no field for the new mode: the event names it somewhere.
      const changed = await ws.waitForEvent('permission_mode_changed', ctx.deadlineMs)
      ctx.check('events.6', JSON.stringify(changed).includes('"dontAsk"'), 'permission_mode_changed naming dontAsk', changed)
      ws.send({ type: 'set_permission_mode', mode: 'acceptEdits' })
      await ws.waitFor((f) => f.type === 'protocol_error', ctx.deadlineMs, 'a protocol_error for a mode outside the record')
    },
  },
  {
    id: 'ws-close-command', title: 'close ends the session with session_closed reason client; the socket stays usable', section: 'commands',
    clauses: ['commands.7', 'commands.10', 'events.21', 'session-status-values.1'], requires: ['provider'],
    async run(ctx) {
      const { session, ws } = await ctx.idleSession()
      ws.send({ type: 'close' })
      ctx.equal('events.21', (await ws.waitForEvent('session_closed', ctx.deadlineMs)).reason, 'client', 'session_closed.reason')
      ctx.equal('session-status-values.1', (await ctx.http('GET', `/sessions/${session.id}`)).json?.session?.status, 'closed', 'status after close')
      ctx.nonStrict(ws.open, 'protocol 7 keeps the socket open after the close command')
    },
  },
  {
    id: 'ws-unknown-executions-and-requests-harmless', title: 'decisions and tool results for unknown ids never break the session', section: 'commands',
    clauses: ['commands.2', 'commands.8', 'commands.9', 'errors.12'], requires: ['provider'],
    async run(ctx) {
      const { ws } = await ctx.idleSession()
      ws.send({ type: 'permission_decision', requestId: 'no-such-request', behavior: 'allow' })
      ws.send({ type: 'permission_decision', requestId: 'no-such-request', behavior: 'deny', message: 'no', interrupt: false })
      ws.send({ type: 'tool_call_result', executionId: 'no-such-execution', result: { type: 'text', value: 'x' } })
      ws.send({ type: 'tool_call_error', executionId: 'no-such-execution', error: 'boom' })
      ws.send({ type: 'user_message', text: 'still fine?' })
      ctx.equal('commands.2', (await ws.waitForEvent('turn_result', ctx.deadlineMs)).isError, false, 'a turn after the unknown ids')
      ctx.check('errors.12', ws.open, 'the socket still open', 'closed')
    },
  },
  {
    id: 'cli-primary-controls', title: 'interrupt, set_model and set_permission_mode reach the CLI and are reported', section: 'commands',
    clauses: ['commands.3', 'events.5', 'events.6', 'events.19'], requires: ['cli_primary'],
    cells: { states: ['running', 'idle'] },
    async run(ctx) {
      const { ws } = await primary(ctx)
      ws.send({ type: 'user_message', text: 'scenario:hang' })
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'running')
      ws.send({ type: 'interrupt' })
      const interrupted = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('commands.3', interrupted.isError === true, 'an interrupted turn_result', interrupted)
      ws.send({ type: 'set_model', model: 'opus' })
      ctx.equal('events.5', (await ws.waitForEvent('model_changed', ctx.deadlineMs)).model, 'opus', 'model_changed')
      ws.send({ type: 'set_permission_mode', mode: 'acceptEdits' })
      ctx.equal('events.6', (await ws.waitForEvent('permission_mode_changed', ctx.deadlineMs)).mode, 'acceptEdits', 'permission_mode_changed')
      ws.send({ type: 'user_message', text: 'again' })
      const init = await ws.waitForEvent('system_init', ctx.deadlineMs, (e) => e.permissionMode === 'acceptEdits')
      ctx.check('events.5', init.model !== undefined, 'the next init runs on the new settings', init)
      ctx.check('events.19', ws.events().some((e) => e.type === 'sdk_event'), 'engine messages without a first-class event pass through as sdk_event', ws.events().map((e) => e.type))
    },
  },
  {
    id: 'cli-secondary-controls', title: 'cli_secondary: interrupt ends a running turn; set_model and set_permission_mode are reported; a mode outside the record is refused', section: 'commands',
    clauses: ['commands.3', 'events.5', 'events.6', 'errors.12'], requires: ['cli_secondary'],
    cells: { states: ['running', 'idle'] },
    async run(ctx) {
      const { ws } = await secondary(ctx)
      ws.send({ type: 'user_message', text: 'scenario:hang' })
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'running')
      ws.send({ type: 'interrupt' })
      ctx.equal('commands.3', (await ws.waitForEvent('turn_result', ctx.deadlineMs)).isError, true, 'turn_result.isError of an interrupted turn')
      ws.send({ type: 'set_model', model: 'another-model' })
      ctx.equal('events.5', (await ws.waitForEvent('model_changed', ctx.deadlineMs)).model, 'another-model', 'model_changed')
      ws.send({ type: 'set_permission_mode', mode: 'acceptEdits' })
      ctx.equal('events.6', (await ws.waitForEvent('permission_mode_changed', ctx.deadlineMs)).mode, 'acceptEdits', 'permission_mode_changed')
      ws.send({ type: 'set_permission_mode', mode: 'dontAsk' })
      await ws.waitFor((f) => f.type === 'protocol_error', ctx.deadlineMs, 'a protocol_error for a mode outside the record')
      ws.send({ type: 'user_message', text: 'after' })
      const result = await ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.isError === false)
      ctx.check('commands.3', result.numTurns === 2, 'the session runs the next turn after the interrupt', result)
    },
  },
  {
    id: 'compat-tool-call-result-output', title: 'protocol-7 client: tool_call_result carries `output: {type, value}` and the model receives the value', section: 'commands',
    clauses: ['commands.8', 'websocket-framing.3'], requires: ['provider', 'bridge'],
    cells: { states: ['awaiting_tool'] },
    async run(ctx) {
      const { result } = await bridgedTurn(ctx, () => ({ output: { type: 'json', value: 42 } }))
      const text = String(result.result)
      // Protocol 7 hands the agent loop `output.value` for a result delivered over REST (reference §1.4);
      // the spec leaves the bridged result's handling open.
      if (text.includes('"type"')) throw new NonStrict(`the model received the whole {type, value} object, not its value (as protocol 7 does for a REST-delivered result; the spec leaves it open): ${text}`)
      ctx.nonStrict(text.includes('42'), `the model did not receive the value 42: ${text}`)
    },
  },
  {
    id: 'compat-tool-call-error', title: 'protocol-7 client: tool_call_error carries `reason` and `error`, fed back as tool output and named on execution_failed', section: 'commands',
    clauses: ['commands.9', 'events.14'], requires: ['provider', 'bridge'],
    cells: { states: ['awaiting_tool'] },
    async run(ctx) {
      const { conn, result } = await bridgedTurn(ctx, () => ({ reason: 'unsupported', error: 'no sandbox in this client' }))
      ctx.nonStrict(String(result.result).includes('no sandbox in this client'), `the client's error did not reach the model as tool output: ${result.result}`)
      const failed: any = conn.events.find((e) => e.type === 'execution_failed')
      ctx.nonStrict(failed?.reason === 'unsupported', `execution_failed.reason is ${JSON.stringify(failed?.reason)}, not the client's reason 'unsupported' (the spec does not show execution_failed's fields)`)
    },
  },
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
    id: 'ws-user-message-text-with-json-punctuation', title: 'a user_message whose text is full of braces, brackets and commas is a message like any other', section: 'commands',
    clauses: ['commands.1', 'errors.12', 'events.10'], requires: ['provider'],
    async run(ctx) {
      // commands.1: user_message carries `text`, any text. Punctuation inside a JSON string is
      // text, not structure: a frame that is valid JSON with a modest text is no bad input
      // (errors.12), so it must be taken, shown as the user_message and answered by a turn. A quote
      // and a backslash come first: escaped in the frame, they end no string.
      const { ws } = await ctx.idleSession()
      const text = `kit punctuation after a "quote and a \\ backslash ${'{['.repeat(80)}${','.repeat(40)}${']}'.repeat(80)}`
      const start = ws.frames.length
      ws.send({ type: 'user_message', text })
      const end = await ws.waitFor((f) => ws.frames.indexOf(f) >= start && (f.type === 'protocol_error' || (f.type === 'event' && f.event?.type === 'turn_result')), ctx.deadlineMs, 'turn_result or protocol_error')
      ctx.check('errors.12', end.type !== 'protocol_error', 'the message taken (no protocol_error)', end)
      const shown = ws.events().some((e) => e.type === 'user_message' && JSON.stringify(e.message ?? null).includes(JSON.stringify(text).slice(1, -1)))
      ctx.check('events.10', shown, 'the user_message event carries the text as sent', ws.events().filter((e) => e.type === 'user_message').map((e) => JSON.stringify(e.message).slice(0, 120)))
    },
  },
startupCase('provider'),
 startupCase('cli_primary'),
 startupCase('cli_secondary'),
  // A mode set on a running conversation is the mode its next turn runs in, on each engine that asks.
  acceptEditsReachesEngineCase('cli_primary'),
  acceptEditsReachesEngineCase('cli_secondary'),
  // Each command on every engine and in every state it can be sent in (conformance/matrix): the
  // commands that leave the session open one after another on one session per cell; on a parked
  // session, and close, one case each.
  ...groupedCasesInStates('commands-in-state', 'user_message, answers for unknown ids, interrupt, set_model, clear_context, a rename and set_permission_mode', GROUPED_COMMANDS),
  ...GROUPED_COMMANDS.filter((family) => family.clauses[0].startsWith('commands.')).flatMap((family) => casesInStates(family, (state) => state === 'parked')),
  ...casesInStates(PERMISSION_DECISION_IN_STATES),
  ...casesInStates(CLOSE_IN_STATES),
]
