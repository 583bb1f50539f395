/**
 * The PostgreSQL adapter's group commit (postgres-write-batch.ts): writes made together go to
 * the database as one statement, and each keeps what a write of its own had: its fence, its
 * event numbered in call order with its outbox row, and its own failure.
 */
import { afterEach, describe, expect, it } from 'vitest'
import pg from 'pg'
import { usePostgres } from '../test/postgres-fixture.ts'
import type { EventDraft } from './adapter.ts'
import { createPostgresQueueAdapter, type PostgresQueueAdapter } from './postgres-adapter.ts'

const postgres = usePostgres()

function job(id: string) {
  return {
    info: { id, status: 'queued' as const, cwd: '', prompt: 'p', createdAt: 0, attempt: 1, maxAttempts: 1, usage: { tokens: 0, totalCostUsd: 0, numTurns: 0 } },
    request: { session: { cwd: '', prompt: 'p' }, webhook: { url: 'http://127.0.0.1:9/hook' } },
  }
}

const draft = (type: 'job_started' | 'job_completed', ts = 1): EventDraft => ({ body: { type }, ts, webhook: { url: 'http://127.0.0.1:9/hook' } })

/** Statements this process sends under `name` while `run` runs (every pg client's queries pass through Client.prototype.query). */
const original = pg.Client.prototype.query
afterEach(() => { pg.Client.prototype.query = original })
async function counting<T>(name: string, run: () => Promise<T>): Promise<{ result: T; sent: number }> {
  let sent = 0
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as { name?: string } | string
    if (typeof config === 'object' && config?.name === name) sent++
    return (original as (...a: unknown[]) => unknown).apply(this, args)
  } as typeof original
  try {
    return { result: await run(), sent }
  } finally {
    pg.Client.prototype.query = original
  }
}

async function outbox(url: string): Promise<Array<{ job_id: string; seq: number; type: string }>> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(`SELECT job_id, seq, event->>'type' AS type FROM gateway_job_outbox ORDER BY job_id, seq`)).rows
  } finally {
    await client.end()
  }
}

async function adapter(url: string): Promise<PostgresQueueAdapter> {
  return postgres.track(await createPostgresQueueAdapter({ url, poolSize: 4 }))
}

describe('PostgreSQL job writes, group-committed', () => {
  it('sends writes made together as one statement, each fenced on its own: a write whose claim this process does not hold changes nothing', async () => {
    const url = await postgres.database()
    const [a, b] = [await adapter(url), await adapter(url)]
    for (const id of ['j1', 'j2', 'j3', 'j4']) await a.add(job(id))
    expect((await a.claimBatch(Date.now(), { maxRunning: 10 }, 2)).map((r) => r.info.id)).toEqual(['j1', 'j2'])
    expect((await b.claimNext(Date.now(), { maxRunning: 10 }))?.info.id).toBe('j3')
    const { result, sent } = await counting('gw_update_batch', () => Promise.all([
      a.update('j1', { startedAt: 5, sessionId: 's1' }, { attempt: 1 }, draft('job_started')), // held: lands
      a.update('j2', { startedAt: 5 }, { attempt: 2 }, draft('job_started')), // another attempt's fence
      a.update('j3', { startedAt: 5 }, { attempt: 1 }, draft('job_started')), // b holds its claim
      a.update('j4', { prompt: 'q' }, { queued: true }), // still queued: lands
    ]))
    expect(sent).toBe(1)
    expect(result[0]?.info).toMatchObject({ id: 'j1', startedAt: 5, sessionId: 's1', status: 'running' })
    expect(result[0]?.event).toMatchObject({ type: 'job_started', jobId: 'j1', seq: 1, job: { startedAt: 5 } })
    expect(result.slice(1, 3)).toEqual([undefined, undefined])
    expect(result[3]?.info.prompt).toBe('q')
    expect((await a.get('j2'))?.info.startedAt).toBeUndefined()
    expect((await b.get('j3'))?.info.startedAt).toBeUndefined()
    expect(await outbox(url)).toEqual([{ job_id: 'j1', seq: 1, type: 'job_started' }])
  })

  it("numbers a job's events in the order its writes were made, each with its outbox row, the transition in its history", async () => {
    const url = await postgres.database()
    const a = await adapter(url)
    await a.add(job('j'))
    await a.claimNext(Date.now(), { maxRunning: 10 })
    const written = await Promise.all([
      a.update('j', { startedAt: 1 }, { attempt: 1 }, draft('job_started', 1)),
      a.update('j', {}, { attempt: 1 }, { body: { type: 'job_progress', progress: { kind: 'assistant_text', preview: 'x' } }, ts: 2, webhook: { url: 'http://127.0.0.1:9/hook' } }),
      a.update('j', { status: 'succeeded', finishedAt: 3 }, { attempt: 1 }, draft('job_completed', 3)),
    ])
    expect(written.map((w) => [w?.event?.type, w?.event?.seq])).toEqual([['job_started', 1], ['job_progress', 2], ['job_completed', 3]])
    expect(await outbox(url)).toEqual([
      { job_id: 'j', seq: 1, type: 'job_started' }, { job_id: 'j', seq: 2, type: 'job_progress' }, { job_id: 'j', seq: 3, type: 'job_completed' },
    ])
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    const { rows } = await client.query(`SELECT from_status, to_status FROM gateway_job_history WHERE job_id = 'j' ORDER BY id`)
    await client.end()
    expect(rows.at(-1)).toEqual({ from_status: 'running', to_status: 'succeeded' })
  })

  it('fails only the write the database refuses: the other writes of its batch land', async () => {
    const url = await postgres.database()
    const a = await adapter(url)
    for (const id of ['ok1', 'bad', 'ok2']) await a.add(job(id))
    const settled = await Promise.allSettled([
      a.update('ok1', { prompt: 'one' }),
      a.update('bad', { nextRunAt: 'never' as unknown as number }), // the column trigger cannot read it as a number
      a.update('ok2', { prompt: 'two' }),
    ])
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect((await a.get('ok1'))?.info.prompt).toBe('one')
    expect((await a.get('ok2'))?.info.prompt).toBe('two')
    expect((await a.get('bad'))?.info.nextRunAt).toBeUndefined()
  })
  it("waits for no row another transaction holds: that job's write lands once the row is free, the others at once", async () => {
    const url = await postgres.database()
    const a = await adapter(url)
    for (const id of ['k1', 'k2', 'k3']) await a.add(job(id))
    const holder = new pg.Client({ connectionString: url })
    await holder.connect()
    try {
      await holder.query('BEGIN')
      await holder.query(`SELECT 1 FROM gateway_jobs WHERE id = 'k2' FOR UPDATE`) // as a stalled resume holds its job's row
      let held = true
      const w2 = a.update('k2', { prompt: 'two' }).then((r) => ({ r, held }))
      const [w1, w3] = await Promise.all([a.update('k1', { prompt: 'one' }), a.update('k3', { prompt: 'three' })])
      expect([w1?.info.prompt, w3?.info.prompt]).toEqual(['one', 'three'])
      held = false
      await holder.query('COMMIT')
      const landed = await w2
      expect(landed.held).toBe(false) // it waited for the row, and only it
      expect(landed.r?.info.prompt).toBe('two')
    } finally {
      await holder.end()
    }
  })

  it('writes a start step first in the same write: job_started, then the end, numbered in order with their outbox rows; fenced out, neither', async () => {
    const url = await postgres.database()
    const [a, b] = [await adapter(url), await adapter(url)]
    for (const id of ['s1', 's2']) await a.add(job(id))
    await a.claimNext(Date.now(), { maxRunning: 10 })
    await b.claimNext(Date.now(), { maxRunning: 10 }) // s2 is b's
    const start = { patch: { startedAt: 4, sessionId: 'sess', error: undefined }, event: draft('job_started', 4) }
    const { result, sent } = await counting('gw_update_batch', () => Promise.all([
      a.update('s1', { status: 'succeeded', finishedAt: 5 }, { attempt: 1 }, draft('job_completed', 5), start),
      a.update('s2', { status: 'succeeded', finishedAt: 5 }, { attempt: 1 }, draft('job_completed', 5), start), // not a's claim
    ]))
    expect(sent).toBe(1)
    expect(result[0]?.startEvent).toMatchObject({ type: 'job_started', seq: 1, ts: 4, job: { status: 'running', startedAt: 4, sessionId: 'sess' } })
    expect(result[0]?.event).toMatchObject({ type: 'job_completed', seq: 2, ts: 5, job: { status: 'succeeded', startedAt: 4, sessionId: 'sess', finishedAt: 5 } })
    expect(result[0]?.info).toMatchObject({ status: 'succeeded', startedAt: 4, sessionId: 'sess' })
    expect(result[1]).toBeUndefined()
    expect((await b.get('s2'))?.info).toMatchObject({ status: 'running' })
    expect((await b.get('s2'))?.info.startedAt).toBeUndefined()
    expect(await outbox(url)).toEqual([{ job_id: 's1', seq: 1, type: 'job_started' }, { job_id: 's1', seq: 2, type: 'job_completed' }])
  })

  it('claims with the final writes made together, one job for each in the same statement, never past the fleet-wide limit', async () => {
    const url = await postgres.database()
    const [a, b] = [await adapter(url), await adapter(url)]
    for (let i = 0; i < 8; i++) await a.add(job(`c${i}`))
    const limits = { maxRunning: 4 }
    expect((await a.claimBatch(Date.now(), limits, 3)).map((r) => r.info.id)).toEqual(['c0', 'c1', 'c2'])
    expect((await b.claimNext(Date.now(), limits))?.info.id).toBe('c3')
    // Three ends at once: one statement, the three next jobs in order, the oldest to the first.
    const { result, sent } = await counting('gw_update_batch_claim', () => Promise.all(['c0', 'c1', 'c2'].map((id) =>
      a.completeAndClaim(id, { status: 'succeeded', finishedAt: 1 }, Date.now(), limits, { attempt: 1 }, draft('job_completed')))))
    expect(sent).toBe(1)
    expect(result.map((r) => [r.completed?.status, r.completedEvent?.type, r.claimed?.info.id])).toEqual([
      ['succeeded', 'job_completed', 'c4'], ['succeeded', 'job_completed', 'c5'], ['succeeded', 'job_completed', 'c6'],
    ])
    // The fleet is full again (c3 elsewhere, c4-c6 here): a lowered limit frees two slots and claims only what is free.
    const two = await Promise.all(['c4', 'c5'].map((id) => a.completeAndClaim(id, { status: 'succeeded', finishedAt: 2 }, Date.now(), { maxRunning: 3 }, { attempt: 1 })))
    expect(two.map((r) => r.claimed?.info.id)).toEqual(['c7', undefined])
    expect((await a.list()).filter((j) => j.info.status === 'running').map((j) => j.info.id)).toEqual(['c3', 'c6', 'c7'])
  })

  it('leaves a job its batch claimed to the fleet when the claiming process dies before running it: reclaimed once, after the lease', async () => {
    const url = await postgres.database()
    const dead = postgres.track(await createPostgresQueueAdapter({ url, poolSize: 4, leaseMs: 300 }))
    const [x, y] = [postgres.track(await createPostgresQueueAdapter({ url, poolSize: 4, leaseMs: 300 })), postgres.track(await createPostgresQueueAdapter({ url, poolSize: 4, leaseMs: 300 }))]
    for (const id of ['d1', 'd2']) await dead.add(job(id))
    await dead.claimNext(Date.now(), { maxRunning: 10 })
    const { claimed } = await dead.completeAndClaim('d1', { status: 'succeeded', finishedAt: 1 }, Date.now(), { maxRunning: 10 }, { attempt: 1 }, draft('job_completed'))
    expect(claimed?.info.id).toBe('d2')
    await dead.close() // SIGKILL-like: no heartbeat renews d2's lease, nothing starts it
    const reclaimed: string[] = []
    for (let i = 0; i < 300 && reclaimed.length === 0; i++) {
      const [a, b] = await Promise.all([x.reclaimExpired!(Date.now()), y.reclaimExpired!(Date.now())])
      reclaimed.push(...[...a, ...b].map((r) => r.info.id))
      if (reclaimed.length === 0) await new Promise((r) => setTimeout(r, 20))
    }
    expect(reclaimed).toEqual(['d2']) // once, by one process; the ended d1 is not touched
    expect([...await x.reclaimExpired!(Date.now()), ...await y.reclaimExpired!(Date.now())]).toEqual([])
    expect((await x.get('d1'))?.info.status).toBe('succeeded')
  })
})
