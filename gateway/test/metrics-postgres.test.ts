/**
 * With the queue on PostgreSQL, `gateway_queue_jobs` is the fleet's: two
 * gateways on one database report the same counts, read from the database at scrape time, whichever
 * of them took the jobs. (A daily token limit of 0 keeps the submitted jobs queued.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPostgresQueueAdapter, type PostgresQueueAdapter } from '../queue/postgres-adapter.ts'
import { startTestGateway, type TestGateway } from './harness.ts'
import { startPostgresServer, type PostgresServer } from './postgres-server.ts'
import { parseExposition } from './prometheus-text.ts'

let pg: PostgresServer
const adapters: PostgresQueueAdapter[] = []
const gateways: TestGateway[] = []
beforeAll(async () => { pg = await startPostgresServer() }, 120_000)
afterAll(async () => {
  await Promise.all(gateways.map((g) => g.close()))
  await Promise.all(adapters.map((a) => a.close()))
  await pg?.stop()
})

describe('queue metrics on PostgreSQL', { timeout: 60_000 }, () => {
  it('are fleet-wide: a gateway that took no job reports the jobs another one queued', async () => {
    const url = await pg.createDatabase('metrics')
    const start = async () => {
      const adapter = await createPostgresQueueAdapter({ url })
      adapters.push(adapter)
      const gw = await startTestGateway({ queue: { adapter, dailyTokenLimit: 0 } })
      gateways.push(gw)
      return gw
    }
    const [a, b] = [await start(), await start()]
    for (let i = 0; i < 3; i++) {
      const res = await a.request('POST', '/jobs', { body: { session: { profile: 'default', prompt: `job ${i}`, cwd: a.cwdRoot } } })
      expect(res.status, res.text).toBeLessThan(300)
    }
    for (const gw of [a, b]) {
      const scraped = parseExposition((await gw.request('GET', '/metrics')).text)
      expect(scraped.sum('gateway_queue_jobs', { status: 'queued' })).toBe(3)
      expect(scraped.sum('gateway_queue_jobs', { status: 'running' })).toBe(0)
      expect(scraped.sum('gateway_queue_paused')).toBe(1)
    }
  })
})
