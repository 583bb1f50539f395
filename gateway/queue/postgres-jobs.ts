/**
 * Job rows on PostgreSQL: adding (once per idempotency key), reading, fenced and conditional
 * updates (with their event recorded in the same statement), retention, and the daily token
 * counters (an atomic upsert per UTC day, queue-options.3).
 */
import { TERMINAL_JOB_STATUSES, type JobInfo } from '../protocol/index.ts'
import type { QueueAdapter } from './adapter.ts'
import { FENCED, RETURNING, recordOf, type PgQueueContext, type Row } from './postgres-context.ts'
import { draftJson, recordedUpdateSql } from './postgres-outbox.ts'

const TERMINAL = [...TERMINAL_JOB_STATUSES]

/** An update's patch as SQL values: the defined keys to merge, the keys set to undefined to drop (JSON has no undefined). */
export function mergeOf(patch: Partial<JobInfo>): [string, string[]] {
  return [JSON.stringify(patch), Object.keys(patch).filter((k) => (patch as Record<string, unknown>)[k] === undefined)]
}

type JobOperations = Required<Pick<QueueAdapter, 'add' | 'addOnce' | 'findJobBySession' | 'get' | 'list' | 'update' | 'prune' | 'addDailyTokens' | 'dailyTokens'>>

export function jobOperations(ctx: PgQueueContext): JobOperations {
  const { q, r, workerId } = ctx
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

    async update(id, patch, fence, event) {
      // The condition is checked in the writing statement itself, under the row lock: the claim
      // fence (this process holds the attempt's claim), or a queued job's (no claim came first).
      const kind = !fence ? '' : 'queued' in fence ? '_queued' : 'held' in fence ? '_held' : '_fenced'
      const where = `id = $1${kind === '_fenced' ? ` AND ${FENCED('$4', '$5')}` : kind === '_queued' ? ` AND status = 'queued'`
        : kind === '_held' ? ` AND status IN ('running', 'parked') AND (info->>'attempt')::integer = $4` : ''}`
      const values: unknown[] = [id, ...mergeOf(patch), ...(fence && 'attempt' in fence ? [workerId, fence.attempt] : fence && 'held' in fence ? [fence.held] : [])]
      if (event) {
        return ctx.inJobOrder(id, async () => recordOf((await q<Row>({
          name: `gw_update_recorded${kind}`, text: recordedUpdateSql(where, `$${values.length + 1}`), values: [...values, draftJson(event)],
        })).rows[0]))
      }
      const { rows } = await q<Row>({ name: `gw_update${kind}`, text: `UPDATE gateway_jobs SET info = (info || $2::jsonb) - $3::text[] WHERE ${where} ${RETURNING}`, values })
      return recordOf(rows[0])
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
  }
}
