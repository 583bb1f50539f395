/**
 * `WS /queue/ws` (jobs-and-queue.6): one-way. `queue_attached` with the protocol version and
 * stats, then every JobEvent as `job_event`, and refreshed `queue_stats` after each non-progress
 * event. No replay: clients re-list jobs on connect. Operator only (authentication.4).
 */
import type { WebSocket } from 'ws'
import { PROTOCOL_VERSION } from '../../protocol/index.ts'
import type { JobQueue } from '../../queue/job-queue.ts'

export async function attachQueueClient(ws: WebSocket, queue: JobQueue): Promise<void> {
  const send = (frame: unknown) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame))
  }
  const pending: unknown[] = []
  let ready = false
  const unsubscribe = queue.subscribe((event) => {
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
