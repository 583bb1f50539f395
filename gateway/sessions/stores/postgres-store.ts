/**
 * The session store on PostgreSQL (session-stores), shared by several gateway processes: parks
 * and persistLive records as JSON rows, each park's open execution ids indexed so a result that
 * reaches any process finds its session, and `adopt` deleting a park in the statement that reads
 * it, so exactly one process rebuilds it.
 */
import type pg from 'pg'
import { openPool, type PostgresConnectionOptions } from '../../postgres/pool.ts'
import type { SessionStore, StoredSession } from '../session-store.ts'

export type PostgresSessionStoreOptions = PostgresConnectionOptions

export interface PostgresSessionStore extends SessionStore {
  close(): Promise<void>
}

export async function createPostgresSessionStore(options: PostgresSessionStoreOptions): Promise<PostgresSessionStore> {
  const pool = await openPool(options)

  // Operations on one id run in call order (a save then a delete must not land the other way round).
  const tails = new Map<string, Promise<void>>()
  const enqueue = <T>(id: string, op: () => Promise<T>): Promise<T> => {
    const run = (tails.get(id) ?? Promise.resolve()).then(op)
    const tail = run.then(noop, noop)
    tails.set(id, tail)
    void tail.then(() => { if (tails.get(id) === tail) tails.delete(id) })
    return run
  }

  const transaction = async <T>(op: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect()
    try {
      await client.query('BEGIN')
      const result = await op(client)
      await client.query('COMMIT')
      return result
    } catch (err) {
      await client.query('ROLLBACK').catch(noop)
      throw err
    } finally {
      client.release()
    }
  }

  return {
    save: (record) => {
      // Serialise before queueing so a record that cannot be JSON fails this call alone.
      const json = JSON.stringify(record)
      const executions = record.kind === 'park' ? record.snapshot.executions.map((e) => e.executionId) : []
      return enqueue(record.id, () => transaction(async (client) => {
        await client.query(`
          INSERT INTO gateway_sessions (id, kind, record, saved_at) VALUES ($1, $2, $3::jsonb, now())
          ON CONFLICT (id) DO UPDATE SET kind = EXCLUDED.kind, record = EXCLUDED.record, saved_at = now()`, [record.id, record.kind, json])
        await client.query('DELETE FROM gateway_session_executions WHERE session_id = $1', [record.id])
        if (executions.length) {
          await client.query(`
            INSERT INTO gateway_session_executions (execution_id, session_id) SELECT unnest($1::text[]), $2
            ON CONFLICT (execution_id) DO UPDATE SET session_id = EXCLUDED.session_id`, [executions, record.id])
        }
      }))
    },
    load: (id) => enqueue(id, async () => {
      const { rows } = await pool.query<{ record: StoredSession }>('SELECT record FROM gateway_sessions WHERE id = $1', [id])
      return rows[0]?.record
    }),
    delete: (id) => enqueue(id, async () => {
      await pool.query('DELETE FROM gateway_sessions WHERE id = $1', [id])
    }),
    async list() {
      await Promise.all(tails.values())
      const { rows } = await pool.query<{ record: StoredSession }>('SELECT record FROM gateway_sessions')
      return rows.map((r) => r.record)
    },
    adopt: (id) => enqueue(id, async () => {
      const taken = await pool.query<{ record: StoredSession }>(`DELETE FROM gateway_sessions WHERE id = $1 AND kind = 'park' RETURNING record`, [id])
      if (taken.rows[0]) return taken.rows[0].record
      const { rows } = await pool.query<{ record: StoredSession }>(`SELECT record FROM gateway_sessions WHERE id = $1 AND kind = 'live'`, [id])
      return rows[0]?.record
    }),
    async findByExecution(executionId) {
      const { rows } = await pool.query<{ session_id: string }>('SELECT session_id FROM gateway_session_executions WHERE execution_id = $1', [executionId])
      return rows[0]?.session_id
    },
    close: () => pool.end(),
  }
}

function noop() {}
