/**
 * The PostgreSQL side of the job events' outbox (migration 8): the statements
 * that write a job row and record its event together, and the ones delivery uses to claim and
 * settle recorded events. Delivery statements touch outbox rows only (LOCKS' order, step 4).
 */
import type pg from 'pg'
import type { JobEvent } from '../protocol/index.ts'
import type { EventDraft, OutboxEntry } from './adapter.ts'

type Query = <R extends pg.QueryResultRow>(config: pg.QueryConfig | string, values?: unknown[]) => Promise<pg.QueryResult<R>>

/** A draft as the SQL reads it (`body`, `ts`, `webhook`), or null for none, for a statement that serialises several at once. */
export function draftOf(event: EventDraft | undefined): { body: EventDraft['body']; ts: number; webhook?: EventDraft['webhook'] } | null {
  return event ? { body: event.body, ts: event.ts, ...(event.webhook ? { webhook: event.webhook } : {}) } : null
}

/**
 * A parked job moved to running for `$2` (its row already locked by the transaction), with its
 * job_resumed recorded: the execution it resumed on is the one it was parked on, and the park's
 * fields leave the job in the same write, as the single-process queue's resume clears them.
 */
export function resumeRecordedSql(leaseSql: string): string {
  return `WITH o AS (SELECT info->'parkedExecutionId' AS execution FROM gateway_jobs WHERE id = $1),
    u AS (
      UPDATE gateway_jobs SET info = jsonb_set(info, '{status}', '"running"') - 'parkedAt' - 'parkedExecutionId',
        lease_owner = $2, lease_until = ${leaseSql}, event_seq = event_seq + 1
      WHERE id = $1 RETURNING id, info, request, event_seq)
    SELECT gateway_record_event(u.id, u.event_seq, u.info, jsonb_build_object(
      'body', jsonb_strip_nulls(jsonb_build_object('type', 'job_resumed', 'executionId', o.execution)),
      'ts', $3::bigint, 'webhook', u.request->'webhook')) AS event
    FROM u, o`
}

/**
 * Claims each due job's oldest undelivered event (none of the job's earlier events left), rows
 * another process is claiming skipped; a claim moves not_before to the claim's end, so the row is
 * not due again until then (a claimant that died leaves it to the next process after that).
 */
export async function claimOutbox(q: Query, workerId: string, limit: number, claimMs: number): Promise<OutboxEntry[]> {
  const { rows } = await q<{ job_id: string; seq: number; event: JobEvent; target: OutboxEntry['target']; claim: number; attempts: number }>({
    name: 'gw_outbox_claim',
    text: `WITH due AS (
        SELECT o.job_id, o.seq FROM gateway_job_outbox o
        WHERE o.not_before <= clock_timestamp()
          AND NOT EXISTS (SELECT 1 FROM gateway_job_outbox p WHERE p.job_id = o.job_id AND p.seq < o.seq)
        ORDER BY o.not_before LIMIT $2 FOR UPDATE SKIP LOCKED)
      UPDATE gateway_job_outbox o SET claim = o.claim + 1, claimed_by = $1,
        not_before = clock_timestamp() + make_interval(secs => $3::double precision / 1000)
      FROM due WHERE o.job_id = due.job_id AND o.seq = due.seq
      RETURNING o.job_id, o.seq, o.event, o.target, o.claim, o.attempts`,
    values: [workerId, limit, claimMs],
  })
  return rows.map((r) => ({ jobId: r.job_id, seq: r.seq, event: r.event, target: r.target, claim: r.claim, attempts: r.attempts }))
}

/** Delivered or given up (the row leaves), or failed and due again after `retryAfterMs`; nothing when a later claim took it. */
export async function finishOutbox(q: Query, entry: OutboxEntry, retryAfterMs?: number): Promise<void> {
  if (retryAfterMs === undefined) {
    await q({ name: 'gw_outbox_done', text: 'DELETE FROM gateway_job_outbox WHERE job_id = $1 AND seq = $2 AND claim = $3', values: [entry.jobId, entry.seq, entry.claim] })
    return
  }
  await q({
    name: 'gw_outbox_retry',
    text: `UPDATE gateway_job_outbox SET attempts = attempts + 1, claimed_by = NULL,
      not_before = clock_timestamp() + make_interval(secs => $4::double precision / 1000)
      WHERE job_id = $1 AND seq = $2 AND claim = $3`,
    values: [entry.jobId, entry.seq, entry.claim, retryAfterMs],
  })
}
