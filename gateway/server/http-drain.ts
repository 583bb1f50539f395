/**
 * The HTTP side of a stop that drops nothing: every request whose headers arrived gets
 * an answer, its result or 503 `shutting_down`, never a reset connection.
 *
 * While draining, each response says `Connection: close`, so a client's keep-alive socket is not
 * reused past the stop, and sockets idle after a request are closed. At the close the listener
 * stops, requests in flight get a moment to finish and are then answered 503, and only then is
 * whatever is left closed. Two things Node would do reset requests, so this module does not let
 * it: closing every connection at the end of the grace (the old close) cut the requests in flight
 * at that instant, and `http.Server#close` / `closeIdleConnections` count a socket accepted a
 * moment ago, whose request is still on its way, as idle and destroy it. Here a socket that never
 * carried a request is given the settle time to deliver one, which is then answered.
 */
import { Server as NetServer, type Socket } from 'node:net'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { sendRefusal } from './http.ts'
import { refuse } from './refusal.ts'

const SHUTTING_DOWN = refuse('shutting_down', 'the gateway is shutting down')

export interface DrainTimings {
  /** How long requests in flight at the close (or still arriving on open sockets) may take to finish with their own result. */
  settleMs?: number
  /** How long a response already streaming (a download) may take to end before its socket is cut. */
  streamMs?: number
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
      // A socket left idle during the drain is closed now, not at the end.
      if ((this.#draining || this.#closing) && state.active === 0) req.socket.end()
    })
    if (this.#draining || this.#closing) res.setHeader('connection', 'close')
    if (!this.#closing) return true
    sendRefusal(res, SHUTTING_DOWN)
    return false
  }

  /** From now on responses close their connection; sockets idle after a request are closed. */
  drain(): void {
    this.#draining = true
    this.#endIdle()
  }

  /**
   * Stops listening, lets requests in flight (and requests on sockets accepted just before) finish
   * for up to `settleMs`, then answers the rest 503. Resolves when every received request has its
   * answer (or is streaming one).
   */
  async answerAll({ settleMs = 1000 }: DrainTimings = {}): Promise<void> {
    if (this.#closing) return
    this.#closing = true
    // net.Server's close: stop accepting, without http.Server's destroying of "idle" new sockets.
    this.#closed = new Promise<void>((done) => {
      if (!this.#server.listening) return done()
      NetServer.prototype.close.call(this.#server, () => done())
    })
    this.#endIdle()
    await this.#until(() => ![...this.#open].some((res) => !res.headersSent) && ![...this.#sockets.values()].some((s) => s.served === 0), settleMs)
    for (const res of this.#open) {
      if (res.headersSent) continue
      res.setHeader('connection', 'close')
      sendRefusal(res, SHUTTING_DOWN)
    }
  }

  /** Waits up to `streamMs` for answers still being written, then closes whatever connection is left. */
  async finish({ streamMs = 2000 }: DrainTimings = {}): Promise<void> {
    await this.#until(() => this.#open.size === 0, streamMs)
    // Nothing is in flight now: what remains is idle, silent, or a stream past its bound.
    for (const socket of this.#sockets.keys()) socket.destroy()
    this.#server.closeAllConnections()
    await this.#closed
  }

  /** Sockets that carried a request and have none in flight; a new socket may still be sending its first. */
  #endIdle(): void {
    for (const [socket, state] of this.#sockets) if (state.served > 0 && state.active === 0) socket.end()
  }

  async #until(done: () => boolean, ms: number): Promise<void> {
    const deadline = Date.now() + ms
    while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
  }
}
