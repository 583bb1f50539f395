/** Cases for the session WebSocket: attach, replay, live events, commands and protocol_error. */
import { PROTOCOL_VERSION } from '../../gateway/protocol/index.ts'
import { Unsupported, type Case } from '../types.ts'

export const websocketCases: Case[] = [
  {
    id: 'ws-attached-first', title: 'attached is the first frame, with the protocol version, the session and replayingFrom', section: 'websocket-framing',
    clauses: ['websocket-framing.1', 'versioning.1', 'sessions.14', 'what-the-service-does.1'], requires: ['provider'],
    async run(ctx) {
      const s = await ctx.createSession()
      const ws = await ctx.ws(s.id, { afterSeq: 0 })
      const first = await ws.waitFor(() => true, ctx.deadlineMs, 'the first frame')
      ctx.equal('websocket-framing.1', first.type, 'attached', 'the first frame\'s type')
      ctx.equal('versioning.1', first.protocolVersion, PROTOCOL_VERSION, 'protocolVersion')
      // websocket-framing.1 names the SessionInfo snapshot but not its key (protocol 7: `session`),
      // and `replayingFrom` without its value (protocol 7 echoes afterSeq: a note).
      ctx.check('websocket-framing.1', Object.values(first).some((v: any) => v?.id === s.id), 'attached carrying the SessionInfo snapshot', first)
      ctx.check('websocket-framing.1', 'replayingFrom' in first, 'attached.replayingFrom', Object.keys(first))
      ctx.noteNonStrict(first.replayingFrom === 0, `replayingFrom ${JSON.stringify(first.replayingFrom)} for afterSeq 0 (protocol 7 echoes afterSeq; the value is not stated)`)
    },
  },
  {
    id: 'ws-replay-after-seq', title: 'a re-attach replays exactly the events with seq greater than afterSeq', section: 'websocket-framing',
    clauses: ['websocket-framing.1', 'sessions.14', 'event-and-command-envelope.1'], requires: ['provider'],
    async run(ctx) {
      // The expected events are the ones a client saw live, never an earlier replay, so a replay
      // that drops or compacts events (superseded status changes, deltas) fails here.
      const { session, ws } = await ctx.idleSession()
      const from = ws.events().at(-1)?.seq ?? 0
      ws.send({ type: 'user_message', text: 'scenario:hello' })
      const result = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'idle' && e.seq > result.seq)
      const live = ws.events().filter((e) => e.seq > from)
      const last = live[live.length - 1].seq
      ws.close()
      // The whole turn first (where a compacting replay shows), then from a seeded point inside it.
      for (const afterSeq of [from, from + Math.floor(ctx.random() * Math.max(1, live.length - 2))]) {
        const again = await ctx.ws(session.id, { afterSeq })
        // The replay is sent before any command is answered, so the answer to a bad frame marks its end.
        again.send('not a command')
        await again.waitFor((f) => f.type === 'protocol_error', ctx.deadlineMs, 'a protocol_error after the replay')
        ctx.check('websocket-framing.1', again.frames[0]?.type === 'attached' && 'replayingFrom' in again.frames[0], 'an attached frame with replayingFrom first', again.frames[0])
        ctx.noteNonStrict(again.frames[0]?.replayingFrom === afterSeq, `replayingFrom ${again.frames[0]?.replayingFrom} for afterSeq ${afterSeq} (protocol 7 echoes afterSeq; the value is not stated)`)
        const replayed = again.events().map((e) => `${e.seq} ${e.type}`)
        ctx.equal('websocket-framing.1', replayed, live.filter((e) => e.seq > afterSeq).map((e) => `${e.seq} ${e.type}`), `events replayed after ${afterSeq} (up to ${last}), as a live client saw them`)
        again.close()
      }
    },
  },
  {
    id: 'ws-status-moves', title: 'a turn moves the session running → idle, after starting', section: 'session-status-values',
    clauses: ['session-status-values.1', 'events.3', 'commands.1'], requires: ['provider'],
    async run(ctx) {
      const { session, ws } = await ctx.idleSession()
      ctx.check('session-status-values.1', ['starting', 'idle', 'running'].includes(session.status), 'a created session starting (or already idle)', session.status)
      ws.send({ type: 'user_message', text: 'scenario:slow' })
      const running = await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'running')
      const result = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'idle' && e.seq > result.seq)
      ctx.check('session-status-values.1', running.seq < result.seq, 'running before the turn result', { running: running.seq, result: result.seq })
    },
  },
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
    id: 'ws-turn-result-cumulative', title: 'numTurns and totalCostUsd on turn_result are session-cumulative', section: 'events',
    clauses: ['events.12', 'session.1'], requires: ['provider'],
    async run(ctx) {
      const { session, ws } = await ctx.idleSession()
      ws.send({ type: 'user_message', text: 'one' })
      const first = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      ws.send({ type: 'user_message', text: 'two' })
      const second = await ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.seq > first.seq)
      ctx.equal('events.12', second.numTurns, first.numTurns + 1, 'numTurns after a second turn')
      ctx.check('events.12', second.totalCostUsd >= first.totalCostUsd, 'totalCostUsd never decreasing', [first.totalCostUsd, second.totalCostUsd])
      // session.1 lists numTurns on SessionInfo without requiring it: compared when present.
      const info = (await ctx.http('GET', `/sessions/${session.id}`)).json.session
      if ('numTurns' in info) ctx.equal('session.1', info.numTurns, second.numTurns, 'SessionInfo.numTurns')
    },
  },
  {
    id: 'ws-stream-delta-only-with-partials', title: 'stream_delta arrives only with includePartialMessages', section: 'events',
    clauses: ['events.11'], requires: ['provider'],
    async run(ctx) {
      const plain = await ctx.idleSession()
      plain.ws.send({ type: 'user_message', text: 'scenario:hello' })
      await plain.ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('events.11', !plain.ws.events().some((e) => e.type === 'stream_delta'), 'no stream_delta without includePartialMessages', 'a stream_delta')
      const partial = await ctx.idleSession({ includePartialMessages: true })
      partial.ws.send({ type: 'user_message', text: 'scenario:hello' })
      await partial.ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('events.11', partial.ws.events().some((e) => e.type === 'stream_delta'), 'stream_delta with includePartialMessages', 'none')
    },
  },
  {
    id: 'ws-interrupt', title: 'interrupt ends a running turn', section: 'commands',
    clauses: ['commands.3', 'commands.10'], requires: ['provider'],
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
    id: 'ws-bypass-refused-when-disabled', title: 'set_permission_mode refuses bypassPermissions when disabled', section: 'server-configuration',
    clauses: ['server-configuration.16', 'errors.12'], requires: ['provider', 'bypassDisabled'],
    async run(ctx) {
      const { session, ws } = await ctx.idleSession()
      ws.send({ type: 'set_permission_mode', mode: 'bypassPermissions' })
      await ws.waitFor((f) => f.type === 'protocol_error', ctx.deadlineMs, 'a protocol_error')
      ctx.check('server-configuration.16', (await ctx.http('GET', `/sessions/${session.id}`)).json.session.permissionMode !== 'bypassPermissions', 'the mode unchanged', 'bypassPermissions')
    },
  },
  {
    id: 'ws-clear-context-reset-replay', title: 'clear_context emits conversation_reset; a re-attach skips content below it, state still replays', section: 'events',
    clauses: ['commands.6', 'events.20', 'session-status-values.9'], requires: ['provider'],
    async run(ctx) {
      const { session, ws } = await ctx.idleSession({ prompt: 'before the reset' })
      if (!session.capabilities?.clearContext) throw new Unsupported('the provider engine record does not set clearContext')
      await ws.waitForEvent('turn_result', ctx.deadlineMs)
      ws.send({ type: 'clear_context' })
      const reset = await ws.waitForEvent('conversation_reset', ctx.deadlineMs)
      ws.close()
      const again = await ctx.ws(session.id)
      await again.waitFor((f) => f.type === 'event' && f.event.seq === reset.seq, ctx.deadlineMs, 'the reset in the replay')
      const replayed = again.events()
      const content = replayed.filter((e) => e.seq < reset.seq && ['user_message', 'assistant_message', 'turn_result', 'stream_delta'].includes(e.type))
      ctx.check('events.20', content.length === 0, 'no transcript content below the latest reset', content.map((e) => e.type))
      ctx.check('events.20', replayed.some((e) => e.type === 'status_changed' && e.seq < reset.seq), 'state-bearing events below the reset still replayed', replayed.map((e) => e.type))
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
    id: 'ws-protocol-error-bad-frames', title: 'bad frames get protocol_error and the socket stays usable', section: 'errors',
    clauses: ['errors.12', 'websocket-framing.1', 'websocket-framing.2'], requires: ['provider'],
    async run(ctx) {
      const { ws } = await ctx.idleSession()
      const bad = ['this is not json', '[1,2]', '"str"', '{"type":"no_such_command"}', '{"type":"user_message"}', '{"type":"user_message","text":42}', '{"type":"set_model","model":7}', '{"type":"permission_decision","requestId":"r","behavior":"perhaps"}', '{}']
      for (const frame of bad) ws.send(frame)
      await ws.waitFor(() => ws.frames.filter((f) => f.type === 'protocol_error').length >= bad.length, ctx.deadlineMs, `${bad.length} protocol_error frames`)
      ctx.check('errors.12', ws.frames.filter((f) => f.type === 'protocol_error').every((f) => typeof f.message === 'string'), 'protocol_error frames with a message', ws.frames)
      ws.send({ type: 'user_message', text: 'still usable?' })
      ctx.equal('errors.12', (await ws.waitForEvent('turn_result', ctx.deadlineMs)).isError, false, 'a turn after the bad frames')
    },
  },
  {
    id: 'ws-seq-and-ts', title: 'every event carries seq from 1, increasing by one, and ts in epoch milliseconds', section: 'event-and-command-envelope',
    clauses: ['event-and-command-envelope.1', 'events.1'], requires: ['provider'],
    async run(ctx) {
      const session = await ctx.createSession({ prompt: 'count with me' })
      // Attached from afterSeq 0, so the replay holds the session's first event (websocket-framing.1).
      const ws = await ctx.ws(session.id, { afterSeq: 0 })
      await ws.waitForEvent('turn_result', ctx.deadlineMs)
      const events = ws.events()
      // "starts at 1" is exact: the first event's seq is 1. "increases monotonically" allows gaps,
      // so a gap is never blamed here (a replay that drops events is ws-replay-after-seq's business).
      ctx.check('event-and-command-envelope.1', events[0]?.seq === 1, 'the first event\'s seq = 1', events[0]?.seq)
      events.forEach((e, i) => {
        if (i) ctx.check('event-and-command-envelope.1', Number.isInteger(e.seq) && e.seq > events[i - 1].seq, 'seq increasing monotonically', [events[i - 1].seq, e.seq])
        ctx.check('event-and-command-envelope.1', Number.isInteger(e.ts) && Math.abs(e.ts - Date.now()) < 3_600_000, 'ts in epoch milliseconds', e.ts)
      })
    },
  },
  {
    id: 'ws-activity-count-monotonic', title: 'activityCount grows with transcript rows and never decreases', section: 'session',
    clauses: ['session.4', 'events.22', 'versioning.4'], requires: ['provider'],
    async run(ctx) {
      const { session, ws } = await ctx.idleSession()
      const read = async () => (await ctx.http('GET', `/sessions/${session.id}`)).json.session.activityCount as number
      const counts = [await read()]
      // session.1 lists activityCount without requiring it; session.4 says how it moves when it is there.
      if (typeof counts[0] !== 'number') throw new Unsupported(`SessionInfo carries no activityCount (${JSON.stringify(counts[0])})`)
      for (const text of ['one', 'two']) {
        ws.send({ type: 'user_message', text })
        await ws.waitFor(() => ws.events().filter((e) => e.type === 'turn_result').length === counts.length, ctx.deadlineMs, `turn ${counts.length}'s turn_result`)
        counts.push(await read())
      }
      // A reset is sent only when the session's record offers clear_context (clearContext; absent
      // means false, engine-capability-record.1): the command is not the target's to accept otherwise.
      if (session.capabilities?.clearContext === true) {
        ws.send({ type: 'clear_context' })
        await ws.waitForEvent('conversation_reset', ctx.deadlineMs)
        counts.push(await read())
      }
      ctx.check('session.4', counts.every((c, i) => i === 0 || c >= counts[i - 1]), 'activityCount never decreasing (across a reset too, where the engine offers one)', counts)
      ctx.check('events.22', counts[1] > counts[0] && counts[2] > counts[1], 'activityCount growing with each turn', counts)
    },
  },
  {
    id: 'ws-system-init-and-capabilities', title: 'system_init and capabilities, when a session emits them, carry apiKeySource and a model list', section: 'events',
    clauses: ['events.2', 'events.4', 'versioning.3'], requires: ['provider'],
    async run(ctx) {
      // The Events table lists these events but obliges no engine to emit them: their shape is
      // checked when they come.
      const { ws } = await ctx.idleSession()
      ws.send({ type: 'user_message', text: 'hello' })
      await ws.waitForEvent('turn_result', ctx.deadlineMs)
      const init = ws.events().find((e) => e.type === 'system_init')
      const caps = ws.events().find((e) => e.type === 'capabilities')
      if (init) ctx.check('events.2', typeof init.apiKeySource === 'string', 'system_init.apiKeySource a string', init)
      if (caps) ctx.check('events.4', Array.isArray(caps.models), 'capabilities.models an array', caps)
      // Their absence is no note either: the protocol-7 reference does not say its provider engine
      // emits them, and the spec leaves it open.
    },
  },
]
