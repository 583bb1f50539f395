/**
 * Job rows on PostgreSQL: adding (once per idempotency key), reading, fenced and conditional
 * updates (with their event recorded in the same statement), retention, and the daily token
 * counters (an atomic upsert per UTC day, queue-options.3).
 */
import { TERMINAL_JOB_STATUSES } from '../protocol/index.ts'
import type { QueueAdapter } from './adapter.ts'
import { recordOf, type PgQueueContext, type Row } from './postgres-context.ts'
import type { JobWriteBatch } from './postgres-write-batch.ts'

const TERMINAL = [...TERMINAL_JOB_STATUSES]

type JobOperations = Required<Pick<QueueAdapter, 'add' | 'addOnce' | 'findJobBySession' | 'get' | 'list' | 'update' | 'prune' | 'addDailyTokens' | 'dailyTokens'>>

/** `batch`: this process's group commit of job writes (shared with completeAndClaim, which claims with its writes). */
export function jobOperations(ctx: PgQueueContext, batch: JobWriteBatch): JobOperations {
  const { q, r } = ctx
  return {
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
        if (rows[0]) return recordOf(rows[0])
      }
      throw new Error('idempotency key: the job holding it vanished three times (pruned while retried)')
    },

    async findJobBySession(sessionId) {
      const { rows } = await r<Row>(`SELECT info, request FROM gateway_jobs WHERE session_id = $1 ORDER BY seq DESC LIMIT 1`, [sessionId])
      return recordOf(rows[0])
    },

    async get(id) {
      return recordOf((await r<Row>({ name: 'gw_get', text: 'SELECT info, request FROM gateway_jobs WHERE id = $1', values: [id] })).rows[0])
    },

    async list() {
      return (await r<Row>('SELECT info, request FROM gateway_jobs ORDER BY seq')).rows.map((row) => recordOf(row)!)
    },

    // Fenced (or queued-only) and recorded as one write was, several jobs' writes per statement
    // (postgres-write-batch.ts); a job's writes one at a time, in call order (inJobOrder).
    update: (id, patch, fence, event, start) => ctx.inJobOrder(id, () => batch.write(id, patch, fence, event, start)),

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
  }
}
