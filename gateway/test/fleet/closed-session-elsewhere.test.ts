/**
 * A closed session stays readable through every process of the fleet, as on one process: its
 * owner keeps the closed registry row (a finished job's session, say), so the directory row stays
 * and another process forwards a GET there, with the info as `buildRunnerConfig` shaped it
 * (server-configuration.10). A DELETE through either process removes it and releases the row.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSessionDirectory } from '../../fleet/directory.ts'
import type { RunnerConfig } from '../../sessions/runner.ts'
import { createPostgresSessionStore, type PostgresSessionStore } from '../../sessions/stores/postgres-store.ts'
import { startTestGateway, until, type TestGateway } from '../harness.ts'
import { startPostgresServer, type PostgresServer } from '../postgres-server.ts'

const SECRET = 'closed-session-secret'
let server: PostgresServer
let url: string
const stores: PostgresSessionStore[] = []
const gateways: TestGateway[] = []

beforeAll(async () => {
  server = await startPostgresServer()
  url = await server.createDatabase('closed_session_elsewhere')
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
  const g = await startTestGateway({
    parking: { store, persistLive: true, parkDelayMs: 20 }, fleet: { directory, secret: SECRET },
    buildRunnerConfig: (config: RunnerConfig) => ({ ...config, meta: { ...(config.meta ?? {}), builtBy: processId } }),
  })
  gateways.push(g)
  return g
}

describe('a closed session across the fleet', { timeout: 60_000 }, () => {
  it('is read through another process with its meta until it is deleted', async () => {
    const one = await member('closed-1')
    const two = await member('closed-2')
    const db = new pg.Client({ connectionString: url })
    await db.connect()
    try {
      const row = async (id: string) => (await db.query('SELECT process_id FROM gateway_session_directory WHERE session_id = $1', [id])).rows[0]
      const session = await one.createSession({ prompt: 'hello fleet' })
      const ws = await one.attach(session.id)
      await ws.waitForEvent('turn_result')
      ws.send({ type: 'close' })
      await until(() => one.request('GET', `/sessions/${session.id}`), (r) => r.body.session?.status === 'closed', 'closed on its owner')
      const seen = await two.request('GET', `/sessions/${session.id}`)
      expect(seen.status).toBe(200)
      expect(seen.body.session).toMatchObject({ id: session.id, status: 'closed', meta: { builtBy: 'closed-1' } })
      expect(await row(session.id)).toEqual({ process_id: 'closed-1' })

      expect((await two.request('DELETE', `/sessions/${session.id}`)).status).toBe(200)
      await until(() => row(session.id), (r) => r === undefined, 'the row of the deleted session released')
      for (const via of [one, two]) expect((await via.request('GET', `/sessions/${session.id}`)).status).toBe(404)
    } finally {
      await db.end()
    }
  })
})
