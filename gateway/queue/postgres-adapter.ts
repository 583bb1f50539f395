/**
 * The QueueAdapter on PostgreSQL (queue-options: adapter), shared by several gateway processes:
 * claims are `FOR UPDATE SKIP LOCKED` on the oldest runnable job, each claim is a lease the
 * claiming process renews by heartbeat, and a lease that lapses (its process died) is reclaimed by
 * another process, which applies the retry rules once. `maxRunning` is counted over the whole
 * table under one advisory lock, so maxConcurrency holds fleet-wide. Daily token counters are an
 * atomic upsert per UTC day. `onWork` listens on a channel the jobs table's trigger notifies.
 * Every statement and transaction goes through `postgres/retry.ts` (40001/40P01 retried with
 * jitter, other errors reach the caller) and keeps the lock order stated at `LOCKS`.
 */
import { randomUUID } from 'node:crypto'
import { databaseIdOf, openPool, POOL_DEFAULTS, type PostgresConnectionOptions } from '../postgres/pool.ts'
import type { QueueAdapter } from './adapter.ts'
import { claimOperations } from './postgres-claims.ts'
import { createQueueContext } from './postgres-context.ts'
import { jobOperations } from './postgres-jobs.ts'
import { QueueLeases } from './postgres-leases.ts'
import { JOB_EVENTS_CHANNEL, JobEventHearer, JobEventPublisher } from './postgres-job-events.ts'
import { claimOutbox, finishOutbox } from './postgres-outbox.ts'
import { QueueWakeups } from './postgres-wakeups.ts'
import { JobWriteBatch } from './postgres-write-batch.ts'

export interface PostgresQueueOptions extends PostgresConnectionOptions {
  /** A claim lapses this long after its last heartbeat (default 30 000 ms); heartbeats run every third of it. */
  leaseMs?: number
  /** This process's name in leases and the history table (default: a random id). */
  workerId?: string
}

export interface PostgresQueueAdapter extends QueueAdapter {
  readonly workerId: string
  readonly databaseId: string
  resumeAndAdopt: NonNullable<QueueAdapter['resumeAndAdopt']>
  completeAndClaim: NonNullable<QueueAdapter['completeAndClaim']>
  claimBatch: NonNullable<QueueAdapter['claimBatch']>
  renewOnly: NonNullable<QueueAdapter['renewOnly']>
  leaseHeld: NonNullable<QueueAdapter['leaseHeld']>
  /** Stops heartbeats and listening and ends the pool. Claims held lapse after leaseMs. */
  close(): Promise<void>
}

export const POSTGRES_QUEUE_DEFAULTS = { leaseMs: 30_000 } as const

export async function createPostgresQueueAdapter(options: PostgresQueueOptions): Promise<PostgresQueueAdapter> {
  const leaseMs = options.leaseMs ?? POSTGRES_QUEUE_DEFAULTS.leaseMs
  // A process stalled inside a claim or resume transaction holds the fleet's claim lock and the
  // job's row: the server ends that transaction well before the process's lease would lapse, so
  // the rest of the fleet claims and resumes on (a result posted meanwhile is applied elsewhere).
  const idleInTransactionMs = options.idleInTransactionMs ?? Math.min(POOL_DEFAULTS.idleInTransactionMs, Math.max(1_000, leaseMs / 2))
  const pool = await openPool({ ...options, idleInTransactionMs })
  const ctx = createQueueContext(pool, options.workerId ?? `gw-${randomUUID()}`, leaseMs, options.onError)
  // Jobs its batches claim (completeAndClaim) hold their lease from the batch's sending, as any claim's.
  const batch = new JobWriteBatch(ctx, (id, sentAt) => leases.claimed(id, sentAt))
  const jobs = jobOperations(ctx, batch)
  const publisher = new JobEventPublisher(pool, ctx.workerId, options.onError)
  const hearer = new JobEventHearer(ctx.workerId, async (id) => (await jobs.get(id))?.info, options.onError)
  const wakeups = new QueueWakeups(options.url, options.onError, new Map([[JOB_EVENTS_CHANNEL, hearer.hear]]))
  const leases = new QueueLeases(ctx, wakeups.wake)
  await wakeups.listen()
  let closed = false
  return {
    workerId: ctx.workerId,
    databaseId: databaseIdOf(options.url),
    recordsEvents: true,
    recordsStartWithEnd: true,
    ...jobs,
    ...claimOperations(ctx, leases, batch),
    ...leases.operations(),
    claimOutbox: (limit, claimMs) => claimOutbox(ctx.q, ctx.workerId, limit, claimMs),
    finishOutbox: (entry, retryAfterMs) => finishOutbox(ctx.q, entry, retryAfterMs),
    onWork: (listener) => wakeups.onWork(listener),
    shareEvent: (event) => publisher.publish(event),
    onSharedEvent: (listener) => hearer.onEvent(listener),
    async close() {
      if (closed) return
      closed = true
      leases.close()
      publisher.close()
      await wakeups.close()
      await pool.end()
    },
  } satisfies PostgresQueueAdapter & QueueAdapter
}
