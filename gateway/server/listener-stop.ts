/**
 * Stops a listening socket without resetting a connection. When a listening TCP socket closes, a
 * client the kernel already answered but the process has not accepted is reset: one whose
 * connection waits in the accept queue, and one whose handshake is still in progress (it got the
 * SYN-ACK, so it believes itself connected; its ACK or request then meets a closed port). Either
 * client may have sent its request and cannot tell whether it was processed. A connection attempt
 * whose SYN the kernel dropped or refused is safe: it is refused (ECONNREFUSED) and can retry.
 *
 * So the listener closes only at a moment the kernel answers no SYN and no client is left between
 * its SYN-ACK and our accept. An attempt:
 * 1. A loopback connection of our own (the sentinel) is made; on loopback its handshake completes
 *    within the connect call, and it waits in the accept queue. The steps up to 3 run before the
 *    event loop's next turn, so nothing is accepted meanwhile.
 * 2. The queue not being empty, the backlog becomes 0: a queue holding a connection is then full,
 *    and the kernel drops every SYN (no SYN-ACK, nothing half-open; the client retries the SYN a
 *    second later and is refused by the closed port). Nothing can join the queue or start a
 *    handshake while it stays full ("frozen").
 * 3. The kernel's table (tcp-table.ts) shows what is queued and whether a handshake is in
 *    progress. One in progress (its ACK would now be dropped, its client reset at the close):
 *    the backlog is restored and a later attempt follows.
 * 4. The clients queued are accepted and served one by one (the queue stays full while they are
 *    taken); when none is left ahead of a sentinel, the listener closes with only sentinels queued.
 *    Should the last sentinel be taken first, the backlog is restored (while clients still fill
 *    the queue) and another attempt follows.
 * A backlog of 0 over an empty queue is never left: the kernel would answer SYNs with SYN
 * cookies, handshakes no table shows. Where the table is not readable (not Linux), or no clean
 * moment came by `fallbackMs`, the listener closes at once. With `tcp_abort_on_overflow` set (off
 * by default), an ACK meeting the frozen queue is answered with a reset instead of being dropped.
 */
import { connect, Server as NetServer, type AddressInfo, type Socket } from 'node:net'
import { acceptQueueLength, portSockets } from './tcp-table.ts'

/** Node's TCP handles, for the calls net.Server and net.Socket do not expose. */
interface TcpHandle {
  listen?(backlog: number): number
  getsockname?(out: { port?: number }): number
  getpeername?(out: { port?: number }): number
  close(): void
  onconnection?: (this: TcpHandle, err: number, client?: TcpHandle) => void
}

export interface ListenerStopOptions {
  /** The backlog the listener was opened with, restored between attempts (Node's default). */
  backlog?: number
  /** Close anyway when no clean moment came by then (loopback unreachable, a firewall). */
  fallbackMs?: number
}

/** Resolves when the listening socket is closed (connections already accepted stay open). */
export function stopListening(server: NetServer, { backlog = 511, fallbackMs = 5000 }: ListenerStopOptions = {}): Promise<void> {
  if (!server.listening) return Promise.resolve()
  const handle = (server as unknown as { _handle?: TcpHandle })._handle
  const address = server.address()
  const accepted = handle?.onconnection
  if (!handle?.listen || !accepted || typeof address !== 'object' || address === null || acceptQueueLength(address.port, address.family) === undefined) {
    closeNow(server)
    return Promise.resolve()
  }
  return new Promise((resolve) => {
    const sentinels: Socket[] = []
    const sentinelPorts = new Set<number>()
    /** While the backlog is 0: the clients queued ahead of a sentinel, still to accept, and the sentinels queued. */
    let frozen: { clients: Set<number>; sentinels: number; timer: ReturnType<typeof setTimeout> } | undefined
    let done = false
    const finish = () => {
      if (done) return
      done = true
      clearTimeout(fallback)
      if (frozen) clearTimeout(frozen.timer)
      handle.onconnection = accepted
      closeNow(server)
      for (const sentinel of sentinels) sentinel.destroy()
      resolve()
    }
    const thaw = (ms: number) => {
      if (frozen) clearTimeout(frozen.timer)
      frozen = undefined
      if (handle.listen!(backlog) !== 0) return finish()
      // A handshake in progress completes (or its client retransmits) after the restore.
      ms ? setTimeout(attempt, ms) : setImmediate(attempt)
    }
    // Node takes queued connections in order, one callback each. A sentinel is closed here, never served; a client is
    // served. Frozen, once every client queued ahead of a sentinel is accepted, the listener closes
    // while that sentinel still fills the queue; if the last sentinel goes first, the backlog is
    // restored while the clients behind it still fill the queue.
    handle.onconnection = function (this: TcpHandle, err: number, client?: TcpHandle) {
      const peer: { port?: number } = {}
      const port = !err && client?.getpeername?.(peer) === 0 ? peer.port : undefined
      if (port !== undefined && sentinelPorts.has(port)) {
        client!.close()
        if (frozen) frozen.sentinels--
      } else {
        accepted.call(this, err, client)
        if (port !== undefined) frozen?.clients.delete(port)
      }
      if (frozen?.sentinels === 0) thaw(0)
      else if (frozen?.clients.size === 0) finish()
    }
    const attempt = () => {
      if (done) return
      if (!server.listening) return finish()
      const sentinel = sentinelTo(address)
      sentinels.push(sentinel)
      // net.connect makes its connect() call on the next tick: this runs right after it, before
      // the event loop can accept anything.
      process.nextTick(() => {
        if (done) return
        const port = localPortOf(sentinel)
        if (port !== undefined) sentinelPorts.add(port)
        // Nothing queued: the sentinel's handshake did not complete in its call (a busy machine).
        if (!acceptQueueLength(address.port, address.family)) return void setTimeout(attempt, 5)
        if (handle.listen!(0) !== 0) return finish()
        const { handshaking, queued } = portSockets(address.port, address.family)
        const clients = new Set(queued.filter((p) => !sentinelPorts.has(p)))
        const queuedSentinels = queued.length - clients.size
        if (handshaking > 0 || queuedSentinels === 0) return thaw(handshaking > 0 ? 50 : 0)
        if (clients.size === 0) return finish()
        // Frozen until Node has accepted them; bounded, should a client have left the queue unseen.
        frozen = { clients, sentinels: queuedSentinels, timer: setTimeout(() => thaw(0), 1000) }
      })
    }
    const fallback = setTimeout(finish, fallbackMs)
    attempt()
  })
}

function closeNow(server: NetServer): void {
  // net.Server's close: stop accepting, without http.Server's destroying of "idle" new sockets.
  if (server.listening) NetServer.prototype.close.call(server)
}

function sentinelTo(address: AddressInfo): Socket {
  const host = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address
  const socket = connect({ port: address.port, host })
  socket.on('error', () => {}) // a sentinel refused or reset is expected; it carries nothing
  return socket
}

/** The sentinel's local port, read from its handle: Node's `localPort` is empty until its own 'connect' event. */
function localPortOf(socket: Socket): number | undefined {
  const out: { port?: number } = {}
  const handle = (socket as unknown as { _handle?: TcpHandle })._handle
  return handle?.getsockname?.(out) === 0 ? out.port : undefined
}
