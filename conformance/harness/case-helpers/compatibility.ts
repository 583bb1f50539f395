/** Case helpers: compatibility. Shared by the cases of every section through case-helpers/index.ts. */
import { streamedText, type EventOf, type GatewayClient, type SessionEvent, type SessionEventType, type SessionHandle, type ToolCallHandler } from '../../../client/index.ts'
import type { CaseContext } from '../context.ts'
import { loggedClient } from '../logged-client.ts'
import { NonStrict } from '../../types.ts'

/** Raw stream event types of the Anthropic Messages stream, the shape the protocol-7 client's live text reads. */
export const RAW_STREAM_TYPES = new Set(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop'])

export const BACKENDS = new Set(['server', 'browser', 'managed', 'remote'])

export function clientOf(ctx: CaseContext): GatewayClient {
  return loggedClient(ctx.log, ctx.manifest.baseUrl, ctx.token('operator'), 'operator')
}

/** A fresh session (cleaned up by the context) with the client attached, once idle. No re-attach: a drop is the target's to answer for. */
export async function attached(ctx: CaseContext, body: Record<string, unknown>): Promise<{ id: string; conn: SessionHandle; client: GatewayClient }> {
  const client = clientOf(ctx)
  const session = await ctx.createSession(body)
  const conn = await client.attach(session.id, { reconnect: false, attachTimeoutMs: ctx.deadlineMs })
  ctx.onCleanup(() => conn.detach())
  await conn.waitForEvent('status_changed', { afterSeq: 0, where: (e) => e.status === 'idle', timeoutMs: ctx.deadlineMs })
  return { id: session.id, conn, client }
}

export const primaryBody = (ctx: CaseContext, extra: Record<string, unknown> = {}) => ({ profile: ctx.profile('cli_primary'), cwd: ctx.manifest.cwdRoot, ...extra })

/**
 * The first `type` event `where` accepts (any seq), or the protocol_error a target answers a
 * protocol-7 command with instead (the wait would otherwise hang until the deadline).
 */
export async function eventOrRefusal<K extends SessionEventType>(ctx: CaseContext, conn: SessionHandle, type: K, where: (e: EventOf<K>) => boolean = () => true): Promise<EventOf<K> | { refused: string }> {
  const earlier = conn.frames.find((f) => f.type === 'protocol_error')
  if (earlier?.type === 'protocol_error') return { refused: earlier.message }
  const stop = new AbortController()
  const event = conn.waitForEvent(type, { afterSeq: 0, where, timeoutMs: ctx.deadlineMs, signal: stop.signal })
  const refusal = conn.waitForFrame((f) => f.type === 'protocol_error', { signal: stop.signal }).then((f) => ({ refused: f.type === 'protocol_error' ? f.message : '' }))
  event.catch(() => {})
  refusal.catch(() => {})
  try {
    return await Promise.race([event, refusal])
  } finally {
    stop.abort()
  }
}

/** The turn's end, or the protocol_error a target answers a protocol-7 command with. */
/** The turn_result of the turn numbered `numTurns`, or (undefined) the next one whatever the engine counts. */
export async function turnOrRefusal(ctx: CaseContext, conn: SessionHandle, numTurns: number | undefined, what: string): Promise<EventOf<'turn_result'>> {
  const outcome = await eventOrRefusal(ctx, conn, 'turn_result', (e) => numTurns === undefined || e.numTurns === numTurns)
  if ('refused' in outcome) throw new NonStrict(`the target refused the protocol-7 client's ${what}: protocol_error "${outcome.refused}" (the spec leaves the command's payload shape open)`)
  return outcome
}

/** A bridged `client_eval` call answered by `answer`; resolves with the turn result. */
export async function bridgedTurn(ctx: CaseContext, answer: ToolCallHandler): Promise<{ conn: SessionHandle; result: EventOf<'turn_result'> }> {
  const { conn } = await attached(ctx, { profile: ctx.profile('provider') })
  conn.onToolCall(answer)
  conn.sendMessage('scenario:bridge')
  return { conn, result: await turnOrRefusal(ctx, conn, 1, 'tool answer') }
}

/** The first permission request of a cli_primary session running a mutating command (a real CLI runs `echo` unasked). */
export async function asked(ctx: CaseContext) {
  const { id, conn, client } = await attached(ctx, primaryBody(ctx))
  conn.sendMessage('scenario:permission-write')
  const event = await conn.waitForEvent('permission_requested', { timeoutMs: ctx.deadlineMs })
  const request = event.request
  if (typeof request?.id !== 'string') throw new NonStrict(`PermissionRequest has no string \`id\`, which the protocol-7 client answers with (the spec does not show PermissionRequest's shape): ${JSON.stringify(request)}`)
  return { id, conn, client, request }
}

export async function resolvedAfter(ctx: CaseContext, conn: SessionHandle, requestId: string, via: string): Promise<EventOf<'permission_resolved'>> {
  const outcome = await eventOrRefusal(ctx, conn, 'permission_resolved')
  if ('refused' in outcome) throw new NonStrict(`an answer by the request's \`id\` over ${via} was refused: "${outcome.refused}"`)
  if (outcome.requestId !== requestId) throw new NonStrict(`permission_resolved names ${JSON.stringify(outcome.requestId)}, not the request's id ${requestId}`)
  return outcome
}

/** The main conversation's text of a turn: rebuilt from raw stream deltas, and as its assistant messages carry it. */
export function liveAndFinalText(events: SessionEvent[]): { live: string; final: string } {
  let live = ''
  let final = ''
  for (const e of events) {
    if (e.type === 'stream_delta' && e.parentToolUseId == null) live += streamedText(e.event) ?? ''
    if (e.type === 'assistant_message' && e.parentToolUseId == null) {
      const { content } = e.message
      final += typeof content === 'string' ? content : content.map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('')
    }
  }
  return { live, final }
}

/** Rebuilds the turn's live text from raw stream deltas and compares it with the final text. */
export async function liveTextMatches(ctx: CaseContext, body: Record<string, unknown>, prompt: string): Promise<void> {
  const { conn } = await attached(ctx, { ...body, includePartialMessages: true })
  conn.sendMessage(prompt)
  await conn.waitForTurn({ timeoutMs: ctx.deadlineMs })
  const deltas: any[] = conn.events.filter((e) => e.type === 'stream_delta')
  ctx.check('events.11', deltas.length > 0, 'stream_delta events with includePartialMessages', conn.events.map((e) => e.type))
  const odd = deltas.find((d) => !RAW_STREAM_TYPES.has(d.event?.type))
  if (odd) throw new NonStrict(`stream_delta.event is not a raw Messages-API stream event, which the protocol-7 client's live text reads (the spec says only "raw streaming event"): ${JSON.stringify(odd.event)}`)
  const unparented = deltas.find((d) => !('parentToolUseId' in d))
  if (unparented) throw new NonStrict(`stream_delta without parentToolUseId: ${JSON.stringify(unparented)}`)
  const turn = liveAndFinalText(conn.events)
  if (turn.live !== turn.final || !turn.final) {
    throw new NonStrict(`live text rebuilt from content_block_delta/text_delta frames (${JSON.stringify(turn.live)}) is not the turn's text (${JSON.stringify(turn.final)})`)
  }
}
