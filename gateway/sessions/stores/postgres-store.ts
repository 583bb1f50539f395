/**
 * The session store on PostgreSQL (session-stores), shared by several gateway processes: parks
 * and persistLive records as JSON rows, each park's open execution ids indexed so a result that
 * reaches any process finds its session, `adopt` deleting a park in the statement that reads
 * it, so exactly one process rebuilds it, and the fleet's settled execution ids, so a
 * duplicate result anywhere answers `applied: false`. Every statement and transaction goes
 * through `postgres/retry.ts` (40001/40P01 retried there).
 */
import type pg from 'pg'
import type { SessionInfo } from '../../protocol/index.ts'
import { databaseIdOf, openPool, type PostgresConnectionOptions } from '../../postgres/pool.ts'
import { heldByLivePeer } from '../../postgres/directory-holder.ts'
import { query, read, transaction } from '../../postgres/retry.ts'
import { SessionMovedError, type SessionStore, type StoredSession } from '../session-store.ts'

export type PostgresSessionStoreOptions = PostgresConnectionOptions

export interface PostgresSessionStore extends SessionStore {
  readonly databaseId: string
  /** One round trip on the pool (readyz): resolves when the database answers, rejects otherwise. */
  ping(): Promise<void>
  close(): Promise<void>
}

export async function createPostgresSessionStore(options: PostgresSessionStoreOptions): Promise<PostgresSessionStore> {
  const pool = await openPool(options)
  const q = <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => query<R>(pool, text, values)
  // Statements without effects: tried once more when their connection broke (reported, so an
  // operator sees the database's trouble even when the second try answered).
  const r = <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => read<R>(pool, text, values, { onRetry: (err) => options.onError?.(err) })

  // Operations on one id run in call order (a save then a delete must not land the other way round).
  const tails = new Map<string, Promise<void>>()
  const enqueue = <T>(id: string, op: () => Promise<T>): Promise<T> => {
    const run = (tails.get(id) ?? Promise.resolve()).then(op)
    const tail = run.then(noop, noop)
    tails.set(id, tail)
    void tail.then(() => { if (tails.get(id) === tail) tails.delete(id) })
    return run
  }

  // Fleet fence (fenceTo): no write lands while another live process holds the session's directory
  // row. A dead holder's row does not fence: whoever rebuilds its session writes before its own
  // claim has landed, and the holder can no longer write anyway.
  let fence: string | undefined

  const settleSql = `INSERT INTO gateway_settled_executions (execution_id, session_id, job_id, info) VALUES ($1, $2, $3, $4::jsonb)
    ON CONFLICT (execution_id) DO NOTHING`
  const jobOf = (info: SessionInfo) => (typeof info.meta?.jobId === 'string' ? info.meta.jobId : null)

  return {
    databaseId: databaseIdOf(options.url),
    save: (record) => {
      // Serialise before queueing so a record that cannot be JSON fails this call alone.
      const json = JSON.stringify(record)
      const executions = record.kind === 'park' ? record.snapshot.executions : []
      const me = fence
      return enqueue(record.id, () => transaction(pool, async (client) => {
        if (me === undefined) {
          await client.query(`
            INSERT INTO gateway_sessions (id, kind, record, saved_at) VALUES ($1, $2, $3::jsonb, now())
            ON CONFLICT (id) DO UPDATE SET kind = EXCLUDED.kind, record = EXCLUDED.record, saved_at = now()`, [record.id, record.kind, json])
        } else {
          const { rowCount } = await client.query(`
            INSERT INTO gateway_sessions (id, kind, record, saved_at) SELECT $1, $2, $3::jsonb, now() WHERE NOT ${heldByLivePeer('$1', '$4')}
            ON CONFLICT (id) DO UPDATE SET kind = EXCLUDED.kind, record = EXCLUDED.record, saved_at = now() WHERE NOT ${heldByLivePeer('$1', '$4')}`,
          [record.id, record.kind, json, me])
          if (rowCount !== 1) throw new SessionMovedError(record.id)
        }
        await client.query('DELETE FROM gateway_session_executions WHERE session_id = $1', [record.id])
        if (executions.length) {
          await client.query(`
            INSERT INTO gateway_session_executions (execution_id, session_id, expires_at) SELECT e, $2, x FROM unnest($1::text[], $3::bigint[]) AS u(e, x)
            ON CONFLICT (execution_id) DO UPDATE SET session_id = EXCLUDED.session_id, expires_at = EXCLUDED.expires_at`,
          [executions.map((e) => e.executionId), record.id, executions.map((e) => (Number.isFinite(e.expiresAt) ? Math.round(e.expiresAt) : null))])
        }
      }))
    },
    load: (id) => enqueue(id, async () => {
      const { rows } = await r<{ record: StoredSession }>('SELECT record FROM gateway_sessions WHERE id = $1', [id])
      return rows[0]?.record
    }),
    delete: (id) => enqueue(id, async () => {
      // Fenced, a delete of a session another process runs now is a no-op: its record is not ours to drop.
      if (fence === undefined) await q('DELETE FROM gateway_sessions WHERE id = $1', [id])
      else await q(`DELETE FROM gateway_sessions WHERE id = $1 AND NOT ${heldByLivePeer('$1', '$2')}`, [id, fence])
    }),
    async list() {
      await Promise.all(tails.values())
      const { rows } = await r<{ record: StoredSession }>('SELECT record FROM gateway_sessions')
      return rows.map((r) => r.record)
    },
    adopt: (id, settledExecutionId) => enqueue(id, () => transaction(pool, async (client) => {
      const taken = await client.query<{ record: StoredSession }>(`DELETE FROM gateway_sessions WHERE id = $1 AND kind = 'park' RETURNING record`, [id])
      const park = taken.rows[0]?.record
      if (park) {
        if (settledExecutionId !== undefined) await client.query(settleSql, [settledExecutionId, id, jobOf(park.info), JSON.stringify(park.info)])
        return park
      }
      const { rows } = await client.query<{ record: StoredSession }>(`SELECT record FROM gateway_sessions WHERE id = $1 AND kind = 'live'`, [id])
      return rows[0]?.record
    })),
    async findByExecution(executionId) {
      const { rows } = await r<{ session_id: string }>('SELECT session_id FROM gateway_session_executions WHERE execution_id = $1', [executionId])
      return rows[0]?.session_id
    },
    async expiredExecutions(now, limit) {
      const { rows } = await r<{ execution_id: string }>(`SELECT execution_id FROM gateway_session_executions WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2`, [Math.floor(now), limit])
      return rows.map((r) => r.execution_id)
    },
    async settle(executionId, info) {
      await q(settleSql, [executionId, info.id, jobOf(info), JSON.stringify(info)])
    },
    async findSettled(executionId) {
      const { rows } = await r<{ info: SessionInfo }>('SELECT info FROM gateway_settled_executions WHERE execution_id = $1', [executionId])
      return rows[0]?.info
    },
    async forgetSettled(sessionId) {
      await q('DELETE FROM gateway_settled_executions WHERE session_id = $1 AND job_id IS NULL', [sessionId])
    },
    fenceTo(processId) {
      fence = processId
    },
    async ping() {
      await q('SELECT 1')
    },
    close: () => pool.end(),
  }
}

function noop() {}
