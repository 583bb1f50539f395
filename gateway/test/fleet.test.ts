/**
 * Several gateway processes on one PostgreSQL. The lean run here uses 60 jobs; the
 * full 500-job run is `npm run fleet`.
 */
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { useFleet } from './fleet/fleet-fixture.ts'
import { startMember } from './fleet/fleet-member.ts'
import { runFleet } from './fleet/run-fleet.ts'
import { until } from './harness.ts'

describe('a fleet of gateway processes on one PostgreSQL', () => {
  it('runs 60 mixed jobs on 4 processes, one SIGKILLed holding claims: one terminal state each, maxConcurrency fleet-wide, webhooks in order', async () => {
    const report = await runFleet({ jobs: 60, processes: 4, maxConcurrency: 4, leaseMs: 3000, timeoutMs: 60_000 })
    expect(report.violations).toEqual([])
    expect(report.jobs).toBe(60)
    expect(report.killedWorker).toBeDefined()
    expect(report.reclaimed).toBeGreaterThanOrEqual(1)
    expect(report.parked).toBeGreaterThanOrEqual(20)
    expect(report.peakRunning).toBeLessThanOrEqual(4)
    expect(report.byStatus.succeeded + report.byStatus.failed).toBe(60)
  }, 120_000)
})

describe('kill -9 of a worker holding a claim', () => {
  const fleet = useFleet()
  const members = fleet.members

  it('is reclaimed by another process after its lease lapses and finishes once', async () => {
    const url = await fleet.database()
    const { token } = fleet
    const got: Array<{ type: string; error?: string }> = []
    const hook = await fleet.receiver<{ type: string; error?: string }>((event) => got.push(event))
    const options = (workerId: string) => ({ workerId, maxConcurrency: 2, leaseMs: 600, token })
    members.push(...await Promise.all([startMember(url, options('w1')), startMember(url, options('w2'))]))
    const slow = `scenario:${JSON.stringify({ name: 'slow', steps: [{ type: 'sleep', ms: 1500 }, { type: 'text', text: 'finished' }] })}`
    const res = await fetch(`${members[0].url}/jobs`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session: { prompt: slow }, attempts: 2, retryDelayMs: 10, webhook: { url: hook } }),
    })
    expect(res.status).toBe(201)
    const { job } = (await res.json()) as { job: { id: string } }
    const db = new pg.Client({ connectionString: url })
    await db.connect()
    try {
      const owner = async () => (await db.query('SELECT status, lease_owner FROM gateway_jobs WHERE id = $1', [job.id])).rows[0]
      const claimed = await until(owner, (r) => r.status === 'running' && r.lease_owner !== null, 'claimed')
      const holder = members.find((m) => m.workerId === claimed.lease_owner)!
      const rescuer = members.find((m) => m !== holder)!.workerId
      holder.child.kill('SIGKILL')
      holder.alive = false

      const done = await until(owner, (r) => r.status === 'succeeded', 'succeeded after the reclaim', 15_000)
      expect(done.lease_owner).toBe(rescuer)
      const history = (await db.query('SELECT from_status, to_status, worker FROM gateway_job_history WHERE job_id = $1 ORDER BY id', [job.id])).rows
      expect(history).toEqual([
        { from_status: null, to_status: 'queued', worker: null },
        { from_status: 'queued', to_status: 'running', worker: holder.workerId },
        { from_status: 'running', to_status: 'running', worker: rescuer }, // the reclaim
        { from_status: 'running', to_status: 'queued', worker: rescuer }, // the retry rule: attempt 1 failed
        { from_status: 'queued', to_status: 'running', worker: rescuer },
        { from_status: 'running', to_status: 'succeeded', worker: rescuer },
      ])
      const info = (await db.query('SELECT info FROM gateway_jobs WHERE id = $1', [job.id])).rows[0].info
      expect(info).toMatchObject({ attempt: 2, status: 'succeeded', result: { result: 'finished' } })
      await until(async () => got.filter((e) => e.type === 'job_completed').length, (n) => n === 1, 'job_completed delivered')
      const rescued = got.map((e) => e.type).slice(got.findIndex((e) => e.type === 'job_retrying'))
      expect(rescued).toEqual(['job_retrying', 'job_started', 'job_progress', 'job_completed'])
      expect(got.find((e) => e.type === 'job_retrying')?.error).toMatch(/worker lost/)
    } finally {
      await db.end()
    }
  }, 60_000)
})
