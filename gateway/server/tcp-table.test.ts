/**
 * tcp-table reads what listener-stop.ts decides on: the accept queue of a listener and the
 * connections waiting in it, told apart from those the process accepted (Linux only).
 */
import { createServer, connect, type Server, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { acceptQueueLength, portSockets } from './tcp-table.ts'

const opened: Array<Server | Socket> = []
afterEach(() => {
  for (const item of opened.splice(0)) 'destroy' in item ? item.destroy() : item.close()
})

function listening(host: string): Promise<Server> {
  const server = createServer((socket) => void opened.push(socket))
  opened.push(server)
  return new Promise((resolve) => server.listen(0, host, () => resolve(server)))
}

describe.runIf(process.platform === 'linux')('the kernel socket table', () => {
  it('shows a connection queued but not yet accepted, with its client port, and no handshake in progress', async () => {
    const server = await listening('127.0.0.1')
    const { port, family } = server.address() as { port: number; family: string }
    expect(acceptQueueLength(port, family)).toBe(0)
    const client = connect(port, '127.0.0.1')
    opened.push(client)
    // The connect call runs on the next tick; on loopback the handshake completes within it, and
    // the event loop has not taken a turn to accept the connection yet.
    const seen = await new Promise<{ queue?: number; sockets: ReturnType<typeof portSockets>; clientPort?: number }>((resolve) => process.nextTick(() => {
      const out: { port?: number } = {}
      ;(client as unknown as { _handle: { getsockname(o: { port?: number }): number } })._handle.getsockname(out)
      resolve({ queue: acceptQueueLength(port, family), sockets: portSockets(port, family), clientPort: out.port })
    }))
    expect(seen).toEqual({ queue: 1, sockets: { handshaking: 0, queued: [seen.clientPort] }, clientPort: expect.any(Number) })
    // Once accepted, the connection has a file: no longer queued.
    await new Promise<void>((resolve) => server.once('connection', () => resolve()))
    expect(acceptQueueLength(port, family)).toBe(0)
    expect(portSockets(port, family)).toEqual({ handshaking: 0, queued: [] })
  })

  it('knows no listener on a port nothing listens on', async () => {
    const server = await listening('127.0.0.1')
    const { port, family } = server.address() as { port: number; family: string }
    await new Promise<void>((resolve) => server.close(() => resolve()))
    expect(acceptQueueLength(port, family)).toBeUndefined()
  })
})
