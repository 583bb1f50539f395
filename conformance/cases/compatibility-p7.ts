/**
 * Four more compatibility shapes (docs/compatibility.md): how execution events name the
 * tool call they run, what `execution_failed.error` holds, whether a deny without a message still
 * says why, and protocol 7's opt-in attach views (`truncateResults=1`, `imageRefs=1`) with the
 * result route behind them. The spec leaves every one of these open (events.13-14,
 * websocket-framing.1), so a departure is `non-strict`, never `fail`; only a clause's own words
 * (a protocol_error for an answer, a broken replay) fail. The target's provider profile must offer
 * the bridged tool `client_eval`; its cli_primary profile must play the `permission-write` scenario.
 */
import type { CaseContext } from '../harness/context.ts'
import { openWs, WsRefused, type WsClient } from '../harness/ws-client.ts'
import { NonStrict, type Case } from '../types.ts'

/** The head protocol 7's `truncateResults` keeps of one tool_result block. */
const HEAD_CHARS = 8000

/** Attaches with a raw query (the context's `ws` knows only `afterSeq`); closed at cleanup. */
async function attachWith(ctx: CaseContext, id: string, query: string): Promise<WsClient> {
  const url = `${ctx.url(`/sessions/${encodeURIComponent(id)}/ws`).replace(/^http/, 'ws')}?${query}`
  const ws = await openWs(ctx.log, url, ctx.token('operator'), ctx.deadlineMs, 'operator')
  ctx.onCleanup(() => ws.close())
  return ws
}

/**
 * A provider session whose one `client_eval` call is answered with `answer` (a tool_call_result
 * or tool_call_error body); resolves once the turn has ended.
 */
async function bridgedRequest(ctx: CaseContext, answer: Record<string, unknown>): Promise<{ id: string; ws: WsClient; request: any }> {
  const { session, ws } = await ctx.idleSession({ profile: ctx.profile('provider') })
  ws.send({ type: 'user_message', text: 'scenario:bridge' })
  const request = await ws.waitFor((f) => f.type === 'tool_call_request', ctx.deadlineMs, 'tool_call_request')
  ws.send({ type: 'error' in answer ? 'tool_call_error' : 'tool_call_result', executionId: request.executionId, ...answer })
  const end = await ws.waitFor((f) => f.type === 'protocol_error' || (f.type === 'event' && f.event.type === 'turn_result'), ctx.deadlineMs, 'turn_result')
  ctx.check('commands.8', end.type !== 'protocol_error', 'the answer to tool_call_request accepted', end)
  return { id: session.id, ws, request }
}

/** Ids of the tool_use blocks the session's assistant messages carry. */
function toolUseIds(events: any[]): string[] {
  return events.filter((e) => e.type === 'assistant_message' && Array.isArray(e.message?.content))
    .flatMap((e) => e.message.content.filter((b: any) => b?.type === 'tool_use').map((b: any) => b.id))
}

/** The synthetic user message holding a tool_result block, with that block. */
function toolResultOf(events: any[]): { event: any; block: any } | undefined {
  for (const event of events) {
    if (event.type !== 'user_message' || !Array.isArray(event.message?.content)) continue
    const block = event.message.content.find((b: any) => b?.type === 'tool_result')
    if (block) return { event, block }
  }
  return undefined
}

export const compatibilityP7Cases: Case[] = [
  {
    id: 'compat-execution-id-tool-use-id', title: 'execution events name a bridged call by the id of its tool_use block', section: 'events',
    clauses: ['events.14', 'commands.8'], requires: ['provider', 'bridge'],
    async run(ctx) {
      const { ws, request } = await bridgedRequest(ctx, { output: { type: 'json', value: 42 } })
      const events = ws.events()
      const ids = toolUseIds(events)
      const dispatched = events.find((e) => e.type === 'execution_dispatched')
      const settled = events.find((e) => e.type === 'execution_result' || e.type === 'execution_failed')
      ctx.check('events.14', typeof dispatched?.executionId === 'string' && settled?.executionId === dispatched.executionId, 'execution_dispatched and its result correlated by one executionId', [dispatched, settled])
      ctx.nonStrict(ids.length === 1, `expected one tool_use block for the bridged call, found ${JSON.stringify(ids)}`)
      ctx.nonStrict(dispatched.executionId === ids[0] && request.executionId === ids[0],
        `executionId ${JSON.stringify(dispatched.executionId)} is not the id of the tool_use block it runs (${JSON.stringify(ids[0])}): a client that matches execution_* events to tool calls by that id leaves the call running for ever (events.14 names executionId without tying it to the block)`)
    },
  },
  {
    id: 'compat-execution-failed-bare-error', title: "execution_failed carries the executor's error as given, its reason apart", section: 'events',
    clauses: ['events.14', 'commands.9'], requires: ['provider', 'bridge'],
    async run(ctx) {
      const { ws } = await bridgedRequest(ctx, { reason: 'unsupported', error: 'no sandbox in this client' })
      const failed = ws.events().find((e) => e.type === 'execution_failed')
      ctx.check('events.14', failed !== undefined, 'execution_failed for a tool_call_error', ws.events().map((e) => e.type))
      ctx.nonStrict(failed.reason === 'unsupported', `execution_failed.reason is ${JSON.stringify(failed.reason)}, not the client's reason 'unsupported'`)
      ctx.nonStrict(failed.error === 'no sandbox in this client', `execution_failed.error is ${JSON.stringify(failed.error)}, not the client's error "no sandbox in this client" (a reason prefix makes a client show the reason twice)`)
    },
  },
  {
    id: 'compat-deny-default-message', title: 'a deny without a message still carries a message on permission_resolved', section: 'events',
    clauses: ['events.13', 'other-shapes.2', 'commands.2'], requires: ['cli_primary'],
    async run(ctx) {
      const { ws } = await ctx.idleSession({ profile: ctx.profile('cli_primary'), cwd: ctx.manifest.cwdRoot })
      // A mutating command: a real CLI (manifest realEngines) runs a read-only one such as `echo` without asking.
      ws.send({ type: 'user_message', text: 'scenario:permission-write' })
      const asked = await ws.waitForEvent('permission_requested', ctx.deadlineMs)
      const requestId = asked.request?.id ?? asked.request?.requestId
      ws.send({ type: 'permission_decision', requestId, behavior: 'deny' })
      const resolved = await ws.waitForEvent('permission_resolved', ctx.deadlineMs)
      ctx.check('events.13', resolved.behavior === 'deny' && typeof resolved.resolvedBy === 'string', 'permission_resolved with behavior deny and resolvedBy', resolved)
      ctx.nonStrict(typeof resolved.message === 'string' && resolved.message.length > 0, `permission_resolved of a deny given without a message carries ${JSON.stringify(resolved.message)}: a client has no words to show for the denial`)
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
