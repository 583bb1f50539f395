/**
 * Fleet-wide timers: a park's deadline and a job's maxParkedDurationMs
 * fire after the process that parked the job was SIGKILLed, in the process still alive, without
 * any process starting after the park was written. Deadline 1.5 s, cap 1.5 s, lease 900 ms
 * (options); the test waits on the database.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { until } from '../harness.ts'
import { startPostgresServer, type PostgresServer } from '../postgres-server.ts'
import type { FleetGatewayOptions } from './fleet-gateway.ts'
import { startMember, type Member } from './fleet-member.ts'

const TERMINAL = ['succeeded', 'failed', 'canceled']

describe('timers of a park whose parker died', () => {
  let server: PostgresServer | undefined
  const members: Member[] = []
  afterEach(async () => {
    for (const m of members.splice(0)) if (m.child.exitCode === null) m.child.kill('SIGKILL')
    await server?.stop()
    server = undefined
  })

  async function parkThenKillParker(extra: Partial<FleetGatewayOptions>) {
    server = await startPostgresServer()
    const url = await server.createDatabase()
    const token = randomBytes(8).toString('hex')
    const options = (workerId: string): FleetGatewayOptions => ({ workerId, maxConcurrency: 2, leaseMs: 900, token, expiredGraceMs: 0, deadlineSweepMs: 100, ...extra })
    // Both processes are up before the park is written: neither re-arms its timers at boot.
    members.push(...await Promise.all([startMember(url, options('t1')), startMember(url, options('t2'))]))
    const res = await fetch(`${members[0].url}/jobs`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session: { prompt: 'scenario:deferred' } }),
    })
    expect(res.status).toBe(201)
    const { job } = (await res.json()) as { job: { id: string } }
    const db = new pg.Client({ connectionString: url })
    await db.connect()
    const row = async () => (await db.query(`SELECT status, lease_owner, info FROM gateway_jobs WHERE id = $1`, [job.id])).rows[0]
    const parked = await until(row, (r) => r.status === 'parked', 'the job parked')
    const parker = members.find((m) => m.workerId === parked.lease_owner)!
    const survivor = members.find((m) => m !== parker)!
    parker.child.kill('SIGKILL')
    parker.alive = false
    return { db, row, job, parker, survivor }
  }

  it('a deadline fires in the surviving process: the job resumes there with the timeout as tool output and completes', async () => {
    const { db, row, job, survivor } = await parkThenKillParker({ deferredExpiresInMs: 1500 })
    try {
      const done = await until(row, (r) => TERMINAL.includes(r.status), 'the job terminal after its deadline', 20_000)
      expect(done).toMatchObject({ status: 'succeeded', lease_owner: survivor.workerId })
      const history = (await db.query('SELECT from_status, to_status, worker FROM gateway_job_history WHERE job_id = $1 ORDER BY id', [job.id])).rows
      expect(history.slice(-2)).toEqual([
        { from_status: 'parked', to_status: 'running', worker: survivor.workerId },
        { from_status: 'running', to_status: 'succeeded', worker: survivor.workerId },
      ])
      expect(survivor.child.exitCode).toBeNull()
    } finally {
      await db.end()
    }
  }, 60_000)

  it('maxParkedDurationMs fires in the surviving process: the attempt fails there, once', async () => {
    const { db, row, job, survivor } = await parkThenKillParker({ maxParkedDurationMs: 1500 })
    try {
      const done = await until(row, (r) => TERMINAL.includes(r.status), 'the job terminal after its parked cap', 20_000)
      expect(done).toMatchObject({ status: 'failed', lease_owner: survivor.workerId, info: { error: 'job exceeded max parked duration (1500ms)' } })
      const history = (await db.query('SELECT from_status, to_status, worker FROM gateway_job_history WHERE job_id = $1 ORDER BY id', [job.id])).rows
      expect(history.at(-1)).toEqual({ from_status: 'parked', to_status: 'failed', worker: survivor.workerId })
      expect(history.filter((h) => TERMINAL.includes(h.to_status))).toHaveLength(1)
      expect((await db.query('SELECT count(*)::int AS n FROM gateway_sessions')).rows[0].n).toBe(0) // the park went with it
    } finally {
      await db.end()
    }
  }, 60_000)
})
