/** Case helpers: long turns. Shared by the cases of every section through case-helpers/index.ts. */
import type { CaseContext } from '../context.ts'
import { missingFromReplay } from './replay-check.ts'

/**
 * Nestings from merely deep to deep enough to overflow a recursive consumer (serialiser, validator,
 * clone) of the stored value: where a gateway overflows depends on its stack and on which consumer
 * runs first, so a sweep meets the depth that gets past the submission and breaks what reads it.
 */
export const NESTING_DEPTHS = [1000, 2000, 3000, 4000, 6000, 8000, 10_000]

/** `[[[…]]]` nested `depth` levels, with a string member before it in the same object. */
export function deeplyNestedMeta(depth: number): string {
  return `{"note":"kit deep meta","nested":${'['.repeat(depth)}${']'.repeat(depth)}}`
}

/**
 * A turn that streams more events than a gateway is likely to number ahead in one durable write
 * (one event per character with includePartialMessages), ends its first model leg with a call to
 * a tool no target has, and hangs in its second leg, so it is still running at the restart.
 */
export const STREAMED_CHARS = 1200

export const LONG_THEN_HANG = `scenario:${JSON.stringify({
  name: 'kit-long-stream-then-hang',
  steps: [
    { type: 'text', text: `kit long stream ${'z'.repeat(STREAMED_CHARS)}`, chunkSize: 1 },
    { type: 'tool', name: 'kit_no_such_tool', input: {} },
    { type: 'hang' },
  ],
})}`

export const maxSeq = (events: any[]) => events.reduce((max, e) => (typeof e?.seq === 'number' && e.seq > max ? e.seq : max), 0)

/**
 * Part of one restart case (parking-survives-restart, which owns the slow restart): before the
 * restart, a persisted live session is left in the middle of a turn that streamed well over a
 * thousand events since its last snapshot; the returned check runs after the restart.
 *
 * event-and-command-envelope.1: seq increases monotonically per session. A session rebuilt after
 * a restart (embedding-rules.14, session-status-values.8) is the same session, so an event it
 * emits later never carries a seq a client was already shown, however much of the interrupted turn
 * the snapshot lost.
 */
export async function longTurnAcrossRestart(ctx: CaseContext): Promise<() => Promise<void>> {
  const { session, ws } = await ctx.idleSession({ prompt: 'before the restart', includePartialMessages: true })
  await ws.waitForEvent('turn_result', ctx.deadlineMs)
  ws.send({ type: 'user_message', text: LONG_THEN_HANG })
  // The first leg ends with the tool call: its assistant message comes after every streamed event.
  await ws.waitForEvent('assistant_message', ctx.deadlineMs, (e) => JSON.stringify(e.message ?? null).includes('kit_no_such_tool'))
  const shown = maxSeq(ws.events())
  ws.close()
  return async () => {
    const again = await ctx.ws(session.id, { afterSeq: 0 })
    again.send({ type: 'user_message', text: 'after the restart' })
    const next = await again.waitForEvent('turn_result', ctx.deadlineMs, (e) => String(e.result ?? '').includes('after the restart'))
    const after = again.events().filter((e) => e.type === 'user_message' && JSON.stringify(e.message ?? null).includes('after the restart'))
    ctx.check('event-and-command-envelope.1', next.seq > shown && after.every((e) => e.seq > shown), `a persisted session restarted in the middle of a long streamed turn numbers the turn after the restart after seq ${shown}, the last one shown before it`, { userMessage: after.map((e) => e.seq), turnResult: next.seq })
    // websocket-framing.1 for an afterSeq past the numbering the restart may have skipped: the replay
    // starts right after it (nothing at or below it, every later event), wherever the gap lies.
    const from = after.length ? after[0].seq : next.seq - 1
    const seen = again.events()
    again.close()
    const replay = await ctx.ws(session.id, { afterSeq: from })
    // The replay is sent before any command is answered, so the answer to a bad frame marks its end.
    replay.send('not a command')
    await replay.waitFor((f) => f.type === 'protocol_error', ctx.deadlineMs, 'a protocol_error after the replay')
    const early = replay.events().filter((e) => e.seq <= from)
    const missing = missingFromReplay(seen.filter((e) => e.seq <= next.seq), replay.events(), from)
    replay.close()
    ctx.check('websocket-framing.1', early.length === 0 && missing.length === 0, `an attach after seq ${from} (past the restart) replays exactly the events after it`,
      { early: early.map((e) => `${e.seq} ${e.type}`), missing: missing.map((e) => `${e.seq} ${e.type}`) })
  }
}
