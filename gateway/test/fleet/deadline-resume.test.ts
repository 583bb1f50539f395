/**
 * A deadline resume in a process other than the dead parker (the soak's open defect):
 * the job must reach a terminal state (job-status.6 then job-status.8), never stay `running` under
 * the resumer's renewed lease. The resumer's rebuilt session re-arms its own watchdog for the
 * lapsed execution, which fires at once: when the turn it restarts ended before the queue started
 * watching the rebuilt session, the job never saw its turn_result. The surviving process here
 * takes 600 ms for every stored-session delete (a test hook), so that window, a few milliseconds in
 * the soak, is always open. Also with the resumer stalled (SIGSTOP) past its lease before.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { until } from '../harness.ts'
import { startPostgresServer, type PostgresServer } from '../postgres-server.ts'
import type { FleetGatewayOptions } from './fleet-gateway.ts'
import { startMember, type Member } from './fleet-member.ts'

const TERMINAL = ['succeeded', 'failed', 'canceled']
const LEASE_MS = 1200
/** A job that holds its claim past a stall: one model leg that sleeps. */
const LONG = `scenario:${JSON.stringify({ name: 'long', steps: [{ type: 'sleep', ms: 5000 }, { type: 'text', text: 'late' }] })}`

describe('a deadline resumed by another process after its parker died', () => {
  let server: PostgresServer | undefined
  let db: pg.Client | undefined
  const members: Member[] = []
  afterEach(async () => {
    for (const m of members.splice(0)) {
      if (m.child.exitCode === null && m.child.signalCode === null) {
        m.child.kill('SIGCONT')
        m.child.kill('SIGKILL')
      }
    }
    await db?.end()
    db = undefined
    await server?.stop()
    server = undefined
  })

  async function setUp() {
    server = await startPostgresServer()
    const url = await server.createDatabase()
    const token = randomBytes(8).toString('hex')
    db = new pg.Client({ connectionString: url })
    await db.connect()
    const options = (workerId: string): FleetGatewayOptions => ({
      workerId, maxConcurrency: 2, leaseMs: LEASE_MS, token, shortDeadlineMs: 2500, expiredGraceMs: 0, deadlineSweepMs: 100, slowSessionDeleteMs: 600,
    })
    const submit = async (m: Member, prompt: string) => {
      const res = await fetch(`${m.url}/jobs`, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ session: { prompt } }),
      })
      expect(res.status).toBe(201)
      return ((await res.json()) as { job: { id: string } }).job.id
    }
    const row = async (id: string) => (await db!.query(`SELECT status, lease_owner, info FROM gateway_jobs WHERE id = $1`, [id])).rows[0]
    const history = async (id: string) => (await db!.query('SELECT from_status, to_status, worker FROM gateway_job_history WHERE job_id = $1 ORDER BY id', [id])).rows
    return { url, options, submit, row, history }
  }

  async function expectResumedToTheEnd(jobId: string, resumer: Member, row: (id: string) => Promise<any>, history: (id: string) => Promise<any[]>) {
    const done = await until(() => row(jobId), (r) => TERMINAL.includes(r.status), `job ${jobId} terminal after its deadline`, 20_000)
    // The timeout is the tool's output and the turn goes on to its result (the deferred-short scenario).
    expect(done).toMatchObject({ status: 'succeeded', lease_owner: resumer.workerId })
    expect(done.info.result.result).toMatch(/^After the deadline: /)
    expect((await history(jobId)).slice(-2)).toEqual([
      { from_status: 'parked', to_status: 'running', worker: resumer.workerId },
      { from_status: 'running', to_status: 'succeeded', worker: resumer.workerId },
    ])
    expect(resumer.child.exitCode).toBeNull()
  }

  it('the job resumed on its deadline by the surviving process completes there', async () => {
    const { url, options, submit, row, history } = await setUp()
    members.push(...await Promise.all([startMember(url, options('d1')), startMember(url, options('d2'))]))
    const jobId = await submit(members[0], 'scenario:deferred-short')
    const parked = await until(() => row(jobId), (r) => r.status === 'parked', 'the job parked')
    const parker = members.find((m) => m.workerId === parked.lease_owner)!
    const resumer = members.find((m) => m !== parker)!
    parker.child.kill('SIGKILL')
    await expectResumedToTheEnd(jobId, resumer, row, history)
  }, 60_000)

  it('also when the resumer was stalled past its lease before (its lapsed claim reclaimed by the parker)', async () => {
    const { url, options, submit, row, history } = await setUp()
    // The resumer-to-be alone first, so it holds the long job's claim when it is stopped.
    const resumer = await startMember(url, options('s2'))
    members.push(resumer)
    const held = await submit(resumer, LONG)
    await until(() => row(held), (r) => r.status === 'running' && r.lease_owner === 's2', 'the long job claimed by s2')
    const parker = await startMember(url, options('s1'))
    members.push(parker)
    resumer.child.kill('SIGSTOP')
    // While s2 is stopped, s1 takes the deadline job, parks it, and reclaims s2's lapsed claim.
    const jobId = await submit(parker, 'scenario:deferred-short')
    await until(() => row(jobId), (r) => r.status === 'parked' && r.lease_owner === 's1', 'the deadline job parked by s1')
    await until(() => row(held), (r) => TERMINAL.includes(r.status), 'the stalled claim reclaimed', 20_000)
    resumer.child.kill('SIGCONT')
    parker.child.kill('SIGKILL')
    await expectResumedToTheEnd(jobId, resumer, row, history)
    // The stalled claim ended once, as worker lost, and the stalled process wrote nothing after it.
    const heldHistory = await history(held)
    expect(heldHistory.filter((h) => TERMINAL.includes(h.to_status))).toEqual([{ from_status: 'running', to_status: 'failed', worker: 's1' }])
    expect((await row(held)).info.error).toMatch(/^worker lost/)
  }, 60_000)
})
