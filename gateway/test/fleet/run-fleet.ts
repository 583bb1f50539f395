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
import { TIMER_OPTIONS, WEBHOOK_TIMEOUT_MS } from './fleet-jobs.ts'
import { startWebhookReceiver, type WebhookReceiver } from './fleet-observers.ts'
import type { Member } from './fleet-member.ts'
import { FleetProcesses } from './fleet-processes.ts'
import { ResultPoster } from './fleet-results.ts'
import { submitJobs } from './fleet-submit.ts'
import { judgeFleet } from './fleet-verdict.ts'
import type { SessionFigures } from './fleet-session-checks.ts'
import { FleetSessionRun } from './fleet-session-run.ts'
import { waitForTerminal, waitForWebhooks } from './fleet-wait.ts'

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
  /**
   * Interactive sessions beside the jobs (fleet-session-run.ts): this many, on the provider with
   * persistLive and the two fake CLIs in turn, created and driven through a round-robin proxy
   * with no affinity while the faults happen, judged by fleet-session-checks.ts.
   */
  sessions?: number
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
  /** With `sessions`: sessions, completed turns, reattaches, adoptions, reattaches told why. */
  sessions?: SessionFigures
  violations: string[]
}

/**
 * The run in its order: the processes and the webhook receiver up, the jobs submitted, the
 * faults injected while waiting for every job to end, then the verdict. Whatever happens, the
 * processes, watchers, receiver and database server are stopped.
 */
export async function runFleet(options: FleetRunOptions): Promise<FleetReport> {
  const processes = options.processes ?? 4
  const maxConcurrency = options.maxConcurrency ?? 4
  const leaseMs = options.leaseMs ?? 3000
  const log = options.log ?? (() => {})
  const token = randomBytes(12).toString('hex')
  const violations: string[] = []
  const server = await startPostgresServer()
  let receiver: WebhookReceiver | undefined
  let fleet: FleetProcesses | undefined
  let sessionRun: FleetSessionRun | undefined
  try {
    const dbUrl = await server.createDatabase('fleet')
    sessionRun = options.sessions ? await FleetSessionRun.prepare() : undefined
    const sessions = sessionRun ? { secret: randomBytes(16).toString('hex'), shared: sessionRun.shared } : undefined
    fleet = new FleetProcesses(dbUrl, { maxConcurrency, leaseMs, token, webhookTimeoutMs: WEBHOOK_TIMEOUT_MS, ...(options.timers ? TIMER_OPTIONS : {}), ...(sessions ? { sessions } : {}) }, violations)
    /** Jobs whose parks nobody answers (timers): their own deadline or the cap must end them. */
    const unanswered = new Map<string, 'deadline' | 'cap'>()
    // A parked job's result goes to a random live process.
    const results = new ResultPoster({ token, members: fleet.members, duplicates: options.duplicates, timers: options.timers, violations })
    receiver = await startWebhookReceiver((event) => {
      if (event.type === 'job_parked' && event.executionId && !unanswered.has(event.jobId)) void results.post(event.executionId, event.jobId, event.job?.parkedAt ?? event.ts)
    })
    await fleet.start(processes)
    // A pool: the result posters ask for a job's parker while the watch loop queries.
    const fleetDb = new pg.Pool({ connectionString: dbUrl, max: 3 })
    results.useDb(fleetDb)
    log(`${processes} gateway processes up; submitting ${options.jobs} jobs`)
    if (sessionRun) {
      await sessionRun.start(fleet.members, token, options.sessions!)
      log(`${options.sessions} sessions driven through the round-robin proxy`)
    }

    const started = Date.now()
    const ids = await submitJobs(fleet.members, { jobs: options.jobs, token, hook: receiver.url, timers: options.timers }, unanswered)
    log(`submitted ${ids.length} jobs in ${Date.now() - started} ms`)
    const faults = new FleetFaults({ ...options, leaseMs }, { db: fleetDb, members: fleet.members, unanswered: () => [...unanswered.keys()], log, restart: restartWith(fleet, log, sessionRun) })
    await waitForTerminal(fleetDb, faults, ids.length, options.timeoutMs ?? 300_000, violations)
    const durationMs = Date.now() - started
    if (sessionRun) {
      await sessionRun.stop()
      log(`sessions stopped: ${sessionRun.drivers!.turns} turns completed`)
    }
    await waitForWebhooks(ids, receiver)

    const sessionInputs = sessionRun ? { baseUrl: sessionRun.baseUrl, driven: sessionRun.drivers!.sessions, members: fleet.members } : undefined
    const verdict = await judgeFleet({ db: fleetDb, ids, token, maxConcurrency, live: fleet.live(), receiver, watchers: fleet.watchers, faults, unanswered, results, sessions: sessionInputs }, violations)
    await fleetDb.end()
    return {
      jobs: ids.length, processes, durationMs, maxConcurrency, ...verdict,
      killedWorker: faults.killedWorkers[0], killedWorkers: faults.killedWorkers, stalledWorker: faults.stalled?.workerId, resultPosts: results.resultPosts, appliedTrue: results.appliedTrue,
      lateResults: results.lateResults, queueWsEvents: fleet.watchers.reduce((n, w) => n + w.events, 0), timersParkerKilled: faults.timersParkerKilled.size, violations,
    }
  } finally {
    await sessionRun?.stop().catch(() => {})
    await fleet?.stop()
    await sessionRun?.close()
    await receiver?.close()
    await server.stop()
  }
}

function restartWith(fleet: FleetProcesses, log: (line: string) => void, sessionRun: FleetSessionRun | undefined): (victim: Member) => Promise<void> {
  return async (victim) => {
    const replacement = await fleet.restart(victim)
    sessionRun?.follow(fleet.members)
    log(`restarted as ${replacement.workerId}`)
  }
}
