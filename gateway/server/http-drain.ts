/**
 * The HTTP side of a stop that drops nothing: every request whose headers arrived gets
 * an answer, its result or 503 `shutting_down`, never a reset connection.
 *
 * While draining, each response says `Connection: close`, so a client's keep-alive socket is not
 * reused past the stop. A keep-alive socket idle between requests is not closed then: its client
 * may be sending its next request at that very moment, which a close would lose; its next request
 * is answered (with `Connection: close`) instead. At the close the listener stops without
 * resetting a connection the kernel queued (listener-stop.ts), requests in flight get a moment to
 * finish and are then answered 503, a socket accepted a moment ago gets that moment to send its
 * request, and every socket left without a request in flight (idle, or with half its headers) is
 * sent a 503 `shutting_down` with `Connection: close` before it is closed: a request crossing
 * that close reads the 503 as its answer. Node's own ways would reset: closing every connection
 * at the end of the grace cuts the requests in flight at that instant, and `http.Server#close` /
 * `closeIdleConnections` count a socket accepted a moment ago, whose request is still on its way,
 * as idle and destroy it.
 */
import type { Socket } from 'node:net'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { sendRefusal } from './http.ts'
import { stopListening } from './listener-stop.ts'
import { refuse } from './refusal.ts'

const SHUTTING_DOWN = refuse('shutting_down', 'the gateway is shutting down')
/** The same refusal written straight onto a socket that has no request in flight to answer. */
const SHUTTING_DOWN_RAW = (() => {
  const body = JSON.stringify({ error: SHUTTING_DOWN.error, code: SHUTTING_DOWN.code })
  return `HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
})()

export interface DrainTimings {
  /** How long requests in flight at the close (or still arriving on open sockets) may take to finish with their own result. */
  settleMs?: number
  /** How long a response already streaming (a download) may take to end before its socket is cut. */
  streamMs?: number
  /** How long a socket sent the closing 503 may take to close from its side before it is cut. */
  lingerMs?: number
}

interface SocketState {
  /** Requests this socket carried so far. */
  served: number
  /** Responses on it not yet finished. */
  active: number
}

export class HttpDrain {
  readonly #server: Server
  readonly #open = new Set<ServerResponse>()
  readonly #sockets = new Map<Socket, SocketState>()
  #draining = false
  #closing = false
  #closed: Promise<void> = Promise.resolve()

  constructor(server: Server) {
    this.#server = server
    server.on('connection', (socket: Socket) => {
      this.#sockets.set(socket, { served: 0, active: 0 })
      socket.once('close', () => this.#sockets.delete(socket))
    })
    // An upgraded socket is a WebSocket's now: closed with 1001 by the shutdown, not tracked here.
    server.prependListener('upgrade', (req: IncomingMessage) => void this.#sockets.delete(req.socket))
  }

  /** Every request passes here first; false when it was answered here (the server is closing). */
  admit(req: IncomingMessage, res: ServerResponse): boolean {
    const state = this.#sockets.get(req.socket)
    if (state) {
      state.served++
      state.active++
    }
    this.#open.add(res)
    res.once('close', () => {
      this.#open.delete(res)
      if (!state) return
      state.active--
      // Its answer said `Connection: close`: the socket is closed now, not at the end.
      if ((this.#draining || this.#closing) && state.active === 0) req.socket.end()
    })
    if (this.#draining || this.#closing) res.setHeader('connection', 'close')
    if (!this.#closing) return true
    // A socket already sent the closing 503 (finish) has its answer: writing again would fail and
    // reset it before its client reads that 503.
    if (req.socket.writable) sendRefusal(res, SHUTTING_DOWN)
    return false
  }

  /** From now on responses close their connection (an idle keep-alive socket closes after its next answer). */
  drain(): void {
    this.#draining = true
    // Node's keep-alive timeout would destroy an idle socket whose client is sending its next
    // request (on a stalled event loop, one already in the socket's buffer: a reset). Its next
    // request is answered instead, and `finish` closes it if none comes.
    for (const socket of this.#sockets.keys()) socket.setTimeout(0)
  }

  /**
   * Stops listening, lets requests in flight (and requests on sockets accepted just before) finish
   * for up to `settleMs`, then answers the rest 503. Resolves when every received request has its
   * answer (or is streaming one).
   */
  async answerAll({ settleMs = 1000 }: DrainTimings = {}): Promise<void> {
    if (this.#closing) return
    this.#closing = true
    // 'close' comes once the listener is closed and every connection has ended.
    this.#closed = this.#server.listening ? new Promise<void>((done) => this.#server.once('close', () => done())) : Promise.resolve()
    await stopListening(this.#server)
    await this.#until(() => ![...this.#open].some((res) => !res.headersSent) && ![...this.#sockets.values()].some((s) => s.served === 0), settleMs)
    for (const res of this.#open) {
      if (res.headersSent) continue
      res.setHeader('connection', 'close')
      sendRefusal(res, SHUTTING_DOWN)
    }
  }

  /**
   * Waits up to `streamMs` for answers still being written; sends every socket without a request
   * in flight the closing 503 and gives it `lingerMs` to close; then cuts whatever is left.
   */
  async finish({ streamMs = 2000, lingerMs = 500 }: DrainTimings = {}): Promise<void> {
    await this.#until(() => this.#open.size === 0, streamMs)
    const told: Socket[] = []
    for (const [socket, state] of this.#sockets) {
      if (state.active > 0 || !socket.writable) continue
      socket.end(SHUTTING_DOWN_RAW)
      told.push(socket)
    }
    // Cut only after its peer has read the 503 and closed: a reset could discard the unread answer.
    if (told.length) await closedOrLate(told, lingerMs)
    // What remains is a stream past its bound, or a peer that did not close after the 503.
    for (const socket of this.#sockets.keys()) socket.destroy()
    this.#server.closeAllConnections()
    await this.#closed
  }

  async #until(done: () => boolean, ms: number): Promise<void> {
    const deadline = Date.now() + ms
    while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
  }
}

/** Resolves when every socket has closed, or after `ms`. */
async function closedOrLate(sockets: Socket[], ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const closed = sockets.map((socket) => (socket.closed ? undefined : new Promise<void>((done) => socket.once('close', () => done()))))
  await Promise.race([Promise.all(closed), new Promise<void>((done) => { timer = setTimeout(done, ms) })])
  clearTimeout(timer)
}
