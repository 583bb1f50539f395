/**
 * The self-fleet target's load balancer: each new connection goes to the next upstream in turn,
 * with no affinity (two connections of one client land on different upstreams), an upstream
 * that refuses is skipped for the next one, and the list can be replaced while running.
 */
import { createServer, connect, type Server } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { RoundRobinProxy } from '../target/round-robin-proxy.ts'

const servers: Server[] = []
let proxy: RoundRobinProxy | undefined

/** A TCP server that answers each connection with its name and echoes what it gets after it. */
async function named(name: string): Promise<number> {
  const server = createServer((socket) => { socket.write(`${name}:`); socket.pipe(socket) })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as { port: number }).port
}

/** A loopback port nothing listens on. */
async function refusing(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  await new Promise((r) => server.close(r))
  return port
}

/** Connects through the proxy, sends `text`, and reads until the echo came back. */
function exchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let got = ''
    socket.on('data', (c: Buffer) => {
      got += c
      if (got.endsWith(text)) { socket.end(); resolve(got) }
    })
    socket.on('error', reject)
    socket.on('close', () => resolve(got))
    socket.write(text)
  })
}

afterEach(async () => {
  await proxy?.close()
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r))
})

describe('the round-robin proxy', () => {
  it('sends each new connection to the next upstream, bytes unchanged both ways', async () => {
    const ports = [await named('a'), await named('b'), await named('c')]
    proxy = new RoundRobinProxy(ports.map((port) => ({ host: '127.0.0.1', port })))
    const port = await proxy.listen()
    const answers = []
    for (let i = 0; i < 6; i++) answers.push(await exchange(port, `hello ${i}`))
    expect(answers).toEqual(['a:hello 0', 'b:hello 1', 'c:hello 2', 'a:hello 3', 'b:hello 4', 'c:hello 5'])
  })

  it('skips an upstream that refuses, and closes the client when every one refuses', async () => {
    proxy = new RoundRobinProxy([{ host: '127.0.0.1', port: await named('a') }, { host: '127.0.0.1', port: await refusing() }, { host: '127.0.0.1', port: await named('c') }])
    const port = await proxy.listen()
    const answers = []
    for (let i = 0; i < 3; i++) answers.push(await exchange(port, `x${i}`))
    expect(answers).toEqual(['a:x0', 'c:x1', 'c:x2'])
    proxy.setUpstreams([{ host: '127.0.0.1', port: await refusing() }])
    expect(await exchange(port, 'nobody')).toBe('')
  })
})
