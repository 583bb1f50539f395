/**
 * waitAcross: a wait whose condition reads several sockets wakes on whichever socket the
 * deciding frame arrives at. The deadlines here are a minute: a wait that slept to its deadline
 * (as a.waitFor did for a frame arriving on b) would run into vitest's test timeout instead.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { WebSocketServer, type WebSocket } from 'ws'
import { openWs, waitAcross, type WsClient } from '../harness/ws-client.ts'
import { WireLog } from '../harness/wire-log.ts'

const MINUTE = 60_000
let server: WebSocketServer | undefined
const clients: WsClient[] = []

afterEach(async () => {
  for (const c of clients.splice(0)) c.close()
  await new Promise((resolve) => server?.close(resolve))
})

/** Two kit clients, and the server side of each in connection order. */
async function pair(): Promise<{ a: WsClient; b: WsClient; sockets: WebSocket[] }> {
  server = new WebSocketServer({ port: 0, host: '127.0.0.1' })
  await new Promise((resolve) => server!.once('listening', resolve))
  const sockets: WebSocket[] = []
  server.on('connection', (socket) => sockets.push(socket))
  const url = `ws://127.0.0.1:${(server.address() as { port: number }).port}`
  const a = await openWs(new WireLog(), url, undefined, MINUTE)
  const b = await openWs(new WireLog(), url, undefined, MINUTE)
  clients.push(a, b)
  while (sockets.length < 2) await new Promise((r) => setTimeout(r, 5))
  return { a, b, sockets }
}

describe('waitAcross', () => {
  it('wakes when the deciding frame arrives on the second socket', async () => {
    const { a, b, sockets } = await pair()
    const total = () => a.frames.length + b.frames.length
    sockets[0].send(JSON.stringify({ type: 'one' }))
    await a.waitFor((f) => f.type === 'one', MINUTE)
    // From here only b receives anything: a wait woken by a's frames alone would never return.
    const waiting = waitAcross([a, b], () => total() >= 2, MINUTE, 'two frames')
    sockets[1].send(JSON.stringify({ type: 'two' }))
    await waiting
    expect(b.frames.map((f) => f.type)).toEqual(['two'])
    expect(total()).toBe(2)
  })

  it('ends the wait when a socket closes before the condition holds', async () => {
    const { a, b, sockets } = await pair()
    const waiting = waitAcross([a, b], () => b.frames.length > 0, MINUTE, 'a frame on b')
    sockets[0].close()
    await expect(waiting).rejects.toThrow(/^timed out after 60000 ms waiting for a frame on b/)
  })
})
