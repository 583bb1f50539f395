/**
 * On PostgreSQL every process answers `GET /queue`
 * with the fleet's counts, not its own: parked jobs of one process and a job running in the
 * other are counted alike by both.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { until } from '../harness.ts'
import { startPostgresServer, type PostgresServer } from '../postgres-server.ts'
import { startMember, type Member } from './fleet-member.ts'

describe('GET /queue on a fleet', () => {
  let server: PostgresServer | undefined
  const members: Member[] = []
  afterEach(async () => {
    for (const m of members.splice(0)) if (m.child.exitCode === null) m.child.kill('SIGKILL')
    await server?.stop()
    server = undefined
  })

  it('gives the same running, queued and parked counts on every process', async () => {
    server = await startPostgresServer()
    const url = await server.createDatabase()
    const token = randomBytes(8).toString('hex')
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    const options = (workerId: string) => ({ workerId, maxConcurrency: 2, leaseMs: 3000, token })
    members.push(...await Promise.all([startMember(url, options('s1')), startMember(url, options('s2'))]))
    const submit = async (m: Member, prompt: string) => expect((await fetch(`${m.url}/jobs`, { method: 'POST', headers, body: JSON.stringify({ session: { prompt } }) })).status).toBe(201)
    for (let i = 0; i < 3; i++) await submit(members[0], 'scenario:deferred')
    const db = new pg.Client({ connectionString: url })
    await db.connect()
    try {
      const counts = async () => Object.fromEntries((await db.query(`SELECT status, count(*)::int AS n FROM gateway_jobs GROUP BY status`)).rows.map((r) => [r.status, r.n]))
      await until(counts, (c) => c.parked === 3, 'three jobs parked')
      // One job running long enough to be read from both processes, submitted through the other one.
      await submit(members[1], `scenario:${JSON.stringify({ name: 'slow', steps: [{ type: 'sleep', ms: 3000 }, { type: 'text', text: 'done' }] })}`)
      await until(counts, (c) => c.running === 1, 'the slow job running')
      const answers = await Promise.all(members.map(async (m) => ((await (await fetch(`${m.url}/queue`, { headers })).json()) as { stats: Record<string, unknown> }).stats))
      for (const stats of answers) expect(stats).toMatchObject({ maxConcurrency: 2, running: 1, queued: 0, parked: 3 })
    } finally {
      await db.end()
    }
  }, 60_000)
})
