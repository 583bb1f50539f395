/**
 * A plain round-robin TCP proxy with no affinity, the load balancer of the self-fleet target:
 * each new client connection goes to the next upstream in turn, bytes are piped both ways
 * unread (no HTTP awareness: a keep-alive connection stays on the upstream it reached, a
 * WebSocket upgrade is just more bytes), and an upstream that refuses the connection is skipped
 * for the next one, as nginx's `upstream` does. When every upstream refuses, the client's
 * connection is closed. The upstream list can be replaced while running (a process restarted on
 * a new port).
 */
import { createServer, connect, type Server, type Socket } from 'node:net'

export interface Upstream { host: string; port: number }

export class RoundRobinProxy {
  #upstreams: Upstream[]
  #next = 0
  readonly #server: Server
  readonly #sockets = new Set<Socket>()
  /** Connections each upstream was given (by `host:port`), skipped ones excluded. */
  readonly connections = new Map<string, number>()

  constructor(upstreams: Upstream[]) {
    this.#upstreams = [...upstreams]
    this.#server = createServer((client) => this.#accept(client))
  }

  /** Listens on 127.0.0.1 (an ephemeral port unless given); resolves to the port. */
  async listen(port = 0): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject)
      this.#server.listen(port, '127.0.0.1', () => resolve())
    })
    const address = this.#server.address()
    if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP address')
    return address.port
  }

  /** From the next connection on, these upstreams (in this order). */
  setUpstreams(upstreams: Upstream[]): void {
    this.#upstreams = [...upstreams]
  }

  get upstreams(): readonly Upstream[] {
    return this.#upstreams
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy()
    await new Promise<void>((resolve) => this.#server.close(() => resolve()))
  }

  #track(socket: Socket): void {
    this.#sockets.add(socket)
    socket.once('close', () => this.#sockets.delete(socket))
  }

  #accept(client: Socket): void {
    this.#track(client)
    client.pause()
    client.on('error', () => {})
    const start = this.#next++
    const candidates = this.#upstreams.length
    const tryFrom = (i: number): void => {
      if (client.destroyed) return
      if (i >= candidates || this.#upstreams.length === 0) { client.destroy(); return }
      const target = this.#upstreams[(start + i) % this.#upstreams.length]
      const upstream = connect(target.port, target.host)
      let connected = false
      upstream.once('connect', () => {
        connected = true
        this.#track(upstream)
        const key = `${target.host}:${target.port}`
        this.connections.set(key, (this.connections.get(key) ?? 0) + 1)
        upstream.setNoDelay(true)
        client.setNoDelay(true)
        client.pipe(upstream)
        upstream.pipe(client)
        client.resume()
        // Either side ending or failing ends the other: a killed upstream resets its clients.
        upstream.once('close', () => client.destroy())
        client.once('close', () => upstream.destroy())
      })
      upstream.on('error', () => {
        // Refused (or reset before connecting): skip to the next upstream, as nginx does.
        if (!connected) tryFrom(i + 1)
      })
    }
    tryFrom(0)
  }
}
