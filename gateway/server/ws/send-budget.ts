/**
 * One socket's send budget. `ws` never refuses a frame: what the peer does not read waits in the
 * Node socket's write buffer (user space, counted by ws `bufferedAmount`), so a client that stops
 * reading would hold the whole stream it missed. Above `maxBufferedBytes` the gateway stops
 * queuing frames for the socket; once the buffer has emptied (`drain`) the sender catches up (a
 * session socket replays from the event log), and a socket still above the bound after
 * `slowReaderTimeoutMs` is closed with 1013 (try again later: re-attach with `afterSeq`).
 */
import type { Duplex } from 'node:stream'
import type { WebSocket } from 'ws'
import type { WebSocketLimits } from './socket-limits.ts'

/** 1013 "try again later": the reader was too slow; nothing is wrong with its credentials or frames. */
export const SLOW_READER_CLOSE_CODE = 1013

export type SocketKind = 'session' | 'queue'

export interface BudgetHooks {
  /** The socket was closed as a slow reader. */
  onSlowClose?: () => void
}

export class SendBudget {
  readonly ws: WebSocket
  readonly kind: SocketKind
  readonly #socket: Duplex
  readonly #limits: WebSocketLimits
  readonly #hooks: BudgetHooks
  #timer: ReturnType<typeof setTimeout> | undefined
  #onDrained: (() => void) | undefined
  readonly #drained = () => this.#endStall(true)

  constructor(ws: WebSocket, socket: Duplex, kind: SocketKind, limits: WebSocketLimits, hooks: BudgetHooks = {}) {
    this.ws = ws
    this.kind = kind
    this.#socket = socket
    this.#limits = limits
    this.#hooks = hooks
    ws.once('close', () => this.#endStall(false))
  }

  /** Bytes waiting to be sent on this socket. */
  get buffered(): number {
    return this.ws.bufferedAmount
  }

  get stalled(): boolean {
    return this.#timer !== undefined
  }

  /**
   * True when a frame of about `size` bytes may be queued now: it fits under the bound, or less
   * than the socket's write high-water mark is waiting (so a frame larger than the bound still goes
   * out, nearly alone). False when the socket is not open or the frame does not fit: then
   * `onDrained` runs once when the buffer has emptied, unless the socket was closed first. A
   * refusal always finds the buffer at or above the high-water mark, where Node has refused a
   * write and so emits `drain` once the buffer is empty.
   */
  admit(onDrained: () => void, size = 0): boolean {
    if (this.ws.readyState !== this.ws.OPEN) return false
    if (this.stalled) {
      this.#onDrained = onDrained
      return false
    }
    const buffered = this.ws.bufferedAmount
    if (buffered < this.#socket.writableHighWaterMark || buffered + size <= this.#limits.maxBufferedBytes) return true
    this.#onDrained = onDrained
    this.#timer = setTimeout(() => this.closeSlow(`slow reader: over ${this.#limits.maxBufferedBytes} buffered bytes for ${this.#limits.slowReaderTimeoutMs} ms`), this.#limits.slowReaderTimeoutMs)
    this.#socket.once('drain', this.#drained)
    return false
  }

  /**
   * A frame that cannot be replayed (a protocol_error, a tool bridge frame): sent unless the socket
   * is past twice its bound, where waiting is pointless and the socket is closed at once.
   */
  sendControl(frame: string): boolean {
    if (this.ws.readyState !== this.ws.OPEN) return false
    if (this.ws.bufferedAmount > 2 * this.#limits.maxBufferedBytes) {
      this.closeSlow('slow reader: send buffer over twice its bound')
      return false
    }
    this.ws.send(frame)
    return true
  }

  /** Closes the socket as a slow reader (1013, `reason` under 123 bytes). */
  closeSlow(reason: string): void {
    this.#endStall(false)
    if (this.ws.readyState !== this.ws.OPEN) return
    this.ws.close(SLOW_READER_CLOSE_CODE, reason)
    this.#hooks.onSlowClose?.()
  }

  #endStall(drained: boolean): void {
    if (this.#timer === undefined) return
    clearTimeout(this.#timer)
    this.#timer = undefined
    this.#socket.off('drain', this.#drained)
    const resume = this.#onDrained
    this.#onDrained = undefined
    if (drained && resume && this.ws.readyState === this.ws.OPEN) resume()
  }
}
