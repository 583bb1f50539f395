/**
 * The fleet run's final checks, once every job is terminal and its webhooks are in: what the
 * live processes answer over REST (GET /queue, GET /jobs/:id), the database's transition history
 * (one terminal state per job, running never over maxConcurrency fleet-wide, a running job taken
 * over only from a killed or stalled process), each job's webhook stream, the /queue/ws
 * watchers, the timers (each unanswered park ended by its deadline or the cap) and exactly one
 * `applied: true` per answered execution, and with sessions their checks (fleet-session-checks.ts:
 * no completed turn lost, no seq reused, every reattach resumed or told why, no session adopted
 * twice). Violations are appended in that order; the figures are returned.
 */
import type pg from 'pg'
import type { FleetFaults } from './fleet-faults.ts'
import type { Member } from './fleet-member.ts'
import type { QueueWatcher, WebhookReceiver } from './fleet-observers.ts'
import type { ResultPoster } from './fleet-results.ts'
import { checkJobStream } from './webhook-stream.ts'
import { adoptionsIn, checkSessions, type SessionFigures } from './fleet-session-checks.ts'
import type { DrivenSession } from './fleet-sessions.ts'

export interface VerdictInputs {
  db: pg.Pool
  ids: string[]
  token: string
  maxConcurrency: number
  /** The processes neither killed nor stalled at the end: the REST checks ask them. */
  live: Member[]
  receiver: WebhookReceiver
  watchers: QueueWatcher[]
  faults: FleetFaults
  unanswered: Map<string, 'deadline' | 'cap'>
  results: ResultPoster
  /** The session part (fleet-session-run.ts): the proxy's URL, the driven sessions, every member (their adoptions). */
  sessions?: { baseUrl: string; driven: DrivenSession[]; members: Member[] }
}

/** The figures of FleetReport the checks count. */
export interface FleetVerdict {
  peakRunning: number
  byStatus: Record<string, number>
  reclaimed: number
  parked: number
  resumedElsewhere: number
  duplicateWebhooks: number
  deadlineJobs: number
  cappedJobs: number
  lostTimerJobs: number
  sessions?: SessionFigures
}

type Rest = <T>(m: Member, path: string) => Promise<T>
interface HistoryRow { id: string; job_id: string; from_status: string | null; to_status: string; worker: string | null }
type JobFigures = Pick<FleetVerdict, 'byStatus' | 'reclaimed' | 'parked' | 'resumedElsewhere' | 'duplicateWebhooks'>

const TERMINAL = new Set(['succeeded', 'failed', 'canceled'])

export async function judgeFleet(inputs: VerdictInputs, violations: string[]): Promise<FleetVerdict> {
  const rest: Rest = async <T>(m: Member, path: string) => (await (await fetch(`${m.url}${path}`, { headers: { authorization: `Bearer ${inputs.token}` } })).json()) as T
  await checkQueueStats(inputs.live, rest, violations)
  const { perJob, peakRunning } = await readHistory(inputs.db, inputs.maxConcurrency, violations)
  const jobs = await checkJobs(inputs, perJob, rest, violations)
  for (const w of inputs.watchers) violations.push(...w.violations.slice(0, 20))
  const timers = await checkTimers(inputs, violations)
  checkAppliedOnce(inputs.results, violations)
  // Sessions last: their logs are read through the proxy, from processes the job checks left alone.
  const s = inputs.sessions
  const sessions = s ? await checkSessions(s.baseUrl, inputs.token, s.driven, s.members.flatMap((m) => adoptionsIn(m.workerId, m.adoptions.join('\n'))), violations) : undefined
  return { peakRunning, ...jobs, ...timers, ...(sessions ? { sessions } : {}) }
}

/** Every live process answers the same fleet-wide GET /queue: nothing running, queued or parked. */
async function checkQueueStats(live: Member[], rest: Rest, violations: string[]): Promise<void> {
  const queues = await Promise.all(live.map(async (m) => (await rest<{ stats: { running: number; queued: number; parked: number } }>(m, '/queue')).stats))
  for (const [i, q] of queues.entries()) {
    if (q.running !== 0 || q.queued !== 0 || q.parked !== 0) violations.push(`GET /queue on ${live[i].workerId} at the end: ${JSON.stringify(q)}`)
  }
}

/** The whole history by job, and the fleet-wide peak of jobs running at once. */
async function readHistory(db: pg.Pool, maxConcurrency: number, violations: string[]): Promise<{ perJob: Map<string, HistoryRow[]>; peakRunning: number }> {
  const { rows: history } = await db.query<HistoryRow>('SELECT id, job_id, from_status, to_status, worker FROM gateway_job_history ORDER BY id')
  let running = 0
  let peakRunning = 0
  const perJob = new Map<string, HistoryRow[]>()
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
  return { perJob, peakRunning }
}

/** Per job: one terminal state, last; its transitions; its webhooks; and GET /jobs/:id agreeing with the history. */
async function checkJobs(inputs: VerdictInputs, perJob: Map<string, HistoryRow[]>, rest: Rest, violations: string[]): Promise<JobFigures> {
  const { ids, live, receiver } = inputs
  const figures: JobFigures = { byStatus: {}, reclaimed: 0, parked: 0, resumedElsewhere: 0, duplicateWebhooks: 0 }
  for (const id of ids) {
    const rows = perJob.get(id) ?? []
    const terminal = rows.filter((r) => TERMINAL.has(r.to_status))
    const last = rows.at(-1)
    figures.byStatus[last?.to_status ?? 'missing'] = (figures.byStatus[last?.to_status ?? 'missing'] ?? 0) + 1
    if (terminal.length !== 1 || !TERMINAL.has(last?.to_status ?? '')) violations.push(`job ${id}: terminal transitions ${terminal.length}, last ${last?.to_status}`)
    checkTransitions(id, rows, inputs.faults, figures, violations)
    // Webhooks (events.23): whole and in order, whoever sent them and whoever died.
    const stream = checkJobStream(id, receiver.events.get(id) ?? [])
    figures.duplicateWebhooks += stream.duplicates
    violations.push(...stream.violations)
    if (!stream.complete) violations.push(`job ${id}: no job_completed webhook (received ${stream.letters || 'none'})`)
    // REST: the job as the history ended it, asked of a live process.
    const viaRest = await rest<{ job?: { status: string } }>(live[ids.indexOf(id) % live.length], `/jobs/${id}`)
    if (viaRest.job?.status !== last?.to_status) violations.push(`job ${id}: GET /jobs/:id says ${viaRest.job?.status}, its history ${last?.to_status}`)
  }
  return figures
}

/** Parks, resumes in another process, and running -> running hand-overs: only away from a killed or stalled process. */
function checkTransitions(id: string, rows: HistoryRow[], faults: FleetFaults, figures: JobFigures, violations: string[]): void {
  rows.forEach((r, i) => {
    if (r.to_status === 'parked') figures.parked++
    if (r.from_status === 'parked' && r.to_status === 'running' && r.worker !== rows[i - 1]?.worker) figures.resumedElsewhere++
    if (r.from_status !== 'running' || r.to_status !== 'running') return
    figures.reclaimed++
    const previous = rows[i - 1]?.worker
    if (!faults.killedWorkers.includes(previous ?? '') && previous !== faults.stalled?.workerId) violations.push(`job ${id}: taken from live worker ${previous} by ${r.worker}`)
  })
}

/** Timers: each unanswered park ended by its own deadline or by the cap. */
async function checkTimers(inputs: VerdictInputs, violations: string[]): Promise<Pick<FleetVerdict, 'deadlineJobs' | 'cappedJobs' | 'lostTimerJobs'>> {
  const { db, unanswered, faults } = inputs
  const counts = { deadlineJobs: 0, cappedJobs: 0, lostTimerJobs: 0 }
  if (!unanswered.size) return counts
  const { rows } = await db.query<{ id: string; status: string; error: string | null; result: string | null }>(
    `SELECT id, status, info->>'error' AS error, info->'result'->>'result' AS result FROM gateway_jobs WHERE id = ANY($1)`, [[...unanswered.keys()]])
  for (const r of rows) {
    const kind = unanswered.get(r.id)
    if (kind === 'deadline' && r.status === 'succeeded' && /After the deadline/.test(r.result ?? '')) counts.deadlineJobs++
    else if (kind === 'cap' && r.status === 'failed' && /max parked duration/.test(r.error ?? '')) counts.cappedJobs++
    // Its last attempt ran in a process the run killed or stalled before it parked: reclaimed, not retried.
    else if (r.status === 'failed' && /^worker lost/.test(r.error ?? '') && (faults.killedWorkers.length > 0 || faults.stalled)) counts.lostTimerJobs++
    else violations.push(`job ${r.id} (${kind}): ended ${r.status}, error ${r.error}, result ${r.result}`)
  }
  return counts
}

/** Exactly one applied: true per execution answered, fleet-wide. */
function checkAppliedOnce(results: ResultPoster, violations: string[]): void {
  for (const executionId of results.answered) {
    const n = results.applied.get(executionId) ?? 0
    if (n > 1) violations.push(`execution ${executionId}: ${n} applied: true answers`)
  }
}
