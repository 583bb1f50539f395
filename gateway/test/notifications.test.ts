import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import type { SessionNotification } from '../protocol/index.ts'
import { startTestGateway, type TestGateway } from './harness.ts'

let gw: TestGateway | undefined
let hook: Server | undefined
afterEach(async () => {
  await gw?.close()
  await new Promise<void>((r) => (hook ? hook.close(() => r()) : r()))
  gw = hook = undefined
})

async function receiver(script: number[] = []) {
  const got: any[] = []
  hook = createServer((req, res) => {
    let text = ''
    req.on('data', (c) => { text += c })
    req.on('end', () => {
      res.statusCode = script.shift() ?? 200
      if (res.statusCode === 200) got.push({ body: JSON.parse(text), headers: req.headers })
      res.end()
    })
  })
  await new Promise<void>((r) => hook!.listen(0, '127.0.0.1', r))
  return { url: `http://127.0.0.1:${(hook!.address() as AddressInfo).port}/n`, got }
}

async function until(ok: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 10))
  if (!ok()) throw new Error(`never: ${what}`)
}

describe('session notifications (events.24)', () => {
  it('posts turn_completed and session_closed in order, with the session snapshot as the event left it', async () => {
    const hookServer = await receiver([500])
    const observed: SessionNotification[] = []
    gw = await startTestGateway({ notifications: { webhook: { url: hookServer.url, headers: { authorization: 'Bearer n' } }, onNotification: (n) => observed.push(n), retryDelayMs: 10 } })
    const session = await gw.createSession({ prompt: 'scenario:hello' })
    await until(() => observed.some((n) => n.type === 'turn_completed'), 'turn_completed')
    await gw.request('DELETE', `/sessions/${session.id}`)
    await until(() => hookServer.got.length === 2, 'two deliveries')
    const [completed, closed] = hookServer.got.map((g) => g.body)
    expect(completed).toMatchObject({ type: 'turn_completed', sessionId: session.id, preview: 'Hello, world!', result: { isError: false, numTurns: 1 } })
    expect(completed.seq).toBeGreaterThan(0)
    expect(closed).toMatchObject({ type: 'session_closed', reason: 'server', session: { status: 'closed' } })
    expect(hookServer.got[0].headers.authorization).toBe('Bearer n')
    expect(observed.map((n) => n.type)).toEqual(['turn_completed', 'session_closed'])
  })

  it('filters the webhook by events but passes everything to onNotification', async () => {
    const hookServer = await receiver()
    const observed: string[] = []
    gw = await startTestGateway({ notifications: { webhook: { url: hookServer.url, events: ['session_closed'] }, onNotification: (n) => observed.push(n.type) } })
    const session = await gw.createSession({ prompt: 'hi' })
    await until(() => observed.includes('turn_completed'), 'turn_completed observed')
    await gw.request('DELETE', `/sessions/${session.id}`)
    await until(() => hookServer.got.length === 1, 'one delivery')
    expect(hookServer.got[0].body.type).toBe('session_closed')
    expect(observed).toEqual(['turn_completed', 'session_closed'])
  })

  it('covers job runs too', async () => {
    const observed: SessionNotification[] = []
    gw = await startTestGateway({ queue: {}, notifications: { onNotification: (n) => observed.push(n) } })
    await gw.request('POST', '/jobs', { body: { session: { prompt: 'hello' } } })
    await until(() => observed.filter((n) => n.type === 'session_closed').length === 1, 'job session closed')
    expect(observed.map((n) => n.type)).toEqual(['turn_completed', 'session_closed'])
    expect(observed[0].session.meta?.jobId).toBeTypeOf('string')
  })
})
