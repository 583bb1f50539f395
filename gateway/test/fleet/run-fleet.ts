/**
 * The multi-process run: a real PostgreSQL, N gateway child processes on it, a real
 * webhook receiver on 127.0.0.1, jobs submitted round-robin through the processes with mixed
 * outcomes (succeed; fail and retry; park on a deferred tool, resumed by a result posted to a
 * random live process), and one process SIGKILLed while it holds claims. Every rule is checked
 * from the database's transition history (gateway_job_history), not from logs:
 * - each job ends in exactly one terminal state and nothing moves it afterwards;
 * - a running job changes hands (running -> running) only away from the killed process;
 * - the number of jobs running at once across the fleet never exceeds maxConcurrency;
 * - each job's webhooks, whoever sent them and whoever died, arrive whole and in order: numbered
 *   1..n without a hole once duplicates (same seq) are dropped, in the spec's order per attempt,
 *   job_completed last and once (webhook-stream.ts);
 * - each process's /queue/ws streams a job's events in their recorded order, and stats within
 *   maxConcurrency; at the end every live process answers GET /queue alike, and GET /jobs/:id
 *   gives the status the history ended in.
 * With the fault options: each result is posted to two processes at once, other than the
 * parker when possible (exactly one `applied: true` per execution, fleet-wide); `kills` processes
 * holding claims are SIGKILLed one after another, each restarted (a new worker id); one process
 * holding claims is stalled (SIGSTOP) past its lease and continued; and no process may exit
 * unless the run killed it.
 * Returns the figures and the list of violations (empty when all hold).
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { startPostgresServer } from '../postgres-server.ts'
import { FleetFaults, type FaultPlan } from './fleet-faults.ts'
import type { FleetGatewayOptions } from './fleet-gateway.ts'
import { jobBody, TIMER_OPTIONS, unansweredKind, WEBHOOK_TIMEOUT_MS } from './fleet-jobs.ts'
import { startMember, type Member } from './fleet-member.ts'
import { startWebhookReceiver, watchQueue, type QueueWatcher, type WebhookReceiver } from './fleet-observers.ts'
import { checkJobStream } from './webhook-stream.ts'

/** The kill and stall plan (killAt, kills, restart, stallAt) is FleetFaults'. */
export interface FleetRunOptions extends Omit<FaultPlan, 'leaseMs'> {
  processes?: number
  maxConcurrency?: number
  leaseMs?: number
  timeoutMs?: number
  log?: (line: string) => void
  /** post each result to two live processes at once (other than the parker when possible). */
  duplicates?: boolean
  /**
   * One job in 6 parks on deferred_short (deadline 2.5 s) and one in 6 on deferred_task
   * (10 min) and neither is answered: the first must end succeeded through its deadline, the
   * second failed by maxParkedDurationMs (6 s), wherever they were parked and whoever died.
   */
  timers?: boolean
}

export interface FleetReport {
  jobs: number
  processes: number
  durationMs: number
  maxConcurrency: number
  peakRunning: number
  byStatus: Record<string, number>
  reclaimed: number
  parked: number
  resumedElsewhere: number
  killedWorker: string | undefined
  /** Every process the run SIGKILLed, in order. */
  killedWorkers: string[]
  stalledWorker: string | undefined
  /** Webhooks that arrived a second time (same job and seq: at-least-once), dropped by the checks. */
  duplicateWebhooks: number
  /** job_event frames the /queue/ws watchers received. */
  queueWsEvents: number
  /** Results whose job_parked webhook came after the parked cap had ended the job (see postResult): not posted in time, not lost. */
  lateResults: number
  /** Unanswered parks (timers) whose parker the run killed while they were parked. */
  timersParkerKilled: number
  /** With `timers`: jobs ended by their deadline, and by maxParkedDurationMs. */
  deadlineJobs: number
  cappedJobs: number
  /** Unanswered jobs whose last attempt died with a killed or stalled process before it parked (ended "worker lost"). */
  lostTimerJobs: number
  /** Result POSTs answered, and of those `applied: true` (exactly one per execution must be). */
  resultPosts: number
  appliedTrue: number
  violations: string[]
}

const TERMINAL = new Set(['succeeded', 'failed', 'canceled'])

export async function runFleet(options: FleetRunOptions): Promise<FleetReport> {
  const processes = options.processes ?? 4
  const maxConcurrency = options.maxConcurrency ?? 4
  const leaseMs = options.leaseMs ?? 3000
  const log = options.log ?? (() => {})
  const token = randomBytes(12).toString('hex')
  const violations: string[] = []
  const server = await startPostgresServer()
  let receiver: WebhookReceiver | undefined
  const watchers: QueueWatcher[] = []
  const members: Member[] = []
  let stopping = false
  try {
    const dbUrl = await server.createDatabase('fleet')
    // Webhooks per job, in arrival order; a parked job's result goes to a random live process.
    const answered = new Set<string>()
    /** Jobs whose parks nobody answers (timers): their own deadline or the cap must end them. */
    const unanswered = new Map<string, 'deadline' | 'cap'>()
    const applied = new Map<string, number>()
    let resultPosts = 0
    let parkerOf: (jobId: string) => Promise<string | undefined> = async () => undefined
    let endedByCapBefore: (jobId: string, parkedAt: number, postedAt: number) => Promise<{ late: boolean; history: string }> = async () => ({ late: false, history: '' })
    let lateResults = 0
    const post = async (target: Member, executionId: string): Promise<number> => {
      try {
        const res = await fetch(`${target.url}/executions/${executionId}/result`, {
          method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ status: 'ok', output: { type: 'text', value: 'approved' } }),
        })
        const text = await res.text()
        if (process.env.FLEET_DEBUG) console.error(`result ${executionId} -> ${target.workerId}: ${res.status} ${text}`)
        if (res.status === 200) {
          resultPosts++
          if ((JSON.parse(text) as { applied?: boolean }).applied) applied.set(executionId, (applied.get(executionId) ?? 0) + 1)
        }
        return res.status
      } catch {
        return 0 // that process just died (or is stalled past the fetch): try another
      }
    }
    const postResult = async (executionId: string, jobId?: string, parkedAt?: number) => {
      if (answered.has(executionId)) return
      answered.add(executionId)
      const parker = jobId && options.duplicates ? await parkerOf(jobId).catch(() => undefined) : undefined
      const firstPostAt = Date.now()
      const deadline = firstPostAt + 20_000
      while (Date.now() < deadline) {
        const live = members.filter((m) => m.alive && !m.stalled)
        const others = live.filter((m) => m.workerId !== parker)
        const pool = others.length >= (options.duplicates ? 2 : 1) ? others : live
        const shuffled = [...pool].sort(() => Math.random() - 0.5)
        const targets = options.duplicates ? shuffled.slice(0, 2) : shuffled.slice(0, 1)
        const statuses = await Promise.all(targets.map((t) => post(t, executionId)))
        if (statuses.includes(200)) return
        // 404 until the park is stored (job_parked is sent before the snapshot lands).
        await new Promise((r) => setTimeout(r, 50))
      }
      // Too late, not lost: the job_parked webhook came only after the parked cap had ended that
      // park (its deliverer died or stalled holding the delivery, whose claim lapses after
      // WEBHOOK_TIMEOUT_MS + 5 s, longer than the 6 s cap); the result then answers 404, its
      // session ended (errors.2). Any other unanswered result is a violation.
      const ended = jobId && parkedAt !== undefined
        ? await endedByCapBefore(jobId, parkedAt, firstPostAt).catch((err: Error) => ({ late: false, history: `history unread: ${err.message}` }))
        : { late: false, history: `job ${jobId}, parkedAt ${parkedAt}` }
      if (ended.late) lateResults++
      else violations.push(`execution ${executionId}: no process accepted its result (job ${jobId}: ${ended.history})`)
    }
    receiver = await startWebhookReceiver((event) => {
      if (event.type === 'job_parked' && event.executionId && !unanswered.has(event.jobId)) void postResult(event.executionId, event.jobId, event.job?.parkedAt ?? event.ts)
    })
    const hook = receiver.url
    const memberOptions = (workerId: string): FleetGatewayOptions => ({ workerId, maxConcurrency, leaseMs, token, webhookTimeoutMs: WEBHOOK_TIMEOUT_MS, ...(options.timers ? TIMER_OPTIONS : {}) })
    const watch = (m: Member) => watchers.push(watchQueue(m.workerId, m.url, token, maxConcurrency))

    members.push(...await Promise.all(Array.from({ length: processes }, (_, i) => startMember(dbUrl, memberOptions(`p${i + 1}`)))))
    members.forEach(watch)
    // A pool: the result posters ask for a job's parker while the watch loop queries.
    const fleetDb = new pg.Pool({ connectionString: dbUrl, max: 3 })
    parkerOf = async (jobId) => (await fleetDb.query<{ lease_owner: string | null }>('SELECT lease_owner FROM gateway_jobs WHERE id = $1', [jobId])).rows[0]?.lease_owner ?? undefined
    // Read from the history, not the job's final error: the cap fails one attempt, and the retry
    // that follows may succeed. Late: the park this webhook announced had already ended, other
    // than by a resume (parked -> queued or failed: the cap), when the first result was posted.
    endedByCapBefore = async (jobId, parkedAt, postedAt) => {
      if (!options.timers) return { late: false, history: 'no timers' }
      const { rows } = await fleetDb.query<{ from_status: string | null; to_status: string; at: number }>(`SELECT from_status, to_status,
        (extract(epoch FROM at) * 1000)::float8 AS at FROM gateway_job_history WHERE job_id = $1 ORDER BY id`, [jobId])
      const history = rows.map((r) => `${r.from_status ?? '-'}>${r.to_status}@${Math.round(r.at - parkedAt)}`).join(' ') + ` (ms after parkedAt; first post @${postedAt - parkedAt})`
      // The park this webhook announced (the history's time is the database's, a moment after the event's).
      const i = rows.findIndex((r) => r.to_status === 'parked' && r.at >= parkedAt - 1000)
      const next = rows[i + 1]
      const late = i >= 0 && next !== undefined && next.from_status === 'parked' && next.to_status !== 'running' && next.at <= postedAt + 500
      return { late, history }
    }
    // A process may exit only when the run killed it (a database error ended processes).
    const watchExit = (m: Member) => m.child.once('exit', (code, signal) => {
      if (m.alive && !stopping) violations.push(`process ${m.workerId} exited on its own (${signal ?? code})`)
      m.alive = false
    })
    members.forEach(watchExit)
    log(`${processes} gateway processes up; submitting ${options.jobs} jobs`)

    const started = Date.now()
    const ids: string[] = []
    let next = 0
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next < options.jobs) {
        const i = next++
        const member = members.filter((m) => m.alive)[i % members.filter((m) => m.alive).length]
        const res = await fetch(`${member.url}/jobs`, {
          method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(jobBody(i, hook, options.timers)),
        })
        if (res.status !== 201) throw new Error(`submit through ${member.workerId}: ${res.status} ${await res.text()}`)
        const id = ((await res.json()) as { job: { id: string } }).job.id
        ids.push(id)
        const kind = unansweredKind(i, options.timers)
        if (kind) unanswered.set(id, kind)
      }
    }))
    log(`submitted ${ids.length} jobs in ${Date.now() - started} ms`)

    const faults = new FleetFaults({ ...options, leaseMs }, {
      db: fleetDb, members, unanswered: () => [...unanswered.keys()], log,
      restart: async (victim) => {
        const replacement = await startMember(dbUrl, memberOptions(`${victim.workerId}-r`))
        watchExit(replacement)
        watch(replacement)
        members.push(replacement)
        log(`restarted as ${replacement.workerId}`)
      },
    })
    const deadline = Date.now() + (options.timeoutMs ?? 300_000)
    for (;;) {
      const { rows } = await fleetDb.query<{ terminal: string }>(`SELECT count(*) FILTER (WHERE status IN ('succeeded','failed','canceled')) AS terminal FROM gateway_jobs`)
      const terminal = Number(rows[0].terminal)
      await faults.step(terminal)
      // Results are posted only on job_parked webhooks: no poll makes up for a lost one.
      if (terminal >= ids.length) break
      if (Date.now() > deadline) {
        const stuck = await fleetDb.query(`SELECT j.id, j.status, j.lease_owner, j.info->>'parkedExecutionId' AS execution, (SELECT string_agg(coalesce(h.from_status, '-') || '>' || h.to_status || '@' || coalesce(h.worker, '-'), ' ' ORDER BY h.id) FROM gateway_job_history h WHERE h.job_id = j.id) AS history
          FROM gateway_jobs j WHERE status NOT IN ('succeeded','failed','canceled') LIMIT 5`)
        violations.push(`timed out with ${ids.length - terminal} jobs not terminal: ${JSON.stringify(stuck.rows)}`)
        break
      }
      await new Promise((r) => setTimeout(r, 100))
    }
    const durationMs = Date.now() - started
    // Every job's webhooks, whoever recorded them: the last ones may wait for a dead or stalled
    // deliverer's claim to lapse (WEBHOOK_TIMEOUT_MS + 5 s) and the next heartbeat.
    const streamsDeadline = Date.now() + 30_000
    while (Date.now() < streamsDeadline && !ids.every((id) => checkJobStream(id, receiver!.events.get(id) ?? []).complete)) await new Promise((r) => setTimeout(r, 200))

    // REST, on every live process: the same fleet-wide GET /queue, and each job as the history ended it.
    const live = members.filter((m) => m.alive && !m.stalled)
    const rest = async <T>(m: Member, path: string): Promise<T> => (await (await fetch(`${m.url}${path}`, { headers: { authorization: `Bearer ${token}` } })).json()) as T
    const queues = await Promise.all(live.map(async (m) => (await rest<{ stats: { running: number; queued: number; parked: number } }>(m, '/queue')).stats))
    for (const [i, q] of queues.entries()) {
      if (q.running !== 0 || q.queued !== 0 || q.parked !== 0) violations.push(`GET /queue on ${live[i].workerId} at the end: ${JSON.stringify(q)}`)
    }

    // History checks.
    const { rows: history } = await fleetDb.query<{ id: string; job_id: string; from_status: string | null; to_status: string; worker: string | null }>(
      'SELECT id, job_id, from_status, to_status, worker FROM gateway_job_history ORDER BY id')
    let running = 0
    let peakRunning = 0
    let reclaimed = 0
    let resumedElsewhere = 0
    let parked = 0
    const perJob = new Map<string, typeof history>()
    for (const row of history) {
      if (row.to_status === 'running' && row.from_status !== 'running') running++
      if (row.from_status === 'running' && row.to_status !== 'running') running--
      peakRunning = Math.max(peakRunning, running)
      if (running > maxConcurrency && process.env.FLEET_DEBUG) console.error('OVER', JSON.stringify(history.filter((h) => Number(h.id) <= Number(row.id)).slice(-12)))
      const list = perJob.get(row.job_id) ?? []
      list.push(row)
      perJob.set(row.job_id, list)
    }
    if (peakRunning > maxConcurrency) violations.push(`fleet-wide running peaked at ${peakRunning} > maxConcurrency ${maxConcurrency}`)
    const byStatus: Record<string, number> = {}
    let duplicateWebhooks = 0
    for (const id of ids) {
      const rows = perJob.get(id) ?? []
      const terminal = rows.filter((r) => TERMINAL.has(r.to_status))
      const last = rows.at(-1)
      byStatus[last?.to_status ?? 'missing'] = (byStatus[last?.to_status ?? 'missing'] ?? 0) + 1
      if (terminal.length !== 1 || !TERMINAL.has(last?.to_status ?? '')) violations.push(`job ${id}: terminal transitions ${terminal.length}, last ${last?.to_status}`)
      rows.forEach((r, i) => {
        if (r.to_status === 'parked') parked++
        if (r.from_status === 'parked' && r.to_status === 'running' && r.worker !== rows[i - 1]?.worker) resumedElsewhere++
        if (r.from_status !== 'running' || r.to_status !== 'running') return
        reclaimed++
        const previous = rows[i - 1]?.worker
        if (!faults.killedWorkers.includes(previous ?? '') && previous !== faults.stalled?.workerId) violations.push(`job ${id}: taken from live worker ${previous} by ${r.worker}`)
      })
      // Webhooks (Deliver 6): whole and in order, whoever sent them and whoever died.
      const stream = checkJobStream(id, receiver.events.get(id) ?? [])
      duplicateWebhooks += stream.duplicates
      violations.push(...stream.violations)
      if (!stream.complete) violations.push(`job ${id}: no job_completed webhook (received ${stream.letters || 'none'})`)
      // REST: the job as the history ended it, asked of a live process.
      const viaRest = await rest<{ job?: { status: string } }>(live[ids.indexOf(id) % live.length], `/jobs/${id}`)
      if (viaRest.job?.status !== last?.to_status) violations.push(`job ${id}: GET /jobs/:id says ${viaRest.job?.status}, its history ${last?.to_status}`)
    }
    for (const w of watchers) violations.push(...w.violations.slice(0, 20))
    // Timers: each unanswered park ended by its own deadline or by the cap.
    let deadlineJobs = 0
    let cappedJobs = 0
    let lostTimerJobs = 0
    if (unanswered.size) {
      const { rows } = await fleetDb.query<{ id: string; status: string; error: string | null; result: string | null }>(
        `SELECT id, status, info->>'error' AS error, info->'result'->>'result' AS result FROM gateway_jobs WHERE id = ANY($1)`, [[...unanswered.keys()]])
      for (const r of rows) {
        const kind = unanswered.get(r.id)
        if (kind === 'deadline' && r.status === 'succeeded' && /After the deadline/.test(r.result ?? '')) deadlineJobs++
        else if (kind === 'cap' && r.status === 'failed' && /max parked duration/.test(r.error ?? '')) cappedJobs++
        // Its last attempt ran in a process the run killed or stalled before it parked: reclaimed, not retried.
        else if (r.status === 'failed' && /^worker lost/.test(r.error ?? '') && (faults.killedWorkers.length > 0 || faults.stalled)) lostTimerJobs++
        else violations.push(`job ${r.id} (${kind}): ended ${r.status}, error ${r.error}, result ${r.result}`)
      }
    }
    // Exactly one applied: true per execution answered, fleet-wide.
    for (const executionId of answered) {
      const n = applied.get(executionId) ?? 0
      if (n > 1) violations.push(`execution ${executionId}: ${n} applied: true answers`)
    }
    await fleetDb.end()
    const appliedTrue = [...applied.values()].reduce((a, b) => a + b, 0)
    return {
      jobs: ids.length, processes, durationMs, maxConcurrency, peakRunning, byStatus, reclaimed, parked, resumedElsewhere,
      killedWorker: faults.killedWorkers[0], killedWorkers: faults.killedWorkers, stalledWorker: faults.stalled?.workerId, deadlineJobs, cappedJobs, lostTimerJobs, resultPosts, appliedTrue,
      duplicateWebhooks, lateResults, queueWsEvents: watchers.reduce((n, w) => n + w.events, 0), timersParkerKilled: faults.timersParkerKilled.size, violations,
    }
  } finally {
    stopping = true
    await Promise.all(members.filter((m) => m.alive).map((m) => new Promise<void>((resolve) => {
      m.child.kill('SIGCONT')
      const timer = setTimeout(() => m.child.kill('SIGKILL'), 5000)
      m.child.once('exit', () => { clearTimeout(timer); resolve() })
      m.child.kill('SIGTERM')
    })))
    for (const w of watchers) w.close()
    await receiver?.close()
    await server.stop()
  }
}
