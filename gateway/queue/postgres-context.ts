/**
 * What every part of the PostgreSQL queue adapter shares: the pool, this process's name and lease,
 * the statement helpers (retried per postgres/retry.ts), and the two orderings its writes keep.
 */
import pg from 'pg'
import type { CreateJobRequest, JobEvent, JobInfo } from '../protocol/index.ts'
import { query, read } from '../postgres/retry.ts'
import type { WrittenRecord } from './adapter.ts'

export type Row = { info: JobInfo; request: CreateJobRequest; event?: JobEvent | null }
export const RETURNING = 'RETURNING info, request'
/** The fence: this process still holds the claim for that attempt (running, or parked by it). */
export const FENCED = (owner: string, attempt: string) => `lease_owner = ${owner} AND status IN ('running', 'parked') AND (info->>'attempt')::integer = ${attempt}`

export interface PgQueueContext {
  readonly pool: pg.Pool
  readonly workerId: string
  readonly leaseMs: number
  /** SQL for "a lease from now", in the database's clock. */
  readonly leaseSql: string
  readonly onError?: (err: Error) => void
  /** A statement with effects (retried only where retry.ts says it is safe). */
  q<R extends pg.QueryResultRow>(config: pg.QueryConfig | string, values?: unknown[]): Promise<pg.QueryResult<R>>
  /** A statement without effects: tried once more when its connection broke (reported). */
  r<R extends pg.QueryResultRow>(config: pg.QueryConfig | string, values?: unknown[]): Promise<pg.QueryResult<R>>
  /** Claims from one process go one at a time, in call order: the oldest job to the first caller. */
  serial<T>(op: () => Promise<T>): Promise<T>
  /**
   * A job's event-recording writes from this process go one at a time, in call order: each one's
   * number (taken under the row lock) then follows the order the queue made them in, even when the
   * pool runs them on different connections (a progress write never overtakes the park).
   */
  inJobOrder<T>(id: string, op: () => Promise<T>): Promise<T>
}

export function createQueueContext(pool: pg.Pool, workerId: string, leaseMs: number, onError?: (err: Error) => void): PgQueueContext {
  let claimTail: Promise<unknown> = Promise.resolve()
  const jobChains = new Map<string, Promise<unknown>>()
  return {
    pool, workerId, leaseMs, onError,
    leaseSql: `clock_timestamp() + make_interval(secs => ${Number(leaseMs) / 1000})`,
    q: (config, values) => query(pool, config, values),
    r: (config, values) => read(pool, config, values, { onRetry: (err) => onError?.(err) }),
    serial(op) {
      const next = claimTail.then(op, op)
      claimTail = next.catch(() => undefined)
      return next
    },
    inJobOrder(id, op) {
      const next = (jobChains.get(id) ?? Promise.resolve()).then(op, op)
      const settled = next.catch(() => undefined)
      jobChains.set(id, settled)
      void settled.then(() => { if (jobChains.get(id) === settled) jobChains.delete(id) })
      return next
    },
  }
}

export const recordOf = (row: Row | undefined): WrittenRecord | undefined => (row ? { info: row.info, request: row.request, ...(row.event ? { event: row.event } : {}) } : undefined)
