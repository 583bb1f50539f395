/**
 * Fencing with real processes: a gateway process holding a claim is
 * stopped (SIGSTOP) until its lease lapses and another process has reclaimed the job, retried it
 * and completed it; continued (SIGCONT), the stalled process finds its claim gone and writes and
 * sends nothing for its attempt (no completion, no progress): one job_completed, one terminal
 * transition, the rescuer's row.
 * The lease is 600 ms (an option); the test waits on the database, never on a fixed sleep.
 */
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { until } from '../harness.ts'
import { useFleet } from './fleet-fixture.ts'
import { startMember } from './fleet-member.ts'

describe('a claimant stalled past its lease', () => {
  const fleet = useFleet()
  const members = fleet.members

  it('cannot complete the job another process reclaimed, nor send its job_completed', async () => {
    const url = await fleet.database()
    const { token } = fleet
    const got: Array<{ type: string; job: { attempt: number } }> = []
    const hook = await fleet.receiver<{ type: string; job: { attempt: number } }>((event) => got.push(event))
    const options = (workerId: string) => ({ workerId, maxConcurrency: 2, leaseMs: 600, token })
    members.push(...await Promise.all([startMember(url, options('f1')), startMember(url, options('f2'))]))
    const reports = new Map<string, string>()
    for (const m of members) {
      reports.set(m.workerId, '')
      m.child.stderr!.on('data', (b) => reports.set(m.workerId, reports.get(m.workerId) + String(b)))
    }
    // Long enough that the stalled run is still in its turn when stopped.
    const slow = `scenario:${JSON.stringify({ name: 'slow', steps: [{ type: 'sleep', ms: 400 }, { type: 'text', text: 'finished' }] })}`
    const res = await fetch(`${members[0].url}/jobs`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session: { prompt: slow }, attempts: 2, retryDelayMs: 10, webhook: { url: hook } }),
    })
    expect(res.status).toBe(201)
    const { job } = (await res.json()) as { job: { id: string } }
    const db = new pg.Client({ connectionString: url })
    await db.connect()
    try {
      const row = async () => (await db.query(`SELECT status, lease_owner, (info->>'attempt')::int AS attempt FROM gateway_jobs WHERE id = $1`, [job.id])).rows[0]
      const claimed = await until(row, (r) => r.status === 'running' && r.lease_owner !== null && got.some((e) => e.type === 'job_started'), 'claimed and started')
      const stalled = members.find((m) => m.workerId === claimed.lease_owner)!
      const rescuer = members.find((m) => m !== stalled)!
      stalled.child.kill('SIGSTOP')
      // The rescuer reclaims (worker lost), retries and completes attempt 2 while the other is stopped.
      const done = await until(row, (r) => r.status === 'succeeded', 'attempt 2 completed by the rescuer', 20_000)
      expect(done).toEqual({ status: 'succeeded', lease_owner: rescuer.workerId, attempt: 2 })
      const beforeCont = got.length
      stalled.child.kill('SIGCONT')
      // The stalled process learns it lost the claim (its heartbeat's check, or a fenced write).
      await until(async () => reports.get(stalled.workerId)!, (text) => text.includes(`job ${job.id} attempt 1: this process no longer holds its claim`), 'the stalled process stopped its run', 10_000)
      expect(stalled.child.exitCode).toBeNull()
      expect(await row()).toEqual(done)
      const history = (await db.query('SELECT from_status, to_status, worker FROM gateway_job_history WHERE job_id = $1 ORDER BY id', [job.id])).rows
      expect(history.filter((h) => ['succeeded', 'failed', 'canceled'].includes(h.to_status))).toEqual([{ from_status: 'running', to_status: 'succeeded', worker: rescuer.workerId }])
      await until(async () => got.filter((e) => e.type === 'job_completed').length, (n) => n === 1, 'job_completed delivered')
      // Give a stale delivery the time the rescuer's took: still exactly one, for attempt 2.
      await new Promise((r) => setTimeout(r, 300))
      expect(got.filter((e) => e.type === 'job_completed').map((e) => e.job.attempt)).toEqual([2])
      expect(got.filter((e) => e.type === 'job_retrying').length).toBe(1)
      // Nothing at all for the stalled attempt once it continued: no progress of its turn either.
      expect(got.slice(beforeCont).filter((e) => e.job.attempt === 1)).toEqual([])
    } finally {
      await db.end()
    }
  }, 60_000)
})
