/**
 * `WS /queue/ws` (jobs-and-queue.6): one-way. `queue_attached` with the protocol version and
 * stats, then every JobEvent as `job_event` (of the whole fleet's jobs, on a shared adapter), and refreshed `queue_stats` after each non-progress
 * event. No replay: clients re-list jobs on connect. Operator only (authentication.4).
 * A socket above its send budget gets no more frames; having missed one, it is closed with 1013
 * as soon as it drains (or as a slow reader at the timeout): its client must re-list anyway.
 */
import { PROTOCOL_VERSION } from '../../protocol/index.ts'
import type { JobQueue } from '../../queue/job-queue.ts'
import type { SendBudget } from './send-budget.ts'

const DROPPED = 'slow reader: job events were dropped; reconnect and re-list jobs'

export async function attachQueueClient(budget: SendBudget, queue: JobQueue): Promise<void> {
  const { ws } = budget
  const send = (value: unknown) => {
    const frame = JSON.stringify(value)
    if (budget.admit(() => budget.closeSlow(DROPPED), frame.length)) ws.send(frame)
  }
  const pending: unknown[] = []
  let ready = false
  // Fleet-wide: every process's events, each job's in order (job-status.2).
  const unsubscribe = queue.subscribeFleet((event) => {
    const frames: unknown[] = [{ type: 'job_event', event }]
    if (!ready) return void pending.push(...frames)
    send(frames[0])
    // A store that cannot answer skips this refresh; the next event sends one.
    if (event.type !== 'job_progress') queue.stats().then((stats) => send({ type: 'queue_stats', stats }), () => undefined)
  })
  ws.on('close', unsubscribe)
  ws.on('error', unsubscribe)
  let stats
  try {
    stats = await queue.stats()
  } catch {
    // The store cannot answer: the socket closes (1011) instead of the process failing.
    unsubscribe()
    return ws.close(1011, 'queue unavailable')
  }
  send({ type: 'queue_attached', protocolVersion: PROTOCOL_VERSION, stats })
  ready = true
  for (const frame of pending) send(frame)
}
