/**
 * Claims on PostgreSQL: `FOR UPDATE SKIP LOCKED` on the oldest runnable job, `maxRunning` counted
 * over the whole table under one advisory lock so maxConcurrency holds fleet-wide (queue-options.1),
 * resumes of parked jobs, and the reclaim of leases whose process died. Every transaction keeps
 * the lock order stated at LOCKS: the job row first, then the claim lock.
 */
import pg from 'pg'
import type { JobEvent } from '../protocol/index.ts'
import { LOCKS } from '../postgres/migrations.ts'
import { transaction } from '../postgres/retry.ts'
import type { ClaimLimits, QueueAdapter, ResumeAndAdoptOutcome } from './adapter.ts'
import { RETURNING, recordOf, type PgQueueContext, type Row } from './postgres-context.ts'
import { resumeRecordedSql } from './postgres-outbox.ts'
import type { QueueLeases } from './postgres-leases.ts'
import type { JobWriteBatch } from './postgres-write-batch.ts'

type ClaimOperations = Required<Pick<QueueAdapter, 'claimNext' | 'claimBatch' | 'resumeParked' | 'resumeAndAdopt' | 'reclaimExpired' | 'takeOverdueParked' | 'completeAndClaim'>>

/**
 * Takes the claim lock (after the caller's job row lock: LOCKS' order) and answers whether a
 * fleet-wide slot is free; when not, the next release is asked to notify (slot_waiters).
 */
async function slotFree(client: pg.PoolClient, limits: ClaimLimits): Promise<boolean> {
  await client.query('SELECT pg_advisory_xact_lock($1)', [LOCKS.claim])
  const running = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM gateway_jobs WHERE status = 'running'`)).rows[0].n)
  if (running < limits.maxRunning) return true
  await client.query('SELECT gateway_wait_for_slot()')
  return false
}

export function claimOperations(ctx: PgQueueContext, leases: QueueLeases, batch: JobWriteBatch): ClaimOperations {
  const { q, serial, workerId, leaseMs, leaseSql, pool } = ctx
  const toRunning = `UPDATE gateway_jobs SET info = jsonb_set(info, '{status}', '"running"'), lease_owner = $2, lease_until = ${leaseSql} WHERE id = $1`
  const claimSql = `
    UPDATE gateway_jobs SET info = jsonb_set(info, '{status}', '"running"'), lease_owner = $2, lease_until = ${leaseSql}
    WHERE id = (
      SELECT id FROM gateway_jobs
      WHERE status = 'queued' AND (next_run_at IS NULL OR next_run_at <= $1)
      ORDER BY seq FOR UPDATE SKIP LOCKED LIMIT 1
    ) ${RETURNING}`
  return {
    claimNext: (now, limits?: ClaimLimits) => serial(async () => {
      const sentAt = Date.now()
      const { rows } = limits
        ? await q<Row>({ name: 'gw_claim', text: 'SELECT info, request FROM gateway_claim($1, $2, $3, $4, $5)', values: [now, workerId, leaseMs, limits.maxRunning, LOCKS.claim] })
        : await q<Row>({ name: 'gw_claim_unlimited', text: claimSql, values: [now, workerId] })
      for (const r of rows) leases.claimed(r.info.id, sentAt)
      return recordOf(rows[0])
    }),

    claimBatch: (now, limits, count) => serial(async () => {
      const sentAt = Date.now()
      const { rows } = await q<Row>({ name: 'gw_claim_batch', text: 'SELECT info, request FROM gateway_claim_batch($1, $2, $3, $4, $5, $6)', values: [now, workerId, leaseMs, limits.maxRunning, LOCKS.claim, count] })
      for (const r of rows) leases.claimed(r.info.id, sentAt)
      return rows.map((r) => recordOf(r)!)
    }),

    resumeParked(id, limits) {
      const sentAt = Date.now()
      return serial(() => transaction(pool, async (client) => {
        // The job row first, then the claim lock (LOCKS' order). Taking the lock first and then
        // waiting here for the row was the deadlock the lock order (LOCKS) rules out.
        const { rows } = await client.query<{ status: string; lease_owner: string | null }>('SELECT status, lease_owner FROM gateway_jobs WHERE id = $1 FOR UPDATE', [id])
        // Already resumed by this process (an earlier call whose answer was lost): still ours.
        if (rows[0]?.status === 'running' && rows[0].lease_owner === workerId) return 'resumed' as const
        if (rows[0]?.status !== 'parked') return 'taken' as const
        if (!(await slotFree(client, limits))) return 'full' as const
        await client.query(toRunning, [id, workerId])
        leases.claimed(id, sentAt)
        return 'resumed' as const
      }))
    },

    resumeAndAdopt(id, sessionId, limits, settledExecutionId) {
      const sentAt = Date.now()
      return serial(() => transaction(pool, async (client): Promise<ResumeAndAdoptOutcome> => {
        // The job row first, then the claim lock (LOCKS' order). The job must be this session's:
        // a session's own meta cannot name some other job into being resumed.
        const { rows } = await client.query<{ status: string; session_id: string | null }>('SELECT status, session_id FROM gateway_jobs WHERE id = $1 FOR UPDATE', [id])
        if (rows[0]?.status !== 'parked' || rows[0].session_id !== sessionId) return { outcome: 'taken' }
        if (!(await slotFree(client, limits))) return { outcome: 'full' }
        // The park leaves the store, the job runs here, its history row is written, and the
        // result's id is recorded settled for the fleet: all in this one transaction.
        const { rows: parks } = await client.query<{ record: unknown }>(`DELETE FROM gateway_sessions WHERE id = $1 AND kind = 'park' RETURNING record`, [sessionId])
        const park = parks[0]?.record
        if (park !== undefined && settledExecutionId !== undefined) {
          await client.query(`INSERT INTO gateway_settled_executions (execution_id, session_id, job_id, info) VALUES ($1, $2, $3, $4::jsonb -> 'info')
            ON CONFLICT (execution_id) DO NOTHING`, [settledExecutionId, sessionId, id, JSON.stringify(park)])
        }
        const { rows: resumed } = await client.query<{ event: JobEvent }>(resumeRecordedSql(leaseSql), [id, workerId, Date.now()])
        leases.claimed(id, sentAt)
        // No park (lost outside this path): the job is running here and the caller fails this
        // attempt (retry rules apply), rather than leaving it parked with nothing to wake it.
        return { outcome: 'resumed', park, ...(resumed[0] ? { event: resumed[0].event } : {}) }
      }))
    },

    async reclaimExpired() {
      const { rows } = await q<Row>(`
        UPDATE gateway_jobs SET lease_owner = $1, lease_until = ${leaseSql}
        WHERE id IN (
          SELECT id FROM gateway_jobs WHERE status = 'running' AND lease_until < clock_timestamp()
          ORDER BY seq FOR UPDATE SKIP LOCKED LIMIT 20
        ) ${RETURNING}`, [workerId])
      return rows.map((r) => recordOf(r)!)
    },

    async takeOverdueParked(parkedBefore) {
      // Rows with SKIP LOCKED (LOCKS' order: no wait while holding anything); the status stays
      // parked, so no transition and no claim lock; the owner moves here, and with it the fence.
      const { rows } = await q<Row>(`
        WITH due AS (
          SELECT id, session_id FROM gateway_jobs WHERE status = 'parked' AND (info->>'parkedAt')::numeric <= $2
          ORDER BY seq FOR UPDATE SKIP LOCKED LIMIT 20
        ), parks AS (DELETE FROM gateway_sessions s USING due WHERE s.id = due.session_id AND s.kind = 'park')
        UPDATE gateway_jobs j SET lease_owner = $1 FROM due WHERE j.id = due.id RETURNING j.info, j.request`, [workerId, parkedBefore])
      return rows.map((r) => recordOf(r)!)
    },

    // With the process's other writes of the moment, in one batch that then claims for every
    // slot its final writes free (migration 13), in call order with the job's other events.
    completeAndClaim: (id, patch, now, limits, fence, event, start) => ctx.inJobOrder(id, async () => {
      const { written, claimed } = await batch.writeAndClaim(id, patch, now, limits, fence, event, start)
      return {
        completed: written?.info,
        ...(written?.event ? { completedEvent: written.event } : {}),
        ...(written?.startEvent ? { startedEvent: written.startEvent } : {}),
        claimed: claimed ? { info: claimed.info, request: claimed.request } : undefined,
      }
    }),
  }
}
