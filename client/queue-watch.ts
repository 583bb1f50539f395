/**
 * `WS /queue/ws` (jobs-and-queue): one-way frames, `queue_attached` first, then `job_event` and
 * `queue_stats`. The gateway keeps no replay for it, so there is no resume: a watcher that loses
 * the socket re-lists jobs over REST and watches again.
 */
import { PROTOCOL_VERSION, type QueueServerFrame, type QueueStats } from '../gateway/protocol/index.ts'
import { GatewayError } from './errors.ts'
import type { WebSocketFactory, WebSocketLike } from './transport.ts'

export interface QueueWatchOptions {
  onFrame: (frame: QueueServerFrame) => void
  /** The socket closed (by `close()` or otherwise). */
  onClose?: () => void
  attachTimeoutMs?: number
}

export interface QueueWatch {
  /** The stats of the `queue_attached` frame. */
  stats: QueueStats
  close(): void
}

export function openQueueWatch(url: string, headers: Record<string, string>, factory: WebSocketFactory, options: QueueWatchOptions): Promise<QueueWatch> {
  return new Promise((resolve, reject) => {
    let attached = false
    let ws: WebSocketLike
    const fail = (message: string) => reject(new GatewayError({ status: 0, code: 'connection_failed', message }))
    Promise.resolve(factory(url, headers)).then((socket) => {
      ws = socket
      const timer = setTimeout(() => ws.close(4000, 'no queue_attached frame'), options.attachTimeoutMs ?? 15_000)
      ws.onmessage = (message) => {
        let frame: QueueServerFrame
        try {
          frame = JSON.parse(String(message.data)) as QueueServerFrame
        } catch {
          return
        }
        if (!attached && frame.type === 'queue_attached') {
          attached = true
          clearTimeout(timer)
          if (frame.protocolVersion !== PROTOCOL_VERSION) {
            ws.close(1000, 'protocol mismatch')
            return reject(new GatewayError({ status: 0, code: 'protocol_mismatch', message: `the queue speaks protocol ${frame.protocolVersion}, this client ${PROTOCOL_VERSION}` }))
          }
          resolve({ stats: frame.stats, close: () => ws.close(1000, 'done') })
        }
        options.onFrame(frame)
      }
      ws.onclose = () => {
        clearTimeout(timer)
        if (!attached) fail('the queue WebSocket closed before queue_attached (no queue, or not an operator)')
        else options.onClose?.()
      }
      ws.onerror = () => {}
    }, (err: unknown) => reject(err))
  })
}
