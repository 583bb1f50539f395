/**
 * The lock order (stated at LOCKS in postgres/migrations.ts), on a real PostgreSQL.
 * The cycle the issue found: a resume held the claim lock and waited for the job's row, while a
 * completion held that row and waited, inside the transition trigger, for the claim lock shared.
 * Here the same three steps are taken in that interleaving; PostgreSQL would detect the cycle
 * and abort one side with 40P01 (after deadlock_timeout), so both sides succeeding without any
 * error is the proof that the resume no longer holds the lock while it waits for the row.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LOCKS } from '../postgres/migrations.ts'
import { startPostgresServer, type PostgresServer } from '../test/postgres-server.ts'
import { createPostgresQueueAdapter, type PostgresQueueAdapter } from './postgres-adapter.ts'

let server: PostgresServer
const open: Array<{ close(): Promise<unknown> }> = []
beforeAll(async () => { server = await startPostgresServer() }, 60_000)
afterAll(async () => {
  await Promise.all(open.map((a) => a.close()))
  await server?.stop()
})

function job(id: string, status: 'queued' | 'parked' | 'running') {
  return {
    info: { id, status, cwd: '', prompt: 'p', createdAt: 0, attempt: 1, maxAttempts: 1, usage: { tokens: 0, totalCostUsd: 0, numTurns: 0 } },
    request: { session: { cwd: '', prompt: 'p' } },
  }
}

async function client(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  open.push({ close: () => c.end() })
  return c
}

/** Until some other backend waits on a heavyweight lock (a row's transaction, or the advisory lock). */
async function someoneWaits(observer: pg.Client, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    const { rows } = await observer.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`)
    if (rows[0].n > 0) return
    await new Promise((r) => setTimeout(r, 5))
  }
  throw new Error(`nobody waited: ${what}`)
}

describe('lock order: job row, then the claim lock', () => {
  it('a resume waiting for a job row a completion holds takes no claim lock meanwhile: the completion\'s trigger gets it, no deadlock', async () => {
    const url = await server.createDatabase()
    const adapter: PostgresQueueAdapter = await createPostgresQueueAdapter({ url, poolSize: 4 })
    open.push(adapter)
    // Running: resumed by one process, its turn done; the duplicate result reached another.
    await adapter.add(job('x', 'running'))
    const completion = await client(url)
    const observer = await client(url)

    // 1. The completion's row lock (as an UPDATE takes it before its BEFORE trigger runs).
    await completion.query('BEGIN')
    await completion.query(`SELECT 1 FROM gateway_jobs WHERE id = 'x' FOR UPDATE`)
    // 2. A resume of the same job (a duplicate result) now waits for that row ...
    const resume = adapter.resumeParked!('x', { maxRunning: 4 })
    await someoneWaits(observer, 'the resume for the job row')
    // ... holding no claim lock: any other transaction may take it at once.
    expect((await observer.query('SELECT pg_try_advisory_lock($1) AS got', [LOCKS.claim])).rows[0].got).toBe(true)
    await observer.query('SELECT pg_advisory_unlock($1)', [LOCKS.claim])
    // 3. The completion's transition (running -> succeeded) runs the trigger's release path,
    // which asks for the claim lock shared: with the old order this was the cycle.
    await completion.query(`UPDATE gateway_jobs SET info = info || '{"status":"succeeded"}' WHERE id = 'x'`)
    await completion.query('COMMIT')
    expect(await resume).toBe('taken') // the job is not parked when the resume reads it
  })

  it('resumeAndAdopt waits for the job row before the claim lock too, and commits the park, the job and its history together', async () => {
    const url = await server.createDatabase()
    const adapter = await createPostgresQueueAdapter({ url, poolSize: 4, workerId: 'w' })
    open.push(adapter)
    await adapter.add(job('y', 'parked'))
    await adapter.update('y', { sessionId: 's1' })
    const db = await client(url)
    const park = { kind: 'park', id: 's1', info: { id: 's1', meta: { jobId: 'y' } } }
    await db.query(`INSERT INTO gateway_sessions (id, kind, record) VALUES ('s1', 'park', $1)`, [park])
    await db.query(`INSERT INTO gateway_session_executions (execution_id, session_id) VALUES ('e1', 's1')`)

    const holder = await client(url)
    await holder.query('BEGIN')
    await holder.query(`SELECT 1 FROM gateway_jobs WHERE id = 'y' FOR UPDATE`)
    const adopting = adapter.resumeAndAdopt('y', 's1', { maxRunning: 4 }, 'e1')
    await someoneWaits(db, 'the adoption for the job row')
    expect((await db.query('SELECT pg_try_advisory_lock($1) AS got', [LOCKS.claim])).rows[0].got).toBe(true)
    await db.query('SELECT pg_advisory_unlock($1)', [LOCKS.claim])
    await holder.query('COMMIT')

    expect(await adopting).toEqual({ outcome: 'resumed', park, event: expect.objectContaining({ type: 'job_resumed', jobId: 'y', seq: 1 }) })
    expect((await db.query(`SELECT count(*)::int AS n FROM gateway_sessions`)).rows[0].n).toBe(0)
    expect((await db.query(`SELECT execution_id, session_id, job_id, info FROM gateway_settled_executions`)).rows).toEqual([
      { execution_id: 'e1', session_id: 's1', job_id: 'y', info: park.info },
    ])
    expect((await db.query(`SELECT from_status, to_status, worker FROM gateway_job_history WHERE job_id = 'y' ORDER BY id`)).rows.slice(-1))
      .toEqual([{ from_status: 'parked', to_status: 'running', worker: 'w' }])
    // A second adoption (the duplicate in another process) finds the job running: taken, nothing changed.
    expect(await adapter.resumeAndAdopt('y', 's1', { maxRunning: 4 }, 'e1')).toEqual({ outcome: 'taken' })
  })

  it('resumeAndAdopt refuses a job whose recorded session is another one (a park naming a job it does not run)', async () => {
    const url = await server.createDatabase()
    const adapter = await createPostgresQueueAdapter({ url, poolSize: 2 })
    open.push(adapter)
    await adapter.add(job('z', 'parked'))
    await adapter.update('z', { sessionId: 'real' })
    expect(await adapter.resumeAndAdopt('z', 'impostor', { maxRunning: 4 })).toEqual({ outcome: 'taken' })
    expect((await adapter.get('z'))?.info.status).toBe('parked')
  })
})
