/**
 * The multi-process run (issue 15): a real PostgreSQL, N gateway child processes on it, a real
 * webhook receiver on 127.0.0.1, jobs submitted round-robin through the processes with mixed
 * outcomes (succeed; fail and retry; park on a deferred tool, resumed by a result posted to a
 * random live process), and one process SIGKILLed while it holds claims. Every rule is checked
 * from the database's transition history (gateway_job_history), not from logs:
 * - each job ends in exactly one terminal state and nothing moves it afterwards;
 * - a running job changes hands (running -> running) only away from the killed process;
 * - the number of jobs running at once across the fleet never exceeds maxConcurrency;
 * - each job's webhooks arrive in the order they were emitted, job_completed last and once.
 * With the options of issue 21: each result is posted to two processes at once, other than the
 * parker when possible (exactly one `applied: true` per execution, fleet-wide); the killed
 * process is restarted (a new worker id); one process holding claims is stalled (SIGSTOP) past
 * its lease and continued; and no process may exit unless the run killed it.
 * Returns the figures and the list of violations (empty when all hold).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { startPostgresServer } from '../postgres-server.ts'
import type { FleetGatewayOptions } from './fleet-gateway.ts'

export interface FleetRunOptions {
  jobs: number
  processes?: number
  maxConcurrency?: number
  leaseMs?: number
  /** SIGKILL one process holding a claim once this fraction of jobs is terminal (default 0.4). */
  killAt?: number
  timeoutMs?: number
  log?: (line: string) => void
  /** Issue 21: post each result to two live processes at once (other than the parker when possible). */
  duplicates?: boolean
  /** Issue 21: start a replacement for the killed process (a new worker id). */
  restart?: boolean
  /** Issue 21: SIGSTOP one process holding claims for twice the lease once this fraction of jobs is terminal, then SIGCONT. */
  stallAt?: number
  /**
   * Issue 21: one job in 6 parks on deferred_short (deadline 2.5 s) and one in 6 on deferred_task
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
  stalledWorker: string | undefined
  /** With `timers`: jobs ended by their deadline, and by maxParkedDurationMs. */
  deadlineJobs: number
  cappedJobs: number
  /** Result POSTs answered, and of those `applied: true` (exactly one per execution must be). */
  resultPosts: number
  appliedTrue: number
  violations: string[]
}

const CHILD = fileURLToPath(new URL('./fleet-gateway.ts', import.meta.url))
const TERMINAL = new Set(['succeeded', 'failed', 'canceled'])
const SUCCEED = `scenario:${JSON.stringify({ name: 'work', steps: [{ type: 'sleep', ms: 60 }, { type: 'text', text: 'done' }, { type: 'usage', input: 3, output: 2 }] })}`

export interface Member { workerId: string; url: string; child: ChildProcess; alive: boolean; stalled?: boolean }

const TIMER_OPTIONS = { shortDeadlineMs: 2500, maxParkedDurationMs: 6000, expiredGraceMs: 0, deadlineSweepMs: 200 }

/** With timers, the jobs nobody answers: deferred_short (ends by its deadline) and deferred_task (by the cap). */
function unansweredKind(i: number, timers: boolean | undefined): 'deadline' | 'cap' | undefined {
  if (!timers) return undefined
  return i % 6 === 4 ? 'deadline' : i % 6 === 5 ? 'cap' : undefined
}

function jobBody(i: number, hook: string, timers?: boolean): Record<string, unknown> {
  const webhook = { url: hook }
  const unanswered = unansweredKind(i, timers)
  if (unanswered) return { session: { prompt: unanswered === 'deadline' ? 'scenario:deferred-short' : 'scenario:deferred' }, attempts: 2, retryDelayMs: 1000, webhook }
  switch (i % 3) {
    case 0: return { session: { prompt: SUCCEED }, attempts: 2, retryDelayMs: 1000, webhook }
    case 1: return { session: { prompt: 'scenario:model-error' }, attempts: 2, retryDelayMs: 1000, webhook }
    default: return { session: { prompt: 'scenario:deferred' }, attempts: 2, retryDelayMs: 1000, webhook }
  }
}

export async function startMember(dbUrl: string, options: FleetGatewayOptions): Promise<Member> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    env: { ...process.env, DATABASE_URL: dbUrl, FLEET_OPTIONS: JSON.stringify(options) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr!.on('data', (b) => {
    stderr = (stderr + b).slice(-4000)
    if (process.env.FLEET_DEBUG) process.stderr.write(b)
  })
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! })
    rl.once('line', resolve)
    child.once('exit', (code) => reject(new Error(`fleet gateway ${options.workerId} exited ${code}: ${stderr}`)))
  })
  return { workerId: options.workerId, url: JSON.parse(line).url, child, alive: true }
}

export async function runFleet(options: FleetRunOptions): Promise<FleetReport> {
  const processes = options.processes ?? 4
  const maxConcurrency = options.maxConcurrency ?? 4
  const leaseMs = options.leaseMs ?? 3000
  const log = options.log ?? (() => {})
  const token = randomBytes(12).toString('hex')
  const violations: string[] = []
  const server = await startPostgresServer()
  let receiver: Server | undefined
  const members: Member[] = []
  let stopping = false
  try {
    const dbUrl = await server.createDatabase('fleet')
    // Webhooks per job, in arrival order; a parked job's result goes to a random live process.
    const events = new Map<string, Array<{ type: string; ts: number }>>()
    const answered = new Set<string>()
    /** Jobs whose parks nobody answers (timers): their own deadline or the cap must end them. */
    const unanswered = new Map<string, 'deadline' | 'cap'>()
    const applied = new Map<string, number>()
    let resultPosts = 0
    let parkerOf: (jobId: string) => Promise<string | undefined> = async () => undefined
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
    const postResult = async (executionId: string, jobId?: string) => {
      if (answered.has(executionId)) return
      answered.add(executionId)
      const parker = jobId && options.duplicates ? await parkerOf(jobId).catch(() => undefined) : undefined
      const deadline = Date.now() + 20_000
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
      violations.push(`execution ${executionId}: no process accepted its result`)
    }
    receiver = createServer((req, res) => {
      let text = ''
      req.on('data', (c) => { text += c })
      req.on('end', () => {
        res.end()
        const event = JSON.parse(text)
        const list = events.get(event.jobId) ?? []
        list.push({ type: event.type, ts: event.ts })
        events.set(event.jobId, list)
        if (event.type === 'job_parked' && !unanswered.has(event.jobId)) void postResult(event.executionId, event.jobId)
      })
    })
    await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r))
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`

    members.push(...await Promise.all(Array.from({ length: processes }, (_, i) =>
      startMember(dbUrl, { workerId: `p${i + 1}`, maxConcurrency, leaseMs, token, ...(options.timers ? TIMER_OPTIONS : {}) }))))
    // A pool: the result posters ask for a job's parker while the watch loop queries.
    const fleetDb = new pg.Pool({ connectionString: dbUrl, max: 3 })
    parkerOf = async (jobId) => (await fleetDb.query<{ lease_owner: string | null }>('SELECT lease_owner FROM gateway_jobs WHERE id = $1', [jobId])).rows[0]?.lease_owner ?? undefined
    // A process may exit only when the run killed it (issue 21: a database error ended processes).
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

    const killAt = Math.floor((options.killAt ?? 0.4) * options.jobs)
    const stallAt = options.stallAt === undefined ? undefined : Math.floor(options.stallAt * options.jobs)
    let killed: Member | undefined
    let stalled: Member | undefined
    let lastPoll = 0
    const deadline = Date.now() + (options.timeoutMs ?? 300_000)
    for (;;) {
      const { rows } = await fleetDb.query<{ terminal: string }>(`SELECT count(*) FILTER (WHERE status IN ('succeeded','failed','canceled')) AS terminal FROM gateway_jobs`)
      const terminal = Number(rows[0].terminal)
      if (!killed && terminal >= killAt) {
        // The victim is a process holding at least one claim right now.
        const holders = await fleetDb.query<{ lease_owner: string }>(`SELECT lease_owner FROM gateway_jobs WHERE status = 'running' GROUP BY lease_owner ORDER BY count(*) DESC`)
        const victim = members.find((m) => holders.rows.some((h) => h.lease_owner === m.workerId) && m.alive && m !== stalled)
        if (victim) {
          victim.child.kill('SIGKILL')
          if (process.env.FLEET_DEBUG) console.error(`KILLED ${victim.workerId}`)
          victim.alive = false
          killed = victim
          log(`SIGKILL ${victim.workerId} at ${terminal} terminal jobs`)
          if (options.restart) {
            const replacement = await startMember(dbUrl, { workerId: `${victim.workerId}-r`, maxConcurrency, leaseMs, token, ...(options.timers ? TIMER_OPTIONS : {}) })
            watchExit(replacement)
            members.push(replacement)
            log(`restarted as ${replacement.workerId}`)
          }
        }
      }
      if (stallAt !== undefined && !stalled && terminal >= stallAt) {
        const holders = await fleetDb.query<{ lease_owner: string }>(`SELECT lease_owner FROM gateway_jobs WHERE status = 'running' GROUP BY lease_owner ORDER BY count(*) DESC`)
        const victim = members.find((m) => holders.rows.some((h) => h.lease_owner === m.workerId) && m.alive && m !== killed)
        if (victim) {
          stalled = victim
          victim.stalled = true
          victim.child.kill('SIGSTOP')
          log(`SIGSTOP ${victim.workerId} at ${terminal} terminal jobs for ${2 * leaseMs} ms`)
          setTimeout(() => {
            victim.child.kill('SIGCONT')
            victim.stalled = false
            log(`SIGCONT ${victim.workerId}`)
          }, 2 * leaseMs)
        }
      }
      if (terminal >= ids.length) break
      // As an outside system does when a webhook may have been lost (its sender died): poll the
      // jobs through a live process and answer any parked execution not heard of yet.
      if (killed && Date.now() - lastPoll > 2000) {
        lastPoll = Date.now()
        const live = members.find((m) => m.alive && !m.stalled)!
        const res = await fetch(`${live.url}/jobs`, { headers: { authorization: `Bearer ${token}` } })
        const { jobs } = (await res.json()) as { jobs: Array<{ id: string; status: string; parkedExecutionId?: string }> }
        for (const j of jobs) if (j.status === 'parked' && j.parkedExecutionId && !unanswered.has(j.id)) void postResult(j.parkedExecutionId, j.id)
      }
      if (Date.now() > deadline) {
        const stuck = await fleetDb.query(`SELECT j.id, j.status, j.lease_owner, j.info->>'parkedExecutionId' AS execution, (SELECT string_agg(coalesce(h.from_status, '-') || '>' || h.to_status || '@' || coalesce(h.worker, '-'), ' ' ORDER BY h.id) FROM gateway_job_history h WHERE h.job_id = j.id) AS history
          FROM gateway_jobs j WHERE status NOT IN ('succeeded','failed','canceled') LIMIT 5`)
        violations.push(`timed out with ${ids.length - terminal} jobs not terminal: ${JSON.stringify(stuck.rows)}`)
        break
      }
      await new Promise((r) => setTimeout(r, 100))
    }
    const durationMs = Date.now() - started

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
        if (previous !== killed?.workerId && previous !== stalled?.workerId) violations.push(`job ${id}: taken from live worker ${previous} by ${r.worker}`)
      })
      // Webhooks: emission order (ts) kept on arrival, one job_completed, last.
      const got = events.get(id) ?? []
      const completedBy = [...rows].reverse().find((r) => TERMINAL.has(r.to_status))?.worker
      for (let k = 1; k < got.length; k++) if (got[k].ts < got[k - 1].ts) violations.push(`job ${id}: webhook ${got[k].type} arrived after a later ${got[k - 1].type}`)
      const completed = got.filter((e) => e.type === 'job_completed').length
      if (completed > 1) violations.push(`job ${id}: ${completed} job_completed webhooks`)
      if (completed === 1 && got.at(-1)?.type !== 'job_completed') violations.push(`job ${id}: a webhook after job_completed`)
      if (completed === 0 && completedBy !== killed?.workerId && completedBy !== stalled?.workerId) {
        // Delivered by a live process: give the in-flight delivery a moment.
        await new Promise((r) => setTimeout(r, 200))
        if (!(events.get(id) ?? []).some((e) => e.type === 'job_completed')) violations.push(`job ${id}: no job_completed webhook from live worker ${completedBy}`)
      }
    }
    // Timers (issue 21, Deliver 4): each unanswered park ended by its own deadline or by the cap.
    let deadlineJobs = 0
    let cappedJobs = 0
    if (unanswered.size) {
      const { rows } = await fleetDb.query<{ id: string; status: string; error: string | null; result: string | null }>(
        `SELECT id, status, info->>'error' AS error, info->'result'->>'result' AS result FROM gateway_jobs WHERE id = ANY($1)`, [[...unanswered.keys()]])
      for (const r of rows) {
        const kind = unanswered.get(r.id)
        if (kind === 'deadline' && r.status === 'succeeded' && /After the deadline/.test(r.result ?? '')) deadlineJobs++
        else if (kind === 'cap' && r.status === 'failed' && /max parked duration/.test(r.error ?? '')) cappedJobs++
        else violations.push(`job ${r.id} (${kind}): ended ${r.status}, error ${r.error}, result ${r.result}`)
      }
    }
    // Exactly one applied: true per execution answered, fleet-wide (issue 21, Deliver 2).
    for (const executionId of answered) {
      const n = applied.get(executionId) ?? 0
      if (n > 1) violations.push(`execution ${executionId}: ${n} applied: true answers`)
    }
    await fleetDb.end()
    const appliedTrue = [...applied.values()].reduce((a, b) => a + b, 0)
    return { jobs: ids.length, processes, durationMs, maxConcurrency, peakRunning, byStatus, reclaimed, parked, resumedElsewhere, killedWorker: killed?.workerId, stalledWorker: stalled?.workerId, deadlineJobs, cappedJobs, resultPosts, appliedTrue, violations }
  } finally {
    stopping = true
    await Promise.all(members.filter((m) => m.alive).map((m) => new Promise<void>((resolve) => {
      m.child.kill('SIGCONT')
      const timer = setTimeout(() => m.child.kill('SIGKILL'), 5000)
      m.child.once('exit', () => { clearTimeout(timer); resolve() })
      m.child.kill('SIGTERM')
    })))
    receiver?.closeAllConnections()
    await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()))
    await server.stop()
  }
}
