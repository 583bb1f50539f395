/**
 * postgres/retry.ts: deadlock victims and serialisation failures run again,
 * a bounded number of times; every other error reaches the caller at once; a real deadlock
 * between two transactions ends with both committed.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPostgresServer, type PostgresServer } from '../test/postgres-server.ts'
import { openPool } from './pool.ts'
import { isDatabaseUnavailable, query, read, transaction, withRetry } from './retry.ts'

const sqlError = (code: string) => Object.assign(new Error(`sqlstate ${code}`), { code })

describe('withRetry', () => {
  it('runs again after 40P01 and 40001, and answers the first success', async () => {
    const codes = ['40P01', '40001']
    let calls = 0
    const retried: number[] = []
    const value = await withRetry(async () => {
      calls++
      const code = codes.shift()
      if (code) throw sqlError(code)
      return 'done'
    }, { baseDelayMs: 1, onRetry: (_err, attempt) => retried.push(attempt) })
    expect(value).toBe('done')
    expect(calls).toBe(3)
    expect(retried).toEqual([1, 2])
  })

  it('gives up after `attempts` tries with the last error', async () => {
    let calls = 0
    await expect(withRetry(async () => { calls++; throw sqlError('40P01') }, { attempts: 3, baseDelayMs: 1 })).rejects.toMatchObject({ code: '40P01' })
    expect(calls).toBe(3)
  })

  it('never retries any other error', async () => {
    let calls = 0
    await expect(withRetry(async () => { calls++; throw sqlError('23505') }, { baseDelayMs: 1 })).rejects.toMatchObject({ code: '23505' })
    await expect(withRetry(async () => { calls++; throw new Error('connection terminated') }, { baseDelayMs: 1 })).rejects.toThrow('connection terminated')
    expect(calls).toBe(2)
  })
})

/** A pool whose statements fail with the given errors, in order, then answer `{rows: [n]}` (n: the call). */
function failingPool(errors: Error[]) {
  let calls = 0
  const pool = { query: async () => { calls++; const err = errors.shift(); if (err) throw err; return { rows: [calls] } } }
  return { pool: pool as unknown as pg.Pool, calls: () => calls }
}
const terminated = () => Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })

describe('a broken connection', () => {
  it('a read is tried once more, on another connection, and answers', async () => {
    for (const err of [terminated(), new Error('Connection terminated unexpectedly'), Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })]) {
      const { pool, calls } = failingPool([err])
      expect((await read(pool, 'SELECT 1')).rows).toEqual([2])
      expect(calls()).toBe(2)
    }
  })

  it('a read is tried only once more; its failure is marked database-unavailable, the error itself unchanged', async () => {
    const { pool, calls } = failingPool([terminated(), terminated()])
    const err = await read(pool, 'SELECT 1').catch((e: unknown) => e)
    expect(calls()).toBe(2)
    expect(err).toMatchObject({ code: '57P01', message: 'terminating connection due to administrator command' })
    expect(isDatabaseUnavailable(err)).toBe(true)
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: err }))).toBe(true)
  })

  it('a write is never run again (it may have committed), and is marked database-unavailable', async () => {
    const { pool, calls } = failingPool([terminated()])
    const err = await query(pool, 'UPDATE t SET x = 1').catch((e: unknown) => e)
    expect(calls()).toBe(1)
    expect(isDatabaseUnavailable(err)).toBe(true)
  })

  it('any other error is neither retried by read nor marked', async () => {
    const { pool, calls } = failingPool([sqlError('23505')])
    const err = await read(pool, 'SELECT 1').catch((e: unknown) => e)
    expect(calls()).toBe(1)
    expect(err).toMatchObject({ code: '23505' })
    expect(isDatabaseUnavailable(err)).toBe(false)
  })
})

describe('transaction on a real PostgreSQL', () => {
  let server: PostgresServer
  let pool: pg.Pool
  beforeAll(async () => {
    server = await startPostgresServer({ settings: { deadlock_timeout: '50ms' } })
    pool = new pg.Pool({ connectionString: await server.createDatabase(), max: 4 })
    // As openPool does: a broken client, handed back, is removed through the pool's error event.
    pool.on('error', () => undefined)
    await pool.query('CREATE TABLE t (id int PRIMARY KEY, n int NOT NULL)')
    await pool.query('INSERT INTO t VALUES (1, 0), (2, 0)')
  }, 60_000)
  afterAll(async () => {
    await pool?.end()
    await server?.stop()
  })

  it('two transactions locking two rows in opposite orders: PostgreSQL aborts one (40P01), it runs again, both commit', async () => {
    // Each takes its first row, then waits until the other holds its own before taking the second.
    let holding = 0
    let bothHold!: () => void
    const held = new Promise<void>((resolve) => { bothHold = resolve })
    const retried: string[] = []
    const run = (a: number, b: number) => {
      let tries = 0
      return transaction(pool, async (client) => {
        await client.query('UPDATE t SET n = n + 1 WHERE id = $1', [a])
        if (++tries === 1) {
          if (++holding === 2) bothHold()
          await held
        }
        await client.query('UPDATE t SET n = n + 1 WHERE id = $1', [b])
      }, { baseDelayMs: 5, onRetry: (err) => retried.push((err as { code?: string }).code ?? '') })
    }
    await Promise.all([run(1, 2), run(2, 1)])
    // One victim, or both when their deadlock checks ran at the same moment: each was retried.
    expect(retried.length).toBeGreaterThanOrEqual(1)
    expect(new Set(retried)).toEqual(new Set(['40P01']))
    // Both committed exactly once: each row counted by both transactions, the aborted try undone.
    expect((await pool.query('SELECT id, n FROM t ORDER BY id')).rows).toEqual([{ id: 1, n: 2 }, { id: 2, n: 2 }])
  })

  it('a transaction left idle past idleInTransactionMs (its process stalled) is ended by the server: its locks free for others at once, and it runs again from the start', async () => {
    const stallingPool = await openPool({ url: await server.createDatabase(), idleInTransactionMs: 150 })
    try {
      await stallingPool.query('CREATE TABLE c (n int NOT NULL)')
      const order: string[] = []
      let tries = 0
      let stalled!: () => void
      const stalling = new Promise<void>((resolve) => { stalled = resolve })
      const retried: string[] = []
      const done = transaction(stallingPool, async (client) => {
        tries++
        await client.query('SELECT pg_advisory_xact_lock(4242)')
        await client.query('INSERT INTO c VALUES (1)')
        if (tries === 1) {
          stalled()
          // No statement for far longer than the bound: from the server's side, a stalled process.
          await new Promise((r) => setTimeout(r, 1500))
          order.push('stalled try continues')
        }
      }, { baseDelayMs: 1, onRetry: (err) => retried.push((err as { code?: string }).code ?? '') })
      await stalling
      // Another session takes the same lock while the stalled one still sleeps.
      const other = await stallingPool.connect()
      await other.query('SELECT pg_advisory_lock(4242)')
      order.push('lock taken elsewhere')
      await other.query('SELECT pg_advisory_unlock(4242)')
      other.release()
      await done
      expect(order).toEqual(['lock taken elsewhere', 'stalled try continues'])
      expect(tries).toBe(2)
      expect(retried).toEqual(['25P03'])
      // The stalled try's insert was rolled back by the server; only the second one committed.
      expect((await stallingPool.query('SELECT count(*)::int AS n FROM c')).rows).toEqual([{ n: 1 }])
    } finally {
      await stallingPool.end()
    }
  })

  it('a connection killed mid-transaction fails that call (no unhandled error event) and the pool goes on', async () => {
    const err = await transaction(pool, async (client) => {
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')
      await pool.query('SELECT pg_terminate_backend($1)', [rows[0].pid])
      await client.query('SELECT 1')
    }).catch((e: Error) => e)
    expect(err).toBeInstanceOf(Error)
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
  })
})
