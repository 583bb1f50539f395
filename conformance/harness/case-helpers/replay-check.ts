/** Case helpers: replay check. Shared by the cases of every section through case-helpers/index.ts. */
import type { CaseContext } from '../context.ts'
import type { Principal } from '../../types.ts'

/** Events a replay must hold and does not: those of `live` with seq above `afterSeq` missing from `replayed`. */
export function missingFromReplay(live: any[], replayed: any[], afterSeq: number): any[] {
  const seen = new Set(replayed.map((e) => `${e.seq}:${e.type}`))
  return live.filter((e) => e.seq > afterSeq && !seen.has(`${e.seq}:${e.type}`))
}

/**
 * Runs one short turn on an idle session with a client attached live, then re-attaches after the
 * seq the turn started from and requires every event the live client saw. The session must be
 * able to take a turn (idle, not parked); the turn adds to its transcript. Neither attach may send
 * an event at or below that seq.
 */
export async function checkReplayComplete(ctx: CaseContext, sessionId: string, as: Principal = 'operator'): Promise<void> {
  const before = (await ctx.http('GET', `/sessions/${encodeURIComponent(sessionId)}`, { as })).json?.session?.lastSeq
  if (!Number.isInteger(before)) return // no lastSeq to start from: the caller's own checks decide
  const live = await ctx.ws(sessionId, { as, afterSeq: before })
  live.send({ type: 'user_message', text: 'scenario:hello' })
  const result = await live.waitForEvent('turn_result', ctx.deadlineMs)
  await live.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'idle' && e.seq > result.seq)
  const seen = live.events()
  live.close()
  const again = await ctx.ws(sessionId, { as, afterSeq: before })
  // The replay is sent before any command is answered, so the answer to a bad frame marks its end.
  again.send('not a command')
  await again.waitFor((f) => f.type === 'protocol_error', ctx.deadlineMs, 'a protocol_error after the replay')
  const missing = missingFromReplay(seen, again.events(), before)
  // websocket-framing.1 is exact both ways: seq *greater than* afterSeq, so afterSeq itself is not replayed.
  const early = [...seen, ...again.events()].filter((e) => typeof e.seq === 'number' && e.seq <= before)
  again.close()
  ctx.check('websocket-framing.1', early.length === 0, `an attach after seq ${before} sends no event with seq ${before} or below`,
    `sent ${early.map((e) => `${e.seq} ${e.type}`).join(', ')}`)
  ctx.check('websocket-framing.1', missing.length === 0, `a re-attach after seq ${before} replays every event a live client saw`,
    `missing ${missing.map((e) => `${e.seq} ${e.type}`).join(', ')}`)
}
