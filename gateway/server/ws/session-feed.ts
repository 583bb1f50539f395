/**
 * Feeds one session socket its events (websocket-framing.1): the replay after `afterSeq`, then
 * live events, in seq order, never past the socket's send budget. Above the bound the feed stops
 * and leaves the events in the session's log; when the socket has drained it catches up from the
 * last seq it sent, so a slow reader that recovers sees contiguous seqs, and one closed as a slow
 * reader can re-attach with `afterSeq` and lose nothing.
 */
import type { Duplex } from 'node:stream'
import type { Runner } from '../../sessions/runner.ts'
import { eventFrame, type FramedEvent } from '../../sessions/event-log.ts'
import { viewOf, type ToolResultViews } from '../../sessions/tool-result-views.ts'
import type { GatewayContext } from '../context.ts'
import type { SendBudget } from './send-budget.ts'

export const NO_VIEWS: ToolResultViews = { truncateResults: false, imageRefs: false }

/** Starts the feed, which ends when the socket closes; `batch` corks the socket for this tick's frames. */
export function feedSession(ctx: GatewayContext, budget: SendBudget, batch: () => void, runner: Runner, afterSeq: number, views: ToolResultViews): void {
  const { ws } = budget
  let lastSent = afterSeq
  // Bumped at each stall: a write-ahead flush still waiting belongs to the feed before it.
  let generation = 0
  let stopped = false
  let replaying = false
  let unsubscribe: (() => void) | undefined
  // Frames waiting behind a write-ahead hold (a durable write not yet confirmed), in order; undefined on the fast path.
  let held: FramedEvent[] | undefined

  const follow = () => {
    stopped = false
    replaying = true
    // The replay is delivered synchronously inside subscribe(); everything after it is live.
    const off = runner.subscribe(listener, lastSent)
    replaying = false
    if (stopped) off()
    else unsubscribe = off
  }
  const stall = () => {
    stopped = true
    generation++
    held = undefined
    unsubscribe?.()
    unsubscribe = undefined
  }
  /** Sends one frame, or stalls the feed when the socket is above its bound. */
  const deliver = (entry: FramedEvent): boolean => {
    const frame = entry.frame()
    if (!budget.admit(follow, frame.length)) {
      stall()
      return false
    }
    batch()
    ws.send(frame)
    lastSent = entry.event.seq
    return true
  }
  // A released hold lets its frame through even if nothing became durable (the write failed and was
  // reported): a client held forever is worse. Each later frame is checked again in turn.
  const flush = async (wait: Promise<void>, feed: number) => {
    await wait
    while (feed === generation && held?.length && ws.readyState === ws.OPEN) {
      if (!deliver(held[0])) return
      held.shift()
      const next = held[0]
      if (!next) break
      const again = ctx.parking.hold(runner, next.event)
      if (again) await again
    }
    if (feed === generation) held = undefined
  }
  function listener(event: FramedEvent['event'], stored: FramedEvent): void {
    if (stopped || ws.readyState !== ws.OPEN) return
    const entry = viewed(stored, views, replaying)
    if (held) return void held.push(entry)
    const wait = ctx.parking.hold(runner, event)
    if (wait) {
      held = [entry]
      void flush(wait, generation)
      return
    }
    deliver(entry)
  }

  follow()
  ws.on('close', stall)
  ws.on('error', stall)
}

/** The entry itself unless the client's views change the event (the shared frame stays untouched). */
function viewed(entry: FramedEvent, views: ToolResultViews, replay: boolean): FramedEvent {
  if (views === NO_VIEWS) return entry
  const event = viewOf(entry.event, views, replay)
  return event === entry.event ? entry : { event, frame: () => eventFrame(event) }
}

/**
 * Frames sent in one tick (a replay, a burst of deltas) leave in one write instead of one
 * syscall each: the socket is corked on the first send of a tick and uncorked on the next.
 */
export function corkedBatch(socket: Duplex): () => void {
  let corked = false
  const flush = () => {
    corked = false
    socket.uncork()
  }
  return () => {
    if (corked) return
    corked = true
    socket.cork()
    process.nextTick(flush)
  }
}
