/**
 * The checks an explore run makes after every step, on every live stream, and the replay
 * comparison a re-attach makes: only what the spec states (event-and-command-envelope.1,
 * session-status-values.1, websocket-framing.1, events.20).
 */
import { STATUSES } from '../harness/case-helpers/index.ts'
import type { CaseContext } from '../harness/context.ts'
import { liveEvents, type World } from './world.ts'

/** seq from 1, strictly increasing, statuses in the spec's set: on one stream of events. */
export function checkStream(ctx: CaseContext, events: any[], firstSeq: number | undefined, what: string): void {
  let last = 0
  for (const [i, e] of events.entries()) {
    ctx.check('event-and-command-envelope.1', Number.isInteger(e?.seq), `every event of ${what} carries an integer seq`, e)
    if (i === 0 && firstSeq !== undefined) ctx.check('event-and-command-envelope.1', e.seq === firstSeq, `the first event of ${what} has seq ${firstSeq}`, `${e.seq} ${e.type}`)
    ctx.check('event-and-command-envelope.1', e.seq > last, `seq strictly increasing on ${what}`, `${e.seq} ${e.type} after ${last}`)
    last = e.seq
    if (e.type === 'status_changed') ctx.check('session-status-values.1', STATUSES.includes(e.status), `a status in ${STATUSES.join(', ')}`, e.status)
  }
  // events.14: on a whole stream (from seq 1) each result or failure follows its own dispatch.
  if (firstSeq !== 1) return
  const dispatched = new Set<unknown>()
  for (const e of events) {
    if (e.type === 'execution_dispatched') dispatched.add(e.executionId)
    if (e.type === 'execution_result' || e.type === 'execution_failed') {
      ctx.check('events.14', dispatched.has(e.executionId), `${e.type} correlated by the executionId of an execution_dispatched before it on ${what}`, `${e.seq} ${e.type} ${JSON.stringify(e.executionId)}`)
    }
  }
}

/** After every step: each recorder (attached at seq 0 from creation) is a valid stream starting at seq 1. */
export function checkAllStreams(world: World): void {
  for (const [i, h] of world.sessions.entries()) {
    if (h) checkStream(world.ctx, liveEvents(h), 1, `s${i}'s live stream`)
  }
}

/** Transcript content (events.20): skipped below the latest reset on re-attach. */
const TRANSCRIPT = new Set(['user_message', 'assistant_message'])
/**
 * Events that are state, not transcript, beyond doubt, which replay whatever the reset (events.20
 * "state-bearing events still replay"). An earlier conversation_reset may count as either.
 */
const STATE_BEARING = new Set(['status_changed', 'model_changed', 'permission_mode_changed'])

/**
 * websocket-framing.1 and events.20: a re-attach after `afterSeq` replays the live stream's events
 * with seq > afterSeq, each equal to the live one; below the latest conversation_reset transcript
 * content is skipped and state-bearing events still come. `live` holds every event the recorder
 * had when the re-attach was made; `upTo` is the last seq that must be in the replay.
 */
export function checkReplay(ctx: CaseContext, live: any[], replayed: any[], afterSeq: number, upTo: number): void {
  checkStream(ctx, replayed, undefined, `the replay after seq ${afterSeq}`)
  const early = replayed.filter((e) => e.seq <= afterSeq)
  ctx.check('websocket-framing.1', early.length === 0, `a replay after seq ${afterSeq} holds no event at or below it`, early.map((e) => `${e.seq} ${e.type}`).join(', '))
  const bySeq = new Map(live.map((e) => [e.seq, e]))
  for (const e of replayed) {
    const twin = bySeq.get(e.seq)
    if (e.seq > upTo && twin === undefined) continue // newer than the live snapshot: nothing to compare yet
    ctx.check('websocket-framing.1', twin !== undefined && JSON.stringify(twin) === JSON.stringify(e), `replayed event ${e.seq} equal to the live stream's`, `${JSON.stringify(e).slice(0, 200)} vs live ${JSON.stringify(twin)?.slice(0, 200)}`)
  }
  const resetSeq = Math.max(0, ...live.filter((e) => e.type === 'conversation_reset').map((e) => e.seq))
  const got = new Set(replayed.map((e) => e.seq))
  for (const e of live) {
    if (e.seq <= afterSeq || e.seq > upTo) continue
    if (e.seq < resetSeq && TRANSCRIPT.has(e.type)) {
      ctx.check('events.20', !got.has(e.seq), `transcript content below the latest reset (seq ${resetSeq}) skipped on re-attach`, `${e.seq} ${e.type} replayed`)
    } else if (e.seq >= resetSeq || STATE_BEARING.has(e.type)) {
      ctx.check('websocket-framing.1', got.has(e.seq), `the replay after seq ${afterSeq} holds live event ${e.seq} ${e.type}`, `replayed ${replayed.map((r) => r.seq).join(',') || 'nothing'}`)
    }
  }
}
