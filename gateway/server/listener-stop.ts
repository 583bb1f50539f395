/**
 * Stops a listening socket without resetting a connection. Closing a listening TCP socket makes
 * the kernel reset every connection it completed that the process has not accepted yet (the
 * accept queue): its client already sent its request and sees ECONNRESET, unable to tell whether
 * it was processed. A connection attempt the kernel refuses (ECONNREFUSED) is safe to retry.
 *
 * So the listener is closed only at a moment the accept queue is empty and cannot fill:
 * 1. The backlog becomes 0: the kernel then holds at most one completed connection and drops
 *    further connection attempts (their clients retry the handshake after about a second and are
 *    then refused by the closed port).
 * 2. A connection of our own (the sentinel) is made to the listener. Entering an empty queue it
 *    fills it, so nothing can queue behind it; if the queue was full, it is dropped and another
 *    is made after each connection accepted, until one enters.
 * 3. When the sentinel is accepted, the queue is empty and stays so: the listener closes then,
 *    synchronously, before anything else runs.
 * What remains is the few microseconds between an accept and the next sentinel or the close, in
 * which another process's handshake can still complete. Where the runtime does not offer what
 * this needs (Node's listening handle, a TCP address), the listener closes at once.
 */
import { connect, Server as NetServer, type AddressInfo, type Socket } from 'node:net'

/** Node's TCP handles, for the calls net.Server and net.Socket do not expose. */
interface TcpHandle {
  listen?(backlog: number): number
  getsockname?(out: { port?: number }): number
  getpeername?(out: { port?: number }): number
  close(): void
  onconnection?: (this: TcpHandle, err: number, client?: TcpHandle) => void
}

export interface ListenerStopOptions {
  /** Close anyway when no sentinel was accepted by then (loopback unreachable, a firewall). */
  fallbackMs?: number
}

/** Resolves when the listening socket is closed (connections already accepted stay open). */
export function stopListening(server: NetServer, { fallbackMs = 1000 }: ListenerStopOptions = {}): Promise<void> {
  if (!server.listening) return Promise.resolve()
  const handle = (server as unknown as { _handle?: TcpHandle })._handle
  const address = server.address()
  const accepted = handle?.onconnection
  if (!handle?.listen || !accepted || typeof address !== 'object' || address === null || handle.listen(0) !== 0) {
    closeNow(server)
    return Promise.resolve()
  }
  return new Promise((resolve) => {
    const sentinels: Socket[] = []
    const finish = () => {
      handle.onconnection = accepted
      clearTimeout(timer)
      closeNow(server)
      for (const sentinel of sentinels) sentinel.destroy()
      resolve()
    }
    // Node's accept callback, ahead of the Socket it builds: the close follows the sentinel's
    // accept with as little as possible in between.
    handle.onconnection = function (this: TcpHandle, err: number, client?: TcpHandle) {
      const peer: { port?: number } = {}
      if (!err && client?.getpeername?.(peer) === 0 && sentinels.some((sentinel) => localPortOf(sentinel) === peer.port)) {
        handle.close()
        client.close()
        return finish()
      }
      accepted.call(this, err, client)
      // The queue may be empty again now: a new sentinel fills it before anything else can.
      sentinels.push(sentinelTo(address))
    }
    const timer = setTimeout(finish, fallbackMs)
    timer.unref()
    sentinels.push(sentinelTo(address))
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
