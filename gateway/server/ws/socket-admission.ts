/**
 * Admits WebSockets under the `webSockets` limits: a slot under the caps before the upgrade
 * (socket-caps.ts), then a send budget for the open socket (send-budget.ts), registered with the
 * open sockets the gateway re-checks and the metrics read.
 */
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type { WebSocket } from 'ws'
import type { GatewayMetrics } from '../metrics.ts'
import type { Principal } from '../principal.ts'
import type { Refusal } from '../refusal.ts'
import type { AttachedSockets } from './attached-sockets.ts'
import { SendBudget, type SocketKind } from './send-budget.ts'
import { SocketCaps, type SocketSlot } from './socket-caps.ts'
import type { WebSocketLimits } from './socket-limits.ts'

export class SocketAdmission {
  readonly #limits: WebSocketLimits
  readonly #attached: AttachedSockets
  readonly #metrics: GatewayMetrics | undefined
  readonly #caps: SocketCaps

  constructor(limits: WebSocketLimits, attached: AttachedSockets, metrics: GatewayMetrics | undefined) {
    this.#limits = limits
    this.#attached = attached
    this.#metrics = metrics
    this.#caps = new SocketCaps(limits, (reason) => metrics?.webSocketRefused(reason))
  }

  /**
   * A slot for an upgrade on `socket`, or the 429 refusal. The slot is given back when the raw
   * socket closes, whether the upgrade completed or failed on the way.
   */
  reserve(socket: Duplex, principal: Principal, operator: boolean, sessionId?: string): SocketSlot | Refusal {
    const slot = this.#caps.reserve(principal, operator, sessionId)
    if ('release' in slot) socket.once('close', () => slot.release())
    return slot
  }

  /** The budget of a socket just upgraded, registered with the open sockets. */
  open(ws: WebSocket, socket: Duplex, req: IncomingMessage, kind: SocketKind, sessionId?: string): SendBudget {
    const budget = new SendBudget(ws, socket, kind, this.#limits, { onSlowClose: () => this.#metrics?.webSocketSlowReaderClosed(kind) })
    this.#attached.add(budget, req, sessionId)
    return budget
  }
}
