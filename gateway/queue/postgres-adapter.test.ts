import { describe, expect, it } from 'vitest'
import pg from 'pg'
import { usePostgres } from '../test/postgres-fixture.ts'
import { describeQueueAdapterContract } from './adapter-contract.ts'
import { createPostgresQueueAdapter, type PostgresQueueAdapter, type PostgresQueueOptions } from './postgres-adapter.ts'
import { SCHEMA_VERSION } from '../postgres/migrations.ts'

const postgres = usePostgres()

async function adapter(options: Partial<PostgresQueueOptions> = {}, url?: string): Promise<PostgresQueueAdapter> {
  const a = await createPostgresQueueAdapter({ url: url ?? await postgres.database(), poolSize: 4, ...options })
  postgres.track(a)
  return a
}

describeQueueAdapterContract('postgres', () => adapter())

function job(id: string, status: 'queued' | 'parked' = 'queued') {
  return {
    info: { id, status, cwd: '', prompt: 'p', createdAt: 0, attempt: 1, maxAttempts: 1, usage: { tokens: 0, totalCostUsd: 0, numTurns: 0 } },
    request: { session: { cwd: '', prompt: 'p' } },
  }
}

describe('PostgresQueueAdapter across processes', () => {
  it('migrates once when several processes start together, and again as a no-op', async () => {
    const url = await postgres.database()
    await Promise.all([1, 2, 3, 4].map(() => adapter({}, url)))
    await adapter({}, url)
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    const { rows } = await client.query('SELECT version FROM gateway_schema_version')
    await client.end()
    expect(rows).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => ({ version: i + 1 })))
  })

  it('never hands one job to two workers and counts maxRunning over all of them', async () => {
    const url = await postgres.database()
    const workers = await Promise.all([1, 2, 3].map(() => adapter({}, url)))
    for (let i = 0; i < 12; i++) await workers[0].add(job(`j${i}`))
    const claims = await Promise.all(workers.flatMap((w) => [1, 2, 3].map(() => w.claimNext(Date.now(), { maxRunning: 5 }))))
    const ids = claims.filter((c) => c !== undefined).map((c) => c!.info.id)
    expect(ids).toHaveLength(5)
    expect(new Set(ids).size).toBe(5)
    await workers[1].update(ids[0], { status: 'succeeded', finishedAt: 1 })
    expect((await workers[2].claimNext(Date.now(), { maxRunning: 5 }))?.info.id).toBeDefined()
    expect(await workers[2].claimNext(Date.now(), { maxRunning: 5 })).toBeUndefined()
  })

  it('resumes a parked job in one process only, and only while the fleet has a free slot', async () => {
    const url = await postgres.database()
    const [a, b] = await Promise.all([adapter({}, url), adapter({}, url)])
    await a.add(job('p', 'parked'))
    await a.add(job('q'))
    await a.claimNext(Date.now(), { maxRunning: 1 })
    expect(await b.resumeParked!('p', { maxRunning: 1 })).toBe('full')
    await a.update('q', { status: 'succeeded', finishedAt: 1 })
    expect(await b.resumeParked!('p', { maxRunning: 1 })).toBe('resumed')
    expect((await a.get('p'))?.info.status).toBe('running')
    expect(await a.resumeParked!('p', { maxRunning: 5 })).toBe('taken') // exactly one process resumes it
  })

  it('lets another worker reclaim a claim whose heartbeat stopped, once', async () => {
    const url = await postgres.database()
    const dead = await adapter({ leaseMs: 300 }, url)
    const alive = await adapter({ leaseMs: 300 }, url)
    const other = await adapter({ leaseMs: 300 }, url)
    await alive.add(job('held'))
    await alive.add(job('lost'))
    expect((await alive.claimNext(Date.now()))?.info.id).toBe('held')
    expect((await dead.claimNext(Date.now()))?.info.id).toBe('lost')
    await dead.close() // no more heartbeats: its claim lapses
    await new Promise((r) => setTimeout(r, 700))
    const [x, y] = await Promise.all([alive.reclaimExpired!(Date.now()), other.reclaimExpired!(Date.now())])
    expect([...x, ...y].map((r) => r.info.id)).toEqual(['lost'])
  })

  it('wakes an idle worker through LISTEN/NOTIFY when another adds a job', async () => {
    const url = await postgres.database()
    const [idle, busy] = await Promise.all([adapter({}, url), adapter({}, url)])
    const woke = new Promise<void>((resolve) => idle.onWork!(resolve))
    await busy.add(job('new'))
    await woke
    expect((await idle.claimNext(Date.now()))?.info.id).toBe('new')
  })

  it('wakes a worker refused for want of a fleet-wide slot when another process frees one', async () => {
    const url = await postgres.database()
    const [waiting, running] = await Promise.all([adapter({}, url), adapter({}, url)])
    await running.add(job('a'))
    await running.add(job('b'))
    expect((await running.claimNext(Date.now(), { maxRunning: 1 }))?.info.id).toBe('a')
    expect(await waiting.claimNext(Date.now(), { maxRunning: 1 })).toBeUndefined() // full: waits for a release
    const woke = new Promise<void>((resolve) => waiting.onWork!(resolve))
    await running.update('a', { status: 'succeeded', finishedAt: 1 })
    await woke
    expect((await waiting.claimNext(Date.now(), { maxRunning: 1 }))?.info.id).toBe('b')
  })

  it('records every transition in the history table', async () => {
    const url = await postgres.database()
    const a = await adapter({ workerId: 'w1' }, url)
    await a.add(job('h'))
    await a.claimNext(Date.now())
    await a.update('h', { status: 'succeeded', finishedAt: 1 })
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    const { rows } = await client.query('SELECT from_status, to_status, worker FROM gateway_job_history ORDER BY id')
    expect(rows).toEqual([
      { from_status: null, to_status: 'queued', worker: null },
      { from_status: 'queued', to_status: 'running', worker: 'w1' },
      { from_status: 'running', to_status: 'succeeded', worker: 'w1' },
    ])
    // A heartbeat or a non-status write adds no row; prune takes the job's history with it.
    await a.update('h', { sdkSessionId: 's' })
    expect((await client.query('SELECT count(*)::int AS n FROM gateway_job_history')).rows[0].n).toBe(3)
    expect(await a.prune(0, 2)).toBe(1)
    expect((await client.query('SELECT count(*)::int AS n FROM gateway_job_history')).rows[0].n).toBe(0)
    await client.end()
  })

  it('keeps the columns read from info (status, next run, finish, session) in step with every write of it', async () => {
    const url = await postgres.database()
    const a = await adapter({ workerId: 'w1' }, url)
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    const columns = async () => (await client.query('SELECT status, next_run_at::float8 AS next, finished_at::float8 AS finished, session_id FROM gateway_jobs WHERE id = $1', ['c'])).rows[0]
    await a.add({ ...job('c'), info: { ...job('c').info, nextRunAt: 1.6 } })
    expect(await columns()).toEqual({ status: 'queued', next: 2, finished: null, session_id: null })
    await a.claimNext(10)
    await a.update('c', { sessionId: 's1', startedAt: 5 })
    expect(await columns()).toEqual({ status: 'running', next: 2, finished: null, session_id: 's1' })
    await client.query(`UPDATE gateway_jobs SET lease_until = now() WHERE id = 'c'`) // a heartbeat: info unchanged
    expect(await columns()).toEqual({ status: 'running', next: 2, finished: null, session_id: 's1' })
    await a.completeAndClaim('c', { status: 'succeeded', nextRunAt: undefined, sessionId: undefined, finishedAt: 7.4 }, 10, { maxRunning: 1 })
    expect(await columns()).toEqual({ status: 'succeeded', next: null, finished: 7, session_id: null })
    await client.end()
  })
})

describe('PostgresQueueAdapter completeAndClaim', () => {
  it('ends a job and claims the next in one step, each recorded as its own transition', async () => {
    const url = await postgres.database()
    const a = await adapter({ workerId: 'w1' }, url)
    await a.add(job('first'))
    await a.add(job('second'))
    await a.claimNext(Date.now(), { maxRunning: 1 })
    const { completed, claimed } = await a.completeAndClaim('first', { status: 'succeeded', finishedAt: 5, nextRunAt: undefined }, Date.now(), { maxRunning: 1 })
    expect(completed).toMatchObject({ id: 'first', status: 'succeeded', finishedAt: 5 })
    expect(claimed?.info).toMatchObject({ id: 'second', status: 'running' })
    expect((await a.get('first'))?.info.status).toBe('succeeded') // the job's record stays readable after it ends
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    const { rows } = await client.query('SELECT job_id, from_status, to_status, worker FROM gateway_job_history WHERE from_status IS NOT NULL ORDER BY id')
    await client.end()
    expect(rows).toEqual([
      { job_id: 'first', from_status: 'queued', to_status: 'running', worker: 'w1' },
      { job_id: 'first', from_status: 'running', to_status: 'succeeded', worker: 'w1' },
      { job_id: 'second', from_status: 'queued', to_status: 'running', worker: 'w1' },
    ])
    // Nothing left to claim: the completion alone.
    const last = await a.completeAndClaim('second', { status: 'failed', finishedAt: 6 }, Date.now(), { maxRunning: 1 })
    expect(last.completed?.status).toBe('failed')
    expect(last.claimed).toBeUndefined()
    // Ordinary writes after it are recorded by the trigger again (the function's setting was local to its transaction).
    await a.add(job('third'))
    await a.claimNext(Date.now())
    await a.update('third', { status: 'canceled', finishedAt: 7 })
    const after = new pg.Client({ connectionString: url })
    await after.connect()
    const tail = await after.query('SELECT job_id, from_status, to_status FROM gateway_job_history WHERE id > $1 ORDER BY id', [3 + 2]) // 3 above, 2 inserts
    await after.end()
    expect(tail.rows).toEqual([
      { job_id: 'second', from_status: 'running', to_status: 'failed' },
      { job_id: 'third', from_status: null, to_status: 'queued' },
      { job_id: 'third', from_status: 'queued', to_status: 'running' },
      { job_id: 'third', from_status: 'running', to_status: 'canceled' },
    ])
  })

  it('far from the fleet-wide limit, hands distinct jobs to processes completing at the same moment', async () => {
    const url = await postgres.database()
    const workers = await Promise.all([1, 2, 3, 4].map(() => adapter({}, url)))
    for (let i = 0; i < 12; i++) await workers[0].add(job(`j${i}`))
    const limits = { maxRunning: 10_000 } // above the running count plus max_connections: claims run side by side
    const first = await Promise.all(workers.map((w) => w.claimNext(Date.now(), limits)))
    const next = await Promise.all(workers.map((w, i) => w.completeAndClaim(first[i]!.info.id, { status: 'succeeded', finishedAt: 1 }, Date.now(), limits)))
    const again = await Promise.all(workers.map((w, i) => w.completeAndClaim(next[i].claimed!.info.id, { status: 'succeeded', finishedAt: 2 }, Date.now(), limits)))
    const ids = [...first.map((c) => c!.info.id), ...next.map((r) => r.claimed!.info.id), ...again.map((r) => r.claimed!.info.id)]
    expect(new Set(ids).size).toBe(12)
    expect(next.every((r) => r.completed?.status === 'succeeded')).toBe(true)
    expect((await workers[0].list()).filter((r) => r.info.status === 'running')).toHaveLength(4)
  })

  it('near a limit above max_connections, still claims exactly: the freed slot goes to the next job, never one past the limit', async () => {
    const url = await postgres.database()
    const a = await adapter({}, url)
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    const maxConnections = Number((await client.query('SHOW max_connections')).rows[0].max_connections)
    await client.end()
    for (const id of ['a', 'b', 'c', 'd']) await a.add(job(id))
    const limits = { maxRunning: 2 }
    await a.claimNext(Date.now(), limits)
    await a.claimNext(Date.now(), limits)
    // The end's claim is taken under the exclusive claim lock whatever the limit (migration 13).
    const r = await a.completeAndClaim('a', { status: 'succeeded', finishedAt: 1 }, Date.now(), { maxRunning: maxConnections + 1 })
    expect(r.completed?.status).toBe('succeeded')
    expect(r.claimed?.info.id).toBe('c')
    // At the limit: the end frees one slot and claims one job, never two.
    const at = await a.completeAndClaim('b', { status: 'succeeded', finishedAt: 2 }, Date.now(), limits)
    expect(at.claimed?.info.id).toBe('d')
    expect((await a.list()).filter((j) => j.info.status === 'running').map((j) => j.info.id)).toEqual(['c', 'd'])
  })

  it('claims nothing while the fleet is full, and a release elsewhere then wakes the refused process', async () => {
    const url = await postgres.database()
    const [mine, other] = await Promise.all([adapter({}, url), adapter({}, url)])
    for (const id of ['a', 'b', 'c', 'd']) await mine.add(job(id))
    await mine.claimNext(Date.now(), { maxRunning: 2 })
    await other.claimNext(Date.now(), { maxRunning: 2 })
    // A fleet limit lowered to 1 while two run: mine's job ends, the other still runs, so no claim.
    const refused = await mine.completeAndClaim('a', { status: 'succeeded', finishedAt: 1 }, Date.now(), { maxRunning: 1 })
    expect(refused.completed?.status).toBe('succeeded')
    expect(refused.claimed).toBeUndefined()
    expect((await mine.get('c'))?.info.status).toBe('queued')
    const woke = new Promise<void>((resolve) => mine.onWork!(resolve))
    const handed = await other.completeAndClaim('b', { status: 'succeeded', finishedAt: 2 }, Date.now(), { maxRunning: 1 })
    expect(handed.claimed?.info.id).toBe('c') // the freed slot went to the next job
    await woke // and the refused process was told a slot freed
  })

  it('claimBatch claims the oldest runnable jobs in one step, never past the fleet\'s free slots, each job once', async () => {
    const url = await postgres.database()
    const [mine, other] = await Promise.all([adapter({}, url), adapter({}, url)])
    for (let i = 0; i < 10; i++) await mine.add(job(`j${i}`))
    await mine.add({ ...job('later'), info: { ...job('later').info, nextRunAt: Date.now() + 60_000 } })
    await other.claimNext(Date.now(), { maxRunning: 6 }) // j0, elsewhere in the fleet
    // Asked for 4 with 5 slots free: the 4 oldest runnable, in order.
    expect((await mine.claimBatch(Date.now(), { maxRunning: 6 }, 4)).map((r) => r.info.id)).toEqual(['j1', 'j2', 'j3', 'j4'])
    // Two processes at once, each asking for 4, with 1 slot left fleet-wide: one job claimed in all.
    const [a, b] = await Promise.all([mine.claimBatch(Date.now(), { maxRunning: 6 }, 4), other.claimBatch(Date.now(), { maxRunning: 6 }, 4)])
    expect([...a, ...b].map((r) => r.info.id)).toEqual(['j5'])
    for (const r of [...a, ...b]) expect(r.info.status).toBe('running')
    // Full: nothing, and the next release wakes the refused process.
    expect(await mine.claimBatch(Date.now(), { maxRunning: 6 }, 4)).toEqual([])
    const woke = new Promise<void>((resolve) => mine.onWork!(resolve))
    await other.update('j0', { status: 'succeeded', finishedAt: 1 })
    await woke
    // The job not yet due stays queued however many are asked for.
    const rest = await mine.claimBatch(Date.now(), { maxRunning: 100 }, 32)
    expect(rest.map((r) => r.info.id)).toEqual(['j6', 'j7', 'j8', 'j9'])
    expect((await mine.get('later'))?.info.status).toBe('queued')
  })
})
