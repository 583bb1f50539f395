/**
 * No database error ends a gateway process. Two gateway processes run
 * succeeding, failing-and-retried and parking jobs while every one of their PostgreSQL
 * connections is terminated by the server (pg_terminate_backend, as a failover or an operator
 * does), four times. Each failed call fails its one operation and is reported; the processes
 * stay up, reconnect, and every job still reaches exactly one terminal state.
 */
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { until } from '../harness.ts'
import { useFleet } from './fleet-fixture.ts'
import { startMember } from './fleet-member.ts'

const SUCCEED = `scenario:${JSON.stringify({ name: 'work', steps: [{ type: 'sleep', ms: 30 }, { type: 'text', text: 'done' }] })}`
const PROMPTS = [SUCCEED, 'scenario:deferred', 'scenario:model-error']
const TERMINAL = ['succeeded', 'failed', 'canceled']

describe('database connections killed under a running fleet', () => {
  const fleet = useFleet()
  const members = fleet.members

  it('no process exits; every job ends once', async () => {
    const url = await fleet.database()
    const { token } = fleet
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    // A parked job's result goes to either process, again while it is not accepted (a 404 until
    // the park is stored, a 5xx while the database is away).
    // What each parked job's result got, last (for the failure message: a job left parked).
    const answers = new Map<string, string>()
    const answer = async (executionId: string) => {
      for (let i = 0; i < 400; i++) {
        const m = members[i % members.length]
        const res = await fetch(`${m.url}/executions/${executionId}/result`, { method: 'POST', headers, body: JSON.stringify({ status: 'ok', output: { type: 'text', value: 'ok' } }) }).catch(() => undefined)
        answers.set(executionId, `${i + 1} tries, last ${res?.status ?? 'no answer'}${res?.status === 200 ? ` ${await res.text()}` : ''}`)
        if (res?.status === 200) return
        await new Promise((r) => setTimeout(r, 50))
      }
    }
    const webhook = { url: await fleet.receiver<{ type: string; executionId?: string }>((event) => {
      if (event.type === 'job_parked' && event.executionId) void answer(event.executionId)
    }) }
    const options = (workerId: string) => ({ workerId, maxConcurrency: 3, leaseMs: 1500, token })
    members.push(...await Promise.all([startMember(url, options('k1')), startMember(url, options('k2'))]))
    const reports = new Map(members.map((m) => [m.workerId, [] as string[]]))
    for (const m of members) m.child.stderr!.on('data', (b) => reports.get(m.workerId)!.push(String(b)))

    const ids: string[] = []
    for (let i = 0; i < 18; i++) {
      const res = await fetch(`${members[i % 2].url}/jobs`, { method: 'POST', headers, body: JSON.stringify({ session: { prompt: PROMPTS[i % 3] }, attempts: 2, retryDelayMs: 50, webhook }) })
      expect(res.status).toBe(201)
      ids.push(((await res.json()) as { job: { id: string } }).job.id)
    }
    const db = new pg.Client({ connectionString: url })
    await db.connect()
    try {
      const terminal = async () => Number((await db.query(`SELECT count(*) AS n FROM gateway_jobs WHERE status = ANY($1)`, [TERMINAL])).rows[0].n)
      let killed = 0
      for (let round = 0; round < 4; round++) {
        await new Promise((r) => setTimeout(r, 150))
        const { rows } = await db.query(`SELECT count(*)::int AS n FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend') k`)
        killed += rows[0].n
      }
      expect(killed).toBeGreaterThan(0)
      await until(terminal, (n) => n === ids.length, 'every job terminal', 60_000).catch(async (err: Error) => {
        // Which jobs, in which state, with which events and answers: a liveness hole or a slow run.
        const stuck = (await db.query(`SELECT j.id, j.status, j.lease_owner, j.info->>'attempt' AS attempt, j.info->>'parkedExecutionId' AS parked_on,
          (SELECT json_agg(json_build_array(h.from_status, h.to_status, h.worker) ORDER BY h.id) FROM gateway_job_history h WHERE h.job_id = j.id) AS history,
          (SELECT json_agg(json_build_array(o.seq, o.event->>'type', o.attempts) ORDER BY o.seq) FROM gateway_job_outbox o WHERE o.job_id = j.id) AS undelivered
          FROM gateway_jobs j WHERE NOT (j.status = ANY($1))`, [TERMINAL])).rows
        const detail = stuck.map((row) => ({ ...row, answer: row.parked_on ? answers.get(row.parked_on) ?? 'no job_parked delivered' : undefined }))
        throw new Error(`${err.message}: ${JSON.stringify(detail)}; alive: ${members.map((m) => `${m.workerId} ${m.child.exitCode === null}`).join(', ')}`)
      })
      for (const m of members) expect(m.child.exitCode, `${m.workerId} exited: ${reports.get(m.workerId)!.join('')}`).toBeNull()
      // The failures were real and reported, not absent.
      expect([...reports.values()].flat().join('')).toMatch(/terminat|Connection/i)
      const history = (await db.query(`SELECT job_id, count(*)::int AS n FROM gateway_job_history WHERE to_status = ANY($1) GROUP BY job_id`, [TERMINAL])).rows
      expect(history).toHaveLength(ids.length)
      expect(history.every((h) => h.n === 1)).toBe(true)
      // Both processes still serve requests.
      for (const m of members) {
        const res = await fetch(`${m.url}/queue`, { headers })
        expect({ status: res.status, body: await res.json() }, `${m.workerId}: ${reports.get(m.workerId)!.join('').slice(-2000)}`).toMatchObject({ status: 200, body: { stats: { queued: 0, running: 0 } } })
      }
    } finally {
      await db.end()
    }
  }, 150_000) // setup under load (a PostgreSQL, two gateways) plus the 60 s the jobs get

  it('a request while the database is away answers 503 database_unavailable, never 500, and the process stays up', async () => {
    const url = await fleet.database()
    const { token } = fleet
    const headers = { authorization: `Bearer ${token}` }
    members.push(await startMember(url, { workerId: 'a1', maxConcurrency: 1, leaseMs: 1500, token }))
    expect((await fetch(`${members[0].url}/queue`, { headers })).status).toBe(200)
    await fleet.stopDatabase()
    for (const path of ['/queue', '/jobs', '/jobs/00000000-0000-4000-8000-000000000000']) {
      const res = await fetch(`${members[0].url}${path}`, { headers })
      expect({ path, status: res.status, body: await res.json() }).toEqual({ path, status: 503, body: { error: 'the database is unavailable; try again', code: 'database_unavailable' } })
    }
    expect(members[0].child.exitCode).toBeNull()
  }, 60_000)
})
