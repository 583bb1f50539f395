/** The cases of § WebSocket framing (session): each case's first clause is `websocket-framing.N`. */
import { WsRefused } from '../../harness/ws-client.ts'
import { NonStrict, type Case } from '../../types.ts'
import { PROTOCOL_VERSION } from '../../../gateway/protocol/index.ts'
import { EVAL_SIX_BY_SEVEN, HEAD_CHARS, attachWith, bridgedRequest, toolResultOf } from '../../harness/case-helpers/index.ts'

export const websocketFramingCases: Case[] = [
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
    id: 'bridge-first-client-only', title: 'a bridged tool goes to the first attached client only; authoritative tools never appear on the channel', section: 'websocket-framing',
    clauses: ['websocket-framing.3', 'errors.12'], requires: ['provider', 'bridge'],
    async run(ctx) {
      const { session, ws: first } = await ctx.idleSession()
      const second = await ctx.ws(session.id)
      first.send({ type: 'user_message', text: EVAL_SIX_BY_SEVEN })
      await first.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('websocket-framing.3', !first.frames.some((f: any) => f.type === 'tool_call_request'), 'no tool_call_request for eval_script (runs server-side)', first.frames.map((f: any) => f.type))
      first.send({ type: 'user_message', text: 'scenario:bridge' })
      const request = await first.waitFor((f) => f.type === 'tool_call_request', ctx.deadlineMs, 'tool_call_request')
      ctx.check('websocket-framing.3', !second.frames.some((f: any) => f.type === 'tool_call_request'), 'the second client is not asked', second.frames.map((f: any) => f.type))
      first.send({ type: 'tool_call_result', executionId: request.executionId })
      await first.waitFor((f) => f.type === 'protocol_error', ctx.deadlineMs, 'protocol_error for a result without `result`')
      first.send({ type: 'tool_call_result', executionId: request.executionId, result: 42 })
      const done = await first.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.numTurns === 2)
      ctx.check('websocket-framing.3', String(done.result).includes('42'), "the client's answer reaches the agent", done.result)
    },
  },
  {
    id: 'compat-truncate-results', title: 'protocol 7: attach with truncateResults=1 cuts an oversized tool_result on replay; GET /sessions/:id/events/:seq/result serves it whole', section: 'websocket-framing',
    clauses: ['websocket-framing.1', 'events.10'], requires: ['provider', 'bridge'],
    async run(ctx) {
      const value = 'x'.repeat(HEAD_CHARS + 1000)
      const { id, ws } = await bridgedRequest(ctx, { output: { type: 'text', value } })
      const live = toolResultOf(ws.events())
      ctx.nonStrict(live !== undefined, 'no user_message carries the tool_result block of the bridged call')
      const whole = live!.block.content
      const length = typeof whole === 'string' ? whole.length : JSON.stringify(whole).length
      ctx.nonStrict(length > HEAD_CHARS, `the tool_result block of a ${value.length}-character answer has only ${length} characters`)

      // websocket-framing.1: the replay is every event after afterSeq, whatever else the query asks.
      const replay = await attachWith(ctx, id, 'afterSeq=0&truncateResults=1&imageRefs=1').catch((err) => {
        if (err instanceof WsRefused) throw new NonStrict(`an attach with protocol 7's truncateResults=1&imageRefs=1 was refused: ${err.message}`)
        throw err
      })
      await replay.waitForEvent('turn_result', ctx.deadlineMs)
      const lastSeq = ws.events().at(-1)?.seq
      ctx.check('websocket-framing.1', replay.events().some((e) => e.seq === live!.event.seq) && replay.events().some((e) => e.seq === lastSeq), 'an attach with extra query parameters replays the events after afterSeq', replay.events().map((e) => e.seq))
      const cut = toolResultOf(replay.events())!.block
      ctx.noteNonStrict(cut.truncated === true && cut.total_chars === length && typeof cut.content === 'string' && cut.content.length === HEAD_CHARS,
        `with truncateResults=1 the replayed tool_result is ${JSON.stringify({ truncated: cut.truncated, total_chars: cut.total_chars, chars: typeof cut.content === 'string' ? cut.content.length : undefined })}; protocol 7 cuts it to ${HEAD_CHARS} characters with truncated: true and total_chars ${length}`)

      const path = `/sessions/${encodeURIComponent(id)}/events/${live!.event.seq}/result`
      const full = await ctx.http('GET', `${path}?toolUseId=${encodeURIComponent(live!.block.tool_use_id)}`)
      ctx.noteNonStrict(full.status === 200 && JSON.stringify(full.json?.content) === JSON.stringify(whole) && full.json?.toolUseId === live!.block.tool_use_id && full.json?.isError === false,
        `GET ${path}?toolUseId= answered ${full.status} ${full.text.slice(0, 120)}; protocol 7 answers 200 {seq, toolUseId, content, isError} with the whole block`)
      const missing = await ctx.http('GET', path)
      ctx.noteNonStrict(missing.status === 400, `GET ${path} without toolUseId answered ${missing.status}; protocol 7 answers 400 (toolUseId is required)`)
    },
  },
]
