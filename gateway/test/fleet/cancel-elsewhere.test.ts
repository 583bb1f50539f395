/**
 * A cancel that reaches a process not running the job (any load balancer sends `DELETE /jobs/:id`
 * anywhere): the job ends `canceled` at once, whichever process answers, and the process that ran
 * it stops its turn on its next heartbeat without writing or sending anything more (job-status.12,
 * job-status.8): one `job_completed`, canceled, in the job's webhook stream.
 */
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { until } from '../harness.ts'
import { useFleet } from './fleet-fixture.ts'
import { startMember, type Member } from './fleet-member.ts'

const LONG = `scenario:${JSON.stringify({ name: 'long', steps: [{ type: 'text', text: 'working' }, { type: 'sleep', ms: 60_000 }, { type: 'text', text: 'done' }] })}`

describe('a job canceled through a process that does not run it', () => {
  const fleet = useFleet()

  it('ends canceled at once everywhere; the holder stops the run and sends nothing after', async () => {
    const url = await fleet.database()
    const { token, members } = fleet
    const events: Array<{ type: string; status?: string }> = []
    const webhook = { url: await fleet.receiver<{ type: string; job?: { status?: string } }>((event) => events.push({ type: event.type, status: event.job?.status })) }
    // A short lease: the holder's heartbeat (every leaseMs / 3) notices the cancel within a second.
    const options = (workerId: string) => ({ workerId, maxConcurrency: 2, leaseMs: 3000, token })
    members.push(...await Promise.all([startMember(url, options('c1')), startMember(url, options('c2'))]))
    const call = async (m: Member, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${m.url}${path}`, {
        method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
      })
      return { status: res.status, body: (await res.json().catch(() => undefined)) as any }
    }

    const created = await call(members[0], 'POST', '/jobs', { session: { prompt: LONG }, attempts: 3, webhook })
    expect(created.status).toBe(201)
    const id = created.body.job.id as string
    const running = await until(() => call(members[0], 'GET', `/jobs/${id}`), (r) => r.body.job.status === 'running' && typeof r.body.job.sessionId === 'string', 'the job running')
    const db = new pg.Client({ connectionString: url })
    await db.connect()
    try {
      const owner = await until(async () => (await db.query<{ lease_owner: string | null }>('SELECT lease_owner FROM gateway_jobs WHERE id = $1', [id])).rows[0]?.lease_owner, (o) => !!o, 'a lease owner')
      const holder = members.find((m) => m.workerId === owner)!
      const other = members.find((m) => m.workerId !== owner)!

      const canceled = await call(other, 'DELETE', `/jobs/${id}`)
      expect(canceled.status).toBe(200)
      expect(canceled.body.job).toMatchObject({ id, status: 'canceled', error: 'canceled' })
      expect((await call(holder, 'GET', `/jobs/${id}`)).body.job.status).toBe('canceled')
      // The holder's run stops: its session leaves the running state (closed, or gone).
      const sessionId = running.body.job.sessionId as string
      await until(() => call(holder, 'GET', `/sessions/${sessionId}`), (r) => r.status === 404 || r.body.session.status !== 'running', 'the holder stopped the turn')
      // A second cancel anywhere answers the same terminal job.
      expect((await call(holder, 'DELETE', `/jobs/${id}`)).body.job.status).toBe('canceled')
      // The run is stopped, so whatever it would have written it tried already: nothing landed.
      const history = await db.query<{ to_status: string }>('SELECT to_status FROM gateway_job_history WHERE job_id = $1 ORDER BY id', [id])
      expect(history.rows.map((r) => r.to_status)).toEqual(['queued', 'running', 'canceled'])
      await until(async () => events.filter((e) => e.type === 'job_completed').length, (n) => n >= 1, 'job_completed delivered')
      await until(async () => (await db.query('SELECT 1 FROM gateway_job_outbox WHERE job_id = $1', [id])).rowCount, (n) => n === 0, 'every event delivered')
      expect(events.filter((e) => e.type === 'job_completed')).toEqual([{ type: 'job_completed', status: 'canceled' }])
      expect(events.some((e) => e.type === 'job_retrying')).toBe(false)
      expect((await call(other, 'GET', `/jobs/${id}`)).body.job).toMatchObject({ status: 'canceled', attempt: 1 })
    } finally {
      await db.end()
    }
  }, 60_000)
})
