/**
 * Every open WebSocket with the upgrade request that opened it, so the gateway can ask again
 * whether its caller may still be there: after the principals file is reloaded, a socket whose
 * token was revoked (or whose principal no longer sees the session) is closed.
 */
import type { IncomingMessage } from 'node:http'
import type { WebSocket } from 'ws'

/** Policy violation: the caller is no longer allowed; a client should not reconnect with the same token. */
export const REVOKED_CLOSE_CODE = 1008

export class AttachedSockets {
  readonly #sockets = new Map<WebSocket, { req: IncomingMessage; sessionId?: string }>()

  add(ws: WebSocket, req: IncomingMessage, sessionId?: string): void {
    this.#sockets.set(ws, { req, sessionId })
    ws.once('close', () => this.#sockets.delete(ws))
  }

  /** Open sockets by kind, for the metrics scrape. */
  counts(): { session: number; queue: number } {
    let queue = 0
    for (const { sessionId } of this.#sockets.values()) if (sessionId === undefined) queue++
    return { session: this.#sockets.size - queue, queue }
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
