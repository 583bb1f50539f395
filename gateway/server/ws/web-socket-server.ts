/**
 * The gateway's one WebSocket server, built at the first upgrade: `ws` is loaded only once a
 * client asks for a socket, so start to listening does not pay for it.
 */
import type { WebSocket, WebSocketServer } from 'ws'

export class LazyWebSocketServer {
  #server: WebSocketServer | undefined
  #loading: Promise<WebSocketServer> | undefined
  readonly #maxPayload: number

  constructor(maxPayload: number) {
    this.#maxPayload = maxPayload
  }

  /** The server, loading `ws` on the first call. */
  get(): Promise<WebSocketServer> {
    return (this.#loading ??= import('ws').then(({ WebSocketServer }) => {
      this.#server = new WebSocketServer({ noServer: true, maxPayload: this.#maxPayload })
      return this.#server
    }))
  }

  /** Connected clients; none before the first upgrade. */
  get clients(): Iterable<WebSocket> {
    return this.#server?.clients ?? []
  }

  /** Ends every client and the server; waits for a load still under way. */
  async close(): Promise<void> {
    const server = this.#loading ? await this.#loading : undefined
    if (!server) return
    for (const client of server.clients) client.terminate()
    await new Promise<void>((done) => server.close(() => done()))
  }
}
