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
import type { EventDraft, Fence, HeldFence, QueuedFence, WrittenRecord } from './adapter.ts'
import type { PgQueueContext } from './postgres-context.ts'
import { draftOf } from './postgres-outbox.ts'

/** Rows per statement at most: a bound on one statement's size (24 slots fill ≈ 5 per batch in the queue bench). */
export const WRITE_BATCH_MAX = 64
/** Batches in flight at once: one being written while the next fills (1, 2, 4 and 8 measured level, queue-trace.ts at load ≈ 30). */
const MAX_IN_FLIGHT = 2

interface PendingWrite {
  id: string
  patch: Partial<JobInfo>
  cleared: string[]
  kind: 'fenced' | 'queued' | 'held' | 'none'
  attempt: number | null
  draft: unknown
  resolve(record: WrittenRecord | undefined): void
  reject(err: unknown): void
}

/**
 * The batch as one statement. `$1` is a JSON array of writes (n, id, patch, cleared, kind,
 * attempt, draft); `$2` this process's worker id (the fence's lease owner); `$3` the ids
 * again, as an array, which the planner reads as a primary-key lookup (the JSON's rows it cannot
 * count, and it scanned the whole table for them). Rows come back with their write's `n`; a write
 * with no row was fenced out (or its job is gone).
 *
 * `skipLocked`: a row another transaction holds is not waited for (a process stalled inside a
 * resume holds its job's row until the server ends its transaction: the other jobs' writes must not
 * wait behind it); its write comes back `busy` and is sent again alone, by the waiting form.
 */
export function batchSql(skipLocked: boolean): string {
  return `
  WITH e AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS e(n integer, id text, patch jsonb, cleared text[], kind text, attempt integer, draft jsonb)
  ), locked AS (
    SELECT j.id FROM gateway_jobs j WHERE j.id = ANY($3::text[]) ORDER BY j.id FOR UPDATE OF j${skipLocked ? ' SKIP LOCKED' : ''}
  ), u AS (
    UPDATE gateway_jobs j SET info = (j.info || e.patch) - e.cleared, event_seq = j.event_seq + (e.draft IS NOT NULL)::integer
    FROM e
    WHERE (SELECT count(*) FROM locked) >= 0 AND j.id = ANY($3::text[]) AND j.id = e.id AND j.id IN (SELECT l.id FROM locked l)
      AND CASE e.kind
        WHEN 'fenced' THEN j.lease_owner = $2 AND j.status IN ('running', 'parked') AND (j.info->>'attempt')::integer = e.attempt
        WHEN 'queued' THEN j.status = 'queued'
        WHEN 'held' THEN j.status IN ('running', 'parked') AND (j.info->>'attempt')::integer = e.attempt
        ELSE true END
    RETURNING e.n, j.id, j.info, j.request, j.event_seq, e.draft)
  SELECT u.n, u.info, u.request, CASE WHEN u.draft IS NOT NULL THEN gateway_record_event(u.id, u.event_seq, u.info, u.draft) END AS event, false AS busy FROM u
  UNION ALL
  SELECT e.n, NULL::jsonb, NULL::jsonb, NULL::jsonb, true FROM e WHERE NOT EXISTS (SELECT 1 FROM locked l WHERE l.id = e.id)`
}

const SQL = { skip: batchSql(true), wait: batchSql(false) }

type BatchRow = { n: number; info: JobInfo; request: CreateJobRequest; event: JobEvent | null; busy: boolean }

export class JobWriteBatch {
  readonly #ctx: PgQueueContext
  #pending: PendingWrite[] = []
  #inFlight = 0
  #scheduled = false

  constructor(ctx: PgQueueContext) {
    this.#ctx = ctx
  }

  /** The adapter's `update` (callers keep one write per job in flight: see the header). */
  write(id: string, patch: Partial<JobInfo>, fence?: Fence | QueuedFence | HeldFence, event?: EventDraft): Promise<WrittenRecord | undefined> {
    const cleared = Object.keys(patch).filter((k) => (patch as Record<string, unknown>)[k] === undefined)
    const kind = !fence ? 'none' : 'queued' in fence ? 'queued' : 'held' in fence ? 'held' : 'fenced'
    const attempt = !fence ? null : 'attempt' in fence ? fence.attempt : 'held' in fence ? fence.held : null
    return new Promise((resolve, reject) => {
      this.#pending.push({ id, patch, cleared, kind, attempt, draft: draftOf(event), resolve, reject })
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
      const rows = await this.#run(batch, wait || batch.length === 1)
      const byN = new Map(rows.map((r) => [r.n, r]))
      batch.forEach((w, n) => {
        const row = byN.get(n)
        // Busy: another transaction held its row; sent again alone (the job's next write waits for it).
        if (row?.busy && !wait && batch.length > 1) void this.#send([w], true)
        else w.resolve(row && !row.busy ? { info: row.info, request: row.request, ...(row.event ? { event: row.event } : {}) } : undefined)
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

  async #run(batch: PendingWrite[], wait: boolean): Promise<BatchRow[]> {
    const writes = batch.map((w, n) => ({ n, id: w.id, patch: w.patch, cleared: w.cleared, kind: w.kind, attempt: w.attempt, draft: w.draft }))
    const { rows } = await this.#ctx.q<BatchRow>({
      name: wait ? 'gw_update_batch_wait' : 'gw_update_batch', text: wait ? SQL.wait : SQL.skip,
      values: [JSON.stringify(writes), this.#ctx.workerId, batch.map((w) => w.id)],
    })
    return rows
  }
}
