/**
 * Group commit of one process's job writes (queue-options.12 `update`; events.23: ordered per job): every `update` the
 * queue makes (a run's fenced start, its final write, a progress event, a cancel of a queued job)
 * joins the next batch, and a batch is ONE statement, so one round trip and one commit for all
 * the jobs in it instead of one each. Nothing about a single write changes:
 *
 * - Fenced: each row's condition (the claim fence: lease owner + attempt, `queued`, or `held`) is checked
 *   in the writing statement, under the row lock, exactly as FENCED does for one write; a row
 *   whose fence fails is left as it was and its caller gets undefined (the others still land).
 * - In order: a job's writes reach this batcher one at a time (the adapter sends every `update`
 *   through `inJobOrder`), so a batch holds at most one write per job, and its event number is
 *   taken under the row lock as before. The outbox row and the history row of each transition are
 *   written by the same statement (gateway_record_event, the transition trigger): one transaction.
 * - Durable before answered: a caller's promise settles only once the statement committed.
 *
 * Lock order (LOCKS): the statement first locks every row it writes, in id order, before any row
 * is written, so the transition trigger's shared claim lock (taken when a running job ends) is
 * never held while the batch waits for a job row; and a batch of several waits for no row at all
 * (SKIP LOCKED): a write whose row another transaction holds goes again alone, and only it waits.
 *
 * A batch starts at the end of the event-loop turn in which its first write arrived (every write
 * the same turn made joins it), at most MAX_IN_FLIGHT at once; the rest wait for one to finish.
 */
import type { CreateJobRequest, JobEvent, JobInfo } from '../protocol/index.ts'
import { isBrokenConnection } from '../postgres/retry.ts'
import { LOCKS } from '../postgres/migrations.ts'
import type { ClaimLimits, EventDraft, Fence, HeldFence, JobRecord, QueuedFence, StartStep, WrittenRecord } from './adapter.ts'
import type { PgQueueContext } from './postgres-context.ts'
import { draftOf } from './postgres-outbox.ts'

/** Rows per statement at most: a bound on one statement's size (24 slots ending together fill 24 in the queue bench). */
export const WRITE_BATCH_MAX = 64
/**
 * Batches in flight at once: one being written while the next fills (1, 2, 4 and 8 measured level,
 * queue-trace.ts at load ≈ 30; 8 rows × 4 in flight against 64 × 2, after ends claimed together:
 * within the noise, and 4 of a pool of 6 left the fleet's other statements waiting).
 */
const MAX_IN_FLIGHT = 2

interface PendingWrite {
  id: string
  patch: Partial<JobInfo>
  cleared: string[]
  kind: 'fenced' | 'queued' | 'held' | 'none'
  attempt: number | null
  draft: unknown
  /** A final write that asks for a claim for the slot it frees (completeAndClaim), with its claim's limits. */
  claim?: { now: number; maxRunning: number }
  /** The job its batch claimed for it (handed over with its answer, also when it was sent again alone). */
  claimed?: JobRecord
  /** A start step, written first (StartStep): its patch, cleared keys and event draft. */
  start?: { patch0: Partial<JobInfo>; cleared0: string[]; draft0: unknown }
  resolve(record: WrittenRecord | undefined, claimed?: JobRecord): void
  reject(err: unknown): void
}

/** The batch and its claims as one call (migration 13, `gateway_write_batch_claim`). */
const CLAIM_SQL = 'SELECT n, info, request, event0, event, busy FROM gateway_write_batch_claim($1, $2, $3, $4, $5, $6, $7, $8)'

/**
 * The batch as one statement. `$1` is a JSON array of writes (n, id, patch, cleared, kind,
 * attempt, draft, and a start step: patch0, cleared0, draft0); `$2` this process's worker id (the
 * fence's lease owner); `$3` the ids again, as an array, which the planner reads as a primary-key
 * lookup (the JSON's rows it cannot count, and it scanned the whole table for them). Rows come
 * back with their write's `n`; a write with no row was fenced out (or its job is gone). A write
 * that recorded an event has its job in the event only (`info` null: one copy of the row to send and parse).
 *
 * A write with a start step (an attempt that ended before its start was written: `StartStep`)
 * applies it first and records its event first (`event0`, numbered before the write's own), the
 * job in that event as the start step left it: one row version, two events in order.
 *
 * `skipLocked`: a row another transaction holds is not waited for (a process stalled inside a
 * resume holds its job's row until the server ends its transaction: the other jobs' writes must not
 * wait behind it); its write comes back `busy` and is sent again alone, by the waiting form.
 * Migration 13's gateway_write_batch_claim holds the same statement (its skipping form).
 */
export function batchSql(skipLocked: boolean): string {
  return `
  WITH e AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS e(n integer, id text, patch jsonb, cleared text[], kind text, attempt integer, draft jsonb, patch0 jsonb, cleared0 text[], draft0 jsonb)
  ), locked AS (
    SELECT j.id, j.info FROM gateway_jobs j WHERE j.id = ANY($3::text[]) ORDER BY j.id FOR UPDATE OF j${skipLocked ? ' SKIP LOCKED' : ''}
  ), u AS (
    UPDATE gateway_jobs j SET info = (((j.info || coalesce(e.patch0, '{}'::jsonb)) - coalesce(e.cleared0, '{}'::text[])) || e.patch) - e.cleared,
      event_seq = j.event_seq + (e.draft0 IS NOT NULL)::integer + (e.draft IS NOT NULL)::integer
    FROM e
    WHERE (SELECT count(*) FROM locked) >= 0 AND j.id = ANY($3::text[]) AND j.id = e.id AND j.id IN (SELECT l.id FROM locked l)
      AND CASE e.kind
        WHEN 'fenced' THEN j.lease_owner = $2 AND j.status IN ('running', 'parked') AND (j.info->>'attempt')::integer = e.attempt
        WHEN 'queued' THEN j.status = 'queued'
        WHEN 'held' THEN j.status IN ('running', 'parked') AND (j.info->>'attempt')::integer = e.attempt
        ELSE true END
    RETURNING e.n, j.id, j.info, j.request, j.event_seq, e.draft, e.patch0, e.cleared0, e.draft0)
  SELECT u.n, CASE WHEN u.draft IS NULL THEN u.info END AS info, u.request,
    CASE WHEN u.draft0 IS NOT NULL THEN gateway_record_event(u.id, u.event_seq - (u.draft IS NOT NULL)::integer, (l.info || u.patch0) - coalesce(u.cleared0, '{}'::text[]), u.draft0) END AS event0,
    CASE WHEN u.draft IS NOT NULL THEN gateway_record_event(u.id, u.event_seq, u.info, u.draft) END AS event, false AS busy
  FROM u JOIN locked l ON l.id = u.id
  UNION ALL
  SELECT e.n, NULL::jsonb, NULL::jsonb, NULL::jsonb, NULL::jsonb, true FROM e WHERE NOT EXISTS (SELECT 1 FROM locked l WHERE l.id = e.id)`
}

const SQL = { skip: batchSql(true), wait: batchSql(false) }

/** A start step as the statement takes it (none: the write has none). */
function startOf(start: StartStep | undefined): Pick<PendingWrite, 'start'> {
  if (!start) return {}
  const cleared0 = Object.keys(start.patch).filter((k) => (start.patch as Record<string, unknown>)[k] === undefined)
  return { start: { patch0: start.patch, cleared0, draft0: draftOf(start.event) ?? null } }
}

/** A write's cleared keys, its fence's kind and its attempt, as the statement takes them. */
function fenceOf(patch: Partial<JobInfo>, fence?: Fence | QueuedFence | HeldFence): [string[], PendingWrite['kind'], number | null] {
  const cleared = Object.keys(patch).filter((k) => (patch as Record<string, unknown>)[k] === undefined)
  const kind = !fence ? 'none' : 'queued' in fence ? 'queued' : 'held' in fence ? 'held' : 'fenced'
  const attempt = !fence ? null : 'attempt' in fence ? fence.attempt : 'held' in fence ? fence.held : null
  return [cleared, kind, attempt]
}

/**
 * `n` null: a job the batch claimed (its claims follow its writes). `info` null when the write
 * recorded an event: the event's `job` is the same row, sent once.
 */
type BatchRow = { n: number | null; info: JobInfo | null; request: CreateJobRequest; event0: JobEvent | null; event: JobEvent | null; busy: boolean }

export class JobWriteBatch {
  readonly #ctx: PgQueueContext
  #pending: PendingWrite[] = []
  #inFlight = 0
  #scheduled = false
  /** A job this process claimed, at `sentAt` (its lease is known to hold from then). */
  readonly #onClaimed: (id: string, sentAt: number) => void

  constructor(ctx: PgQueueContext, onClaimed: (id: string, sentAt: number) => void = () => {}) {
    this.#ctx = ctx
    this.#onClaimed = onClaimed
  }

  /**
   * The adapter's `completeAndClaim`: the write joins the next batch as any write does, and the
   * batch, after its writes, claims one job for each such write in it (the slots their ends free),
   * under the claim lock and the fleet-wide count (migration 13). The claimed jobs go to these
   * writes in batch order, the oldest to the first. A write sent again alone (its row was busy)
   * claims nothing: its caller's pump claims for the slot.
   */
  writeAndClaim(id: string, patch: Partial<JobInfo>, now: number, limits: ClaimLimits, fence?: Fence, event?: EventDraft, start?: StartStep): Promise<{ written: WrittenRecord | undefined; claimed?: JobRecord }> {
    const [cleared, kind, attempt] = fenceOf(patch, fence)
    return new Promise((resolve, reject) => {
      this.#pending.push({ id, patch, cleared, kind, attempt, draft: draftOf(event), ...startOf(start), claim: { now, maxRunning: limits.maxRunning }, resolve: (written, claimed) => resolve({ written, ...(claimed ? { claimed } : {}) }), reject })
      this.#schedule()
    })
  }

  /** The adapter's `update` (callers keep one write per job in flight: see the header). */
  write(id: string, patch: Partial<JobInfo>, fence?: Fence | QueuedFence | HeldFence, event?: EventDraft, start?: StartStep): Promise<WrittenRecord | undefined> {
    const [cleared, kind, attempt] = fenceOf(patch, fence)
    return new Promise((resolve, reject) => {
      this.#pending.push({ id, patch, cleared, kind, attempt, draft: draftOf(event), ...startOf(start), resolve, reject })
      this.#schedule()
    })
  }

  #schedule(): void {
    if (this.#scheduled || this.#inFlight >= MAX_IN_FLIGHT || this.#pending.length === 0) return
    this.#scheduled = true
    setImmediate(() => {
      this.#scheduled = false
      while (this.#inFlight < MAX_IN_FLIGHT && this.#pending.length > 0) void this.#send(this.#pending.splice(0, WRITE_BATCH_MAX))
    })
  }

  /** `wait`: the write is sent alone and waits for its row (it was busy in a batch). */
  async #send(batch: PendingWrite[], wait = false): Promise<void> {
    this.#inFlight++
    try {
      const claims = wait ? 0 : batch.filter((w) => w.claim).length
      const sentAt = Date.now()
      const rows = await this.#run(batch, wait || (batch.length === 1 && claims === 0), claims)
      const byN = new Map(rows.map((r) => [r.n, r]))
      const claimed = rows.filter((r) => r.n === null).map((r) => ({ info: r.info!, request: r.request }))
      for (const record of claimed) this.#onClaimed(record.info.id, sentAt)
      batch.forEach((w, n) => {
        const row = byN.get(n)
        // Each claiming write's job, the oldest to the first: kept by a busy one for when it lands.
        if (w.claim && !wait) w.claimed = claimed.shift()
        // Busy: another transaction held its row; sent again alone (the job's next write waits for it).
        if (row?.busy && !wait && (batch.length > 1 || claims > 0)) void this.#send([w], true)
        else w.resolve(row && !row.busy ? { info: row.info ?? row.event!.job, request: row.request, ...(row.event ? { event: row.event } : {}), ...(row.event0 ? { startEvent: row.event0 } : {}) } : undefined, w.claimed)
      })
    } catch (err) {
      // A broken connection leaves the batch's outcome unknown, as for a single write: every
      // caller hears it. Any other failure is one write's (a value the statement could not
      // take): each write runs alone, so only its own caller fails.
      if (batch.length === 1 || isBrokenConnection(err)) for (const w of batch) w.reject(err)
      else for (const w of batch) void this.#send([w], true)
    } finally {
      this.#inFlight--
      this.#schedule()
    }
  }

  async #run(batch: PendingWrite[], wait: boolean, claims: number): Promise<BatchRow[]> {
    const writes = batch.map((w, n) => ({ n, id: w.id, patch: w.patch, cleared: w.cleared, kind: w.kind, attempt: w.attempt, draft: w.draft, ...w.start }))
    if (claims > 0) {
      const asked = batch.filter((w) => w.claim).map((w) => w.claim!)
      const { rows } = await this.#ctx.q<BatchRow>({
        name: 'gw_update_batch_claim', text: CLAIM_SQL,
        values: [JSON.stringify(writes), this.#ctx.workerId, batch.map((w) => w.id), Math.max(...asked.map((c) => c.now)), this.#ctx.leaseMs, Math.min(...asked.map((c) => c.maxRunning)), LOCKS.claim, claims],
      })
      return rows
    }
    const { rows } = await this.#ctx.q<BatchRow>({
      name: wait ? 'gw_update_batch_wait' : 'gw_update_batch', text: wait ? SQL.wait : SQL.skip,
      values: [JSON.stringify(writes), this.#ctx.workerId, batch.map((w) => w.id)],
    })
    return rows
  }
}
