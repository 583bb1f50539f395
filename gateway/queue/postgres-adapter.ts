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
import pg from 'pg'
import { TERMINAL_JOB_STATUSES, type CreateJobRequest, type JobEvent, type JobInfo } from '../protocol/index.ts'
import { LOCKS, WORK_CHANNEL } from '../postgres/migrations.ts'
import { databaseIdOf, openPool, POOL_DEFAULTS, type PostgresConnectionOptions } from '../postgres/pool.ts'
import { query, read, transaction } from '../postgres/retry.ts'
import type { ClaimLimits, QueueAdapter, ResumeAndAdoptOutcome, WrittenRecord } from './adapter.ts'
import { claimOutbox, draftJson, finishOutbox, recordedUpdateSql, resumeRecordedSql } from './postgres-outbox.ts'

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

type Row = { info: JobInfo; request: CreateJobRequest; event?: JobEvent | null }
const RETURNING = 'RETURNING info, request'
const TERMINAL = [...TERMINAL_JOB_STATUSES]
/** The fence: this process still holds the claim for that attempt (running, or parked by it). */
const FENCED = (owner: string, attempt: string) => `lease_owner = ${owner} AND status IN ('running', 'parked') AND (info->>'attempt')::integer = ${attempt}`

/** An update's patch as SQL values: the defined keys to merge, the keys set to undefined to drop (JSON has no undefined). */
function merge(patch: Partial<JobInfo>): [string, string[]] {
  return [JSON.stringify(patch), Object.keys(patch).filter((k) => (patch as Record<string, unknown>)[k] === undefined)]
}

export async function createPostgresQueueAdapter(options: PostgresQueueOptions): Promise<PostgresQueueAdapter> {
  const leaseMs = options.leaseMs ?? POSTGRES_QUEUE_DEFAULTS.leaseMs
  // A process stalled inside a claim or resume transaction holds the fleet's claim lock and the
  // job's row: the server ends that transaction well before the process's lease would lapse, so
  // the rest of the fleet claims and resumes on (a result posted meanwhile is applied elsewhere).
  const idleInTransactionMs = options.idleInTransactionMs ?? Math.min(POOL_DEFAULTS.idleInTransactionMs, Math.max(1_000, leaseMs / 2))
  const pool = await openPool({ ...options, idleInTransactionMs })
  const workerId = options.workerId ?? `gw-${randomUUID()}`
  const leaseSql = `clock_timestamp() + make_interval(secs => ${Number(leaseMs) / 1000})`
  const listeners = new Set<() => void>()
  const beats = new Set<() => void>()
  const wake = () => { for (const l of listeners) { try { l() } catch { /* a listener never breaks the adapter */ } } }
  let closed = false
  const q = <R extends pg.QueryResultRow>(config: pg.QueryConfig | string, values?: unknown[]) => query<R>(pool, config, values)
  // Statements without effects: tried once more when their connection broke (reported, so an
  // operator sees the database's trouble even when the second try answered).
  const r = <R extends pg.QueryResultRow>(config: pg.QueryConfig | string, values?: unknown[]) => read<R>(pool, config, values, { onRetry: (err) => options.onError?.(err) })

  // Claims from one process go one at a time, in call order: the oldest job to the first caller.
  let claimTail: Promise<unknown> = Promise.resolve()
  const serial = <T>(op: () => Promise<T>): Promise<T> => {
    const next = claimTail.then(op, op)
    claimTail = next.catch(() => undefined)
    return next
  }

  const record = (row: Row | undefined): WrittenRecord | undefined => (row ? { info: row.info, request: row.request, ...(row.event ? { event: row.event } : {}) } : undefined)

  // A job's event-recording writes from this process go one at a time, in call order: each one's
  // number (taken under the row lock) then follows the order the queue made them in, even when
  // the pool runs them on different connections (a progress write never overtakes the park).
  const jobChains = new Map<string, Promise<unknown>>()
  const inJobOrder = <T>(id: string, op: () => Promise<T>): Promise<T> => {
    const next = (jobChains.get(id) ?? Promise.resolve()).then(op, op)
    const settled = next.catch(() => undefined)
    jobChains.set(id, settled)
    void settled.then(() => { if (jobChains.get(id) === settled) jobChains.delete(id) })
    return next
  }

  /**
   * Takes the claim lock (after the caller's job row lock: LOCKS' order) and answers whether a
   * fleet-wide slot is free; when not, the next release is asked to notify (slot_waiters).
   */
  const slotFree = async (client: pg.PoolClient, limits: ClaimLimits): Promise<boolean> => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [LOCKS.claim])
    const running = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM gateway_jobs WHERE status = 'running'`)).rows[0].n)
    if (running < limits.maxRunning) return true
    await client.query('SELECT gateway_wait_for_slot()')
    return false
  }
  const toRunning = `UPDATE gateway_jobs SET info = jsonb_set(info, '{status}', '"running"'), lease_owner = $2, lease_until = ${leaseSql} WHERE id = $1`

  const claimSql = `
    UPDATE gateway_jobs SET info = jsonb_set(info, '{status}', '"running"'), lease_owner = $2, lease_until = ${leaseSql}
    WHERE id = (
      SELECT id FROM gateway_jobs
      WHERE status = 'queued' AND (next_run_at IS NULL OR next_run_at <= $1)
      ORDER BY seq FOR UPDATE SKIP LOCKED LIMIT 1
    ) ${RETURNING}`

  // Heartbeat: renew the claims this process holds a run for (renewOnly; all of them when no
  // queue said which), so a job whose run ended or never started here lapses and is reclaimed
  // rather than kept running forever; the same tick wakes the queue so an idle
  // process notices lapsed claims of a dead one even when no notification comes. SKIP LOCKED: a
  // heartbeat never waits for a row (a row locked now is being completed or reclaimed; the next
  // beat renews it if it is still ours).
  // Until when (this process's clock) each running job's lease surely holds: the time a renewal
  // or claim was sent, plus the lease (the database set lease_until later than that).
  let heldUntil = new Map<string, number>()
  // Set by the queue (renewOnly): the attempts it has a run for; the heartbeat renews only those.
  let renewable: (() => Iterable<{ id: string; attempt: number }>) | undefined
  const renew = async () => {
    if (!renewable) {
      return q<{ id: string }>({ name: 'gw_heartbeat_held', text: `UPDATE gateway_jobs SET lease_until = ${leaseSql} WHERE id IN (
        SELECT id FROM gateway_jobs WHERE lease_owner = $1 AND status = 'running' FOR UPDATE SKIP LOCKED) RETURNING id`, values: [workerId] })
    }
    const claims = [...renewable()]
    return q<{ id: string }>({ name: 'gw_heartbeat_runs', text: `UPDATE gateway_jobs SET lease_until = ${leaseSql} WHERE id IN (
      SELECT j.id FROM gateway_jobs j JOIN unnest($2::text[], $3::integer[]) AS c(id, attempt) ON j.id = c.id
      WHERE ${FENCED('$1', 'c.attempt')} AND status = 'running' FOR UPDATE OF j SKIP LOCKED) RETURNING id`,
      values: [workerId, claims.map((c) => c.id), claims.map((c) => c.attempt)] })
  }
  const heartbeat = setInterval(() => {
    if (closed) return
    const sentAt = Date.now()
    renew()
      .then(({ rows }) => {
        // Renewed now, or claimed since this beat was sent; every other lease is left to lapse.
        const next = new Map([...heldUntil].filter(([, until]) => until - leaseMs > sentAt))
        for (const r of rows) next.set(r.id, sentAt + leaseMs)
        heldUntil = next
      })
      .catch((err) => options.onError?.(err))
      .finally(() => { for (const l of beats) { try { l() } catch { /* never breaks the heartbeat */ } } })
    wake()
  }, Math.max(10, Math.floor(leaseMs / 3)))
  heartbeat.unref()

  // A dedicated connection for LISTEN; reconnects while the adapter is open, and keeps trying
  // while the server is down (the heartbeat's wake-ups keep the queue pumping meanwhile).
  let listener: pg.Client | undefined
  const listen = async (): Promise<void> => {
    if (closed) return
    const client = new pg.Client({ connectionString: options.url })
    client.on('error', (err) => options.onError?.(err))
    client.on('notification', wake)
    client.on('end', () => {
      if (listener === client) listener = undefined
      if (!closed) relisten()
    })
    await client.connect()
    await client.query(`LISTEN ${WORK_CHANNEL}`)
    if (closed) await client.end()
    else listener = client
  }
  const relisten = (): void => {
    setTimeout(() => void listen().catch((err) => { options.onError?.(err); if (!closed && !listener) relisten() }), 1000).unref()
  }
  await listen()

  return {
    workerId,
    databaseId: databaseIdOf(options.url),

    async add(rec) {
      await q('INSERT INTO gateway_jobs (id, info, request) VALUES ($1, $2, $3)', [rec.info.id, rec.info, rec.request])
    },

    async addOnce(rec, key) {
      // Inserted, or the key's job read back (a retry of a submission that committed). The read
      // is a statement of its own: its snapshot sees a concurrent insert of the same key, which
      // the insert waited for before it did nothing.
      for (let tries = 0; tries < 3; tries++) {
        const added = await q(`INSERT INTO gateway_jobs (id, info, request, idempotency_key) VALUES ($1, $2, $3, $4)
          ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING`, [rec.info.id, rec.info, rec.request, key])
        if (added.rowCount === 1) return undefined
        const { rows } = await r<Row>('SELECT info, request FROM gateway_jobs WHERE idempotency_key = $1', [key])
        if (rows[0]) return record(rows[0])
      }
      throw new Error('idempotency key: the job holding it vanished three times (pruned while retried)')
    },

    claimNext(now, limits?: ClaimLimits) {
      return serial(async () => {
        const sentAt = Date.now()
        const { rows } = limits
          ? await q<Row>({ name: 'gw_claim', text: 'SELECT info, request FROM gateway_claim($1, $2, $3, $4, $5)', values: [now, workerId, leaseMs, limits.maxRunning, LOCKS.claim] })
          : await q<Row>({ name: 'gw_claim_unlimited', text: claimSql, values: [now, workerId] })
        for (const r of rows) heldUntil.set(r.info.id, sentAt + leaseMs)
        return record(rows[0])
      })
    },

    claimBatch(now, limits, count) {
      return serial(async () => {
        const sentAt = Date.now()
        const { rows } = await q<Row>({ name: 'gw_claim_batch', text: 'SELECT info, request FROM gateway_claim_batch($1, $2, $3, $4, $5, $6)', values: [now, workerId, leaseMs, limits.maxRunning, LOCKS.claim, count] })
        for (const r of rows) heldUntil.set(r.info.id, sentAt + leaseMs)
        return rows.map((r) => record(r)!)
      })
    },

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
        heldUntil.set(id, sentAt + leaseMs)
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
        heldUntil.set(id, sentAt + leaseMs)
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
      return rows.map((r) => record(r)!)
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
      return rows.map((r) => record(r)!)
    },

    async findJobBySession(sessionId) {
      const { rows } = await r<Row>(`SELECT info, request FROM gateway_jobs WHERE session_id = $1 ORDER BY seq DESC LIMIT 1`, [sessionId])
      return record(rows[0])
    },

    async get(id) {
      return record((await r<Row>({ name: 'gw_get', text: 'SELECT info, request FROM gateway_jobs WHERE id = $1', values: [id] })).rows[0])
    },

    async list() {
      return (await r<Row>('SELECT info, request FROM gateway_jobs ORDER BY seq')).rows.map((row) => record(row)!)
    },

    async update(id, patch, fence, event) {
      // The condition is checked in the writing statement itself, under the row lock: Deliver 3's
      // fence (this process holds the attempt's claim), or a queued job's (no claim came first).
      const kind = !fence ? '' : 'queued' in fence ? '_queued' : '_fenced'
      const where = `id = $1${kind === '_fenced' ? ` AND ${FENCED('$4', '$5')}` : kind === '_queued' ? ` AND status = 'queued'` : ''}`
      const values: unknown[] = [id, ...merge(patch), ...(fence && 'attempt' in fence ? [workerId, fence.attempt] : [])]
      if (event) {
        return inJobOrder(id, async () => record((await q<Row>({
          name: `gw_update_recorded${kind}`, text: recordedUpdateSql(where, `$${values.length + 1}`), values: [...values, draftJson(event)],
        })).rows[0]))
      }
      const { rows } = await q<Row>({ name: `gw_update${kind}`, text: `UPDATE gateway_jobs SET info = (info || $2::jsonb) - $3::text[] WHERE ${where} ${RETURNING}`, values })
      return record(rows[0])
    },

    completeAndClaim(id, patch, now, limits, fence, event) {
      // A claim: in call order with this process's other claims (and with the job's other events).
      return inJobOrder(id, () => serial(async () => {
        const sentAt = Date.now()
        const { rows } = await q<{ done_info: JobInfo | null; done_event: JobEvent | null; next_info: JobInfo | null; next_request: CreateJobRequest | null }>({
          name: 'gw_complete_and_claim_recorded',
          text: 'SELECT done_info, done_event, next_info, next_request FROM gateway_complete_and_claim_recorded($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)',
          values: [id, ...merge(patch), now, workerId, leaseMs, limits.maxRunning, LOCKS.claim, fence ? workerId : null, fence?.attempt ?? null, draftJson(event)],
        })
        const r = rows[0]
        if (r?.next_info) heldUntil.set(r.next_info.id, sentAt + leaseMs)
        return {
          completed: r?.done_info ?? undefined,
          ...(r?.done_event ? { completedEvent: r.done_event } : {}),
          claimed: r?.next_info ? { info: r.next_info, request: r.next_request! } : undefined,
        }
      }))
    },

    recordsEvents: true,

    claimOutbox(limit, claimMs) {
      return claimOutbox(q, workerId, limit, claimMs)
    },

    finishOutbox(entry, retryAfterMs) {
      return finishOutbox(q, entry, retryAfterMs)
    },

    async prune(olderThanMs, now) {
      // The history and settled execution ids go with their job (no foreign key: migration 2), in the same statement.
      const { rows } = await q<{ n: number }>(`
        WITH gone AS (DELETE FROM gateway_jobs WHERE status = ANY($1) AND coalesce(finished_at, 0) <= $2 RETURNING id),
        history AS (DELETE FROM gateway_job_history WHERE job_id IN (SELECT id FROM gone)),
        settled AS (DELETE FROM gateway_settled_executions WHERE job_id IN (SELECT id FROM gone))
        SELECT count(*)::int AS n FROM gone`, [TERMINAL, now - olderThanMs])
      return rows[0].n
    },

    async addDailyTokens(dayKey, tokens) {
      const { rows } = await q<{ tokens: string }>(`
        INSERT INTO gateway_daily_tokens (day, tokens) VALUES ($1, $2)
        ON CONFLICT (day) DO UPDATE SET tokens = gateway_daily_tokens.tokens + EXCLUDED.tokens
        RETURNING tokens`, [dayKey, Math.round(tokens)])
      return Number(rows[0].tokens)
    },

    async dailyTokens(dayKey) {
      const { rows } = await r<{ tokens: string }>('SELECT tokens FROM gateway_daily_tokens WHERE day = $1', [dayKey])
      return Number(rows[0]?.tokens ?? 0)
    },

    onWork(l) {
      listeners.add(l)
    },

    leaseHeld(id) {
      return (heldUntil.get(id) ?? 0) > Date.now()
    },

    onHeartbeat(l) {
      beats.add(l)
    },

    renewOnly(claims) {
      renewable = claims
    },

    async claimsHeld(claims) {
      const { rows } = await q<{ id: string }>(`SELECT j.id FROM gateway_jobs j JOIN unnest($2::text[], $3::integer[]) AS c(id, attempt) ON j.id = c.id
        WHERE ${FENCED('$1', 'c.attempt')}`, [workerId, claims.map((c) => c.id), claims.map((c) => c.attempt)])
      return new Set(rows.map((r) => r.id))
    },

    async close() {
      if (closed) return
      closed = true
      clearInterval(heartbeat)
      const l = listener
      listener = undefined
      await l?.end().catch(() => undefined)
      await pool.end()
    },
  }
}
