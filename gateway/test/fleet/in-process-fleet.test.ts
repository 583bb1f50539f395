/**
 * The `fleet` library option: two createGatewayServer instances in one test process on one
 * PostgreSQL are one gateway for sessions, and a graceful close hands its sessions over at once
 * (its lease is dropped, no wait for it to lapse): the next request elsewhere adopts them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSessionDirectory } from '../../fleet/directory.ts'
import { createPostgresSessionStore, type PostgresSessionStore } from '../../sessions/stores/postgres-store.ts'
import { startTestGateway, type TestGateway } from '../harness.ts'
import { startPostgresServer, type PostgresServer } from '../postgres-server.ts'

const SECRET = 'in-process-fleet-secret'
let server: PostgresServer
let url: string
const stores: PostgresSessionStore[] = []
const gateways: TestGateway[] = []

beforeAll(async () => {
  server = await startPostgresServer()
  url = await server.createDatabase('in_process_fleet')
}, 120_000)
afterAll(async () => {
  for (const g of gateways) await g.close().catch(() => undefined)
  for (const s of stores) await s.close().catch(() => undefined)
  await server?.stop()
})

async function member(processId: string): Promise<TestGateway> {
  const store = await createPostgresSessionStore({ url, poolSize: 2 })
  stores.push(store)
  const directory = await createSessionDirectory({ url, processId, leaseMs: 60_000 })
  const g = await startTestGateway({ parking: { store, persistLive: true, parkDelayMs: 20 }, fleet: { directory, secret: SECRET } })
  gateways.push(g)
  return g
}

describe('the fleet option in one process', { timeout: 60_000 }, () => {
  it('answers for a session of the other server, and adopts it at once after a graceful close', async () => {
    const first = await member('in-process-1')
    const second = await member('in-process-2')
    const session = await first.createSession({ prompt: 'hello fleet' })
    const ws = await second.attach(session.id)
    expect((await ws.waitForEvent('turn_result')).result).toBe('echo: hello fleet')
    ws.close()
    const seen = await second.request('GET', `/sessions/${session.id}`)
    expect(seen.body.session).toMatchObject({ id: session.id, numTurns: 1 })
    // Forged: a client cannot pass its request off as forwarded.
    const forged = await second.request('GET', `/sessions/${session.id}`, { headers: { 'x-gateway-forwarded-by': 'in-process-1', 'x-gateway-forward-secret': 'nope' } })
    expect(forged).toMatchObject({ status: 403, body: { code: 'forward_forbidden' } })

    // A graceful close keeps the record and the directory row, and drops the lease: no 60 s wait.
    await first.close()
    const again = await second.attach(session.id)
    expect((await again.waitForEvent('turn_result')).result).toBe('echo: hello fleet')
    again.send({ type: 'user_message', text: 'on the second server' })
    expect((await again.waitForEvent('turn_result', (e) => e.result === 'echo: on the second server')).numTurns).toBe(2)
    again.close()
    expect((await second.request('GET', '/sessions')).body.sessions.map((s: { id: string }) => s.id)).toContain(session.id)
  })
})
