/**
 * Every open WebSocket with the upgrade request that opened it, so the gateway can ask again
 * whether its caller may still be there: after the principals file is reloaded, a socket whose
 * token was revoked (or whose principal no longer sees the session) is closed.
 */
import type { IncomingMessage } from 'node:http'
import type { WebSocket } from 'ws'
import type { SendBudget, SocketKind } from './send-budget.ts'

/** Policy violation: the caller is no longer allowed; a client should not reconnect with the same token. */
export const REVOKED_CLOSE_CODE = 1008

/** Per socket kind, for the metrics scrape. */
export type PerKind = Record<SocketKind, number>

export interface WebSocketStats {
  open: PerKind
  /** Bytes queued for sending and not yet taken by the kernel. */
  bufferedBytes: PerKind
  /** Sockets above their send bound now (sent nothing until they drain or are closed). */
  slowReaders: PerKind
}

export class AttachedSockets {
  readonly #sockets = new Map<WebSocket, { req: IncomingMessage; sessionId?: string; budget: SendBudget }>()

  add(budget: SendBudget, req: IncomingMessage, sessionId?: string): void {
    const { ws } = budget
    this.#sockets.set(ws, { req, sessionId, budget })
    ws.once('close', () => this.#sockets.delete(ws))
  }

  /** Read at scrape time: one pass over the open sockets, nothing kept between scrapes. */
  stats(): WebSocketStats {
    const stats: WebSocketStats = { open: { session: 0, queue: 0 }, bufferedBytes: { session: 0, queue: 0 }, slowReaders: { session: 0, queue: 0 } }
    for (const { budget } of this.#sockets.values()) {
      stats.open[budget.kind]++
      stats.bufferedBytes[budget.kind] += budget.buffered
      if (budget.stalled) stats.slowReaders[budget.kind]++
    }
    return stats
  }

  /** Closes each socket `allowed` now refuses; resolves with how many were closed. */
  async recheck(allowed: (req: IncomingMessage, sessionId: string | undefined) => Promise<boolean>): Promise<number> {
    let closed = 0
    for (const [ws, { req, sessionId }] of [...this.#sockets]) {
      if (await allowed(req, sessionId)) continue
      this.#sockets.delete(ws)
      ws.close(REVOKED_CLOSE_CODE, 'unauthorized')
      closed++
    }
    return closed
  }
}
