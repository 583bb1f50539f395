/**
 * The fleet run's answers to parked jobs: on each job_parked webhook (not for the unanswered
 * timer jobs) the run posts the deferred tool's result to a random live process, or to two at
 * once with `duplicates` (other than the parker when possible), until one accepts it. It keeps
 * the bookkeeping the verdict reads: the executions answered, how many POSTs answered 200 and
 * how many said `applied: true` per execution, and the results that came too late (the parked
 * cap had ended the park before the job_parked webhook arrived).
 */
import type pg from 'pg'
import type { Member } from './fleet-member.ts'

export interface ResultPosterDeps {
  token: string
  /** The run's processes, replacements included (the same array the run grows). */
  members: Member[]
  /** Post each result to two live processes at once (other than the parker when possible). */
  duplicates?: boolean
  timers?: boolean
  violations: string[]
}

interface CapCheck { late: boolean; history: string }

/** How long a result is offered before it counts as not accepted. */
const POST_FOR_MS = 20_000

export class ResultPoster {
  /** Executions whose result the run posted (each once). */
  readonly answered = new Set<string>()
  /** Per execution, the `applied: true` answers (exactly one per execution must be). */
  readonly applied = new Map<string, number>()
  /** Result POSTs answered 200. */
  resultPosts = 0
  /** Results not posted in time, not lost (see `post`). */
  lateResults = 0
  readonly #deps: ResultPosterDeps
  /** The run's pool, once it exists: until then no parker and no history are known. */
  #db: pg.Pool | undefined

  constructor(deps: ResultPosterDeps) {
    this.#deps = deps
  }

  /** The pool the parker and park-history lookups read from (the watch loop shares it). */
  useDb(db: pg.Pool): void {
    this.#db = db
  }

  get appliedTrue(): number {
    return [...this.applied.values()].reduce((a, b) => a + b, 0)
  }

  /** Posts one parked execution's result until a process accepts it; once per execution. */
  async post(executionId: string, jobId?: string, parkedAt?: number): Promise<void> {
    if (this.answered.has(executionId)) return
    this.answered.add(executionId)
    const { duplicates } = this.#deps
    const parker = jobId && duplicates ? await this.#parkerOf(jobId).catch(() => undefined) : undefined
    const firstPostAt = Date.now()
    const deadline = firstPostAt + POST_FOR_MS
    while (Date.now() < deadline) {
      const statuses = await Promise.all(this.#targets(parker).map((t) => this.#postTo(t, executionId)))
      if (statuses.includes(200)) return
      // 404 until the park is stored (job_parked is sent before the snapshot lands).
      await new Promise((r) => setTimeout(r, 50))
    }
    // Too late, not lost: the job_parked webhook came only after the parked cap had ended that
    // park (its deliverer died or stalled holding the delivery, whose claim lapses after
    // WEBHOOK_TIMEOUT_MS + 5 s, longer than the 6 s cap); the result then answers 404, its
    // session ended (errors.2). Any other unanswered result is a violation.
    const ended = jobId && parkedAt !== undefined
      ? await this.#endedByCapBefore(jobId, parkedAt, firstPostAt).catch((err: Error) => ({ late: false, history: `history unread: ${err.message}` }))
      : { late: false, history: `job ${jobId}, parkedAt ${parkedAt}` }
    if (ended.late) this.lateResults++
    else this.#deps.violations.push(`execution ${executionId}: no process accepted its result (job ${jobId}: ${ended.history})`)
  }

  /** One live process (two with duplicates), shuffled, other than the parker when enough remain. */
  #targets(parker: string | undefined): Member[] {
    const { members, duplicates } = this.#deps
    const live = members.filter((m) => m.alive && !m.stalled)
    const others = live.filter((m) => m.workerId !== parker)
    const pool = others.length >= (duplicates ? 2 : 1) ? others : live
    const shuffled = [...pool].sort(() => Math.random() - 0.5)
    return duplicates ? shuffled.slice(0, 2) : shuffled.slice(0, 1)
  }

  /** The HTTP status of one result POST, 0 when the process did not answer. */
  async #postTo(target: Member, executionId: string): Promise<number> {
    try {
      const res = await fetch(`${target.url}/executions/${executionId}/result`, {
        method: 'POST', headers: { authorization: `Bearer ${this.#deps.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ status: 'ok', output: { type: 'text', value: 'approved' } }),
      })
      const text = await res.text()
      if (process.env.FLEET_DEBUG) console.error(`result ${executionId} -> ${target.workerId}: ${res.status} ${text}`)
      if (res.status === 200) {
        this.resultPosts++
        if ((JSON.parse(text) as { applied?: boolean }).applied) this.applied.set(executionId, (this.applied.get(executionId) ?? 0) + 1)
      }
      return res.status
    } catch {
      return 0 // that process just died (or is stalled past the fetch): try another
    }
  }

  async #parkerOf(jobId: string): Promise<string | undefined> {
    if (!this.#db) return undefined
    return (await this.#db.query<{ lease_owner: string | null }>('SELECT lease_owner FROM gateway_jobs WHERE id = $1', [jobId])).rows[0]?.lease_owner ?? undefined
  }

  /**
   * Read from the history, not the job's final error: the cap fails one attempt, and the retry
   * that follows may succeed. Late: the park this webhook announced had already ended, other
   * than by a resume (parked -> queued or failed: the cap), when the first result was posted.
   */
  async #endedByCapBefore(jobId: string, parkedAt: number, postedAt: number): Promise<CapCheck> {
    if (!this.#db) return { late: false, history: '' }
    if (!this.#deps.timers) return { late: false, history: 'no timers' }
    const { rows } = await this.#db.query<{ from_status: string | null; to_status: string; at: number }>(`SELECT from_status, to_status,
      (extract(epoch FROM at) * 1000)::float8 AS at FROM gateway_job_history WHERE job_id = $1 ORDER BY id`, [jobId])
    const history = rows.map((r) => `${r.from_status ?? '-'}>${r.to_status}@${Math.round(r.at - parkedAt)}`).join(' ') + ` (ms after parkedAt; first post @${postedAt - parkedAt})`
    // The park this webhook announced (the history's time is the database's, a moment after the event's).
    const i = rows.findIndex((r) => r.to_status === 'parked' && r.at >= parkedAt - 1000)
    const next = rows[i + 1]
    const late = i >= 0 && next !== undefined && next.from_status === 'parked' && next.to_status !== 'running' && next.at <= postedAt + 500
    return { late, history }
  }
}
