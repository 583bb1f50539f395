/**
 * The state one JobQueue shares with its collaborators (run lifecycle, fencing, parking): the
 * runs this process holds, the slots promised to resumes, its timers and event listeners, and the
 * helpers every part uses (emit, report, timers). It was JobQueue's private state until fencing and fleet parking
 * grew the class past one concept; the collaborators are handed this object, so none imports another's
 * class and the modules form no cycle.
 */
import type { CreateJobRequest, CreateSessionRequest, JobEvent, JobEventBody, JobInfo } from '../protocol/index.ts'
import type { Runner } from '../sessions/runner.ts'
import type { WebhookDeliverer, WebhookTarget } from '../sessions/webhooks.ts'
import { dayKeyOf, msUntilUtcRollover, type EventDraft, type QueueAdapter, type WrittenRecord } from './adapter.ts'
import type { JobRun } from './job-run.ts'
import { QUEUE_DEFAULTS, type QueueOptions } from './options.ts'

export interface QueueDeps {
  /** Starts the job's session through the server's one session factory. */
  startSession(request: CreateSessionRequest): Promise<Runner>
  deliverer: WebhookDeliverer
  /** Drops a parked session's stored state (parking, a later issue). */
  discardSession?(sessionId: string): void
  /**
   * The session store's database (`SessionStore.databaseId`): when it is the adapter's, a parked
   * job's resume and its park's adoption are one transaction (`QueueAdapter.resumeAndAdopt`).
   */
  parkStoreDatabaseId?: string
  /** A store operation failed: the one job operation it served fails, the process goes on. */
  onError?: (err: unknown, where: string) => void
  now?: () => number
}

/** What parking gets back when it asks to resume a job's park (see ParkingDeps.beforeResume). */
export type ResumeGrant = boolean | { park: unknown }

export interface ResumeWaiter { jobId: string; sessionId: string; settledExecutionId?: string; grant: (mine: ResumeGrant) => void }

export class QueueState {
  readonly adapter: QueueAdapter
  readonly options: QueueOptions
  readonly deps: QueueDeps
  readonly now: () => number
  readonly running = new Map<string, JobRun>()
  readonly parked = new Map<string, JobRun>()
  readonly timers = new Set<NodeJS.Timeout>()
  readonly listeners = new Set<(event: JobEvent) => void>()
  /** Slots promised to parked jobs whose session is being rebuilt; resumes go before new claims. */
  readonly reserved = new Set<string>()
  /** Claimed attempts whose session is being started, and ended ones whose end is being written: job id -> attempt. */
  readonly starting = new Map<string, number>()
  readonly ending = new Map<string, number>()
  /** Starting attempts a cancel ended (job-status.12): their session is closed as soon as it exists, never run. */
  readonly canceledStarts = new Set<string>()
  /** Ended attempts' final writes in flight (the write may queue a retry): a cancel waits for it first. */
  readonly endWrites = new Map<string, Promise<unknown>>()
  /**
   * Claims sent and not yet answered: a job they claimed reads `running` in the store before its
   * start here begins (a database round trip); a cancel that finds one waits for them (job-status.12).
   */
  readonly claimsInFlight = new Set<Promise<unknown>>()
  resumeWaiters: ResumeWaiter[] = []
  /**
   * Jobs this process is submitting, until their job_submitted is out: a shared store makes a row
   * claimable before `add` returns, and job_started must wait for it (job-status.2).
   */
  readonly announcing = new Map<string, Promise<void>>()
  pumping = false
  pumpAgain = false
  /** The next pump asks the adapter for lapsed claims (set by each heartbeat; true for the first pump). */
  reclaimDue = true
  closed = false
  /** The queue's pump (JobQueue.pump), set by JobQueue: a job's end or a timer wakes it. */
  pump: () => Promise<void> = async () => {}

  constructor(adapter: QueueAdapter, options: QueueOptions, deps: QueueDeps) {
    this.adapter = adapter
    this.options = options
    this.deps = deps
    this.now = deps.now ?? Date.now
  }

  get maxConcurrency(): number {
    return this.options.maxConcurrency ?? QUEUE_DEFAULTS.maxConcurrency
  }

  /**
   * Slots this process holds: runs, resumes promised a slot, claimed attempts whose session is
   * being started, and ended ones whose final write is in flight (the store counts them running
   * until it lands; that write may claim the slot's next job itself, JobConclusion).
   */
  slotsTaken(): number {
    return this.running.size + this.reserved.size + this.starting.size + this.ending.size
  }

  report(err: unknown, where: string): void {
    try {
      this.deps.onError?.(err, where)
    } catch {
      // A throwing error hook must not break the queue.
    }
  }

  // `ts` is passed when the event states a delay from "now", so nextRunAt - ts is exactly that delay.
  emit(body: JobEventBody, job: JobInfo, run: JobRun | undefined, request?: CreateJobRequest, ts = this.now()): void {
    const event = { ...body, jobId: job.id, job, ts } as JobEvent
    this.#observe(event)
    const webhook = this.webhookFor(body, run?.record.request ?? request)
    if (webhook) this.deps.deliverer.deliver(`job:${job.id}`, webhook, event)
  }

  /**
   * What a write records as its event, when the adapter records events:
   * the event then goes out as the write committed it (see `announce`), its webhook from the outbox.
   */
  draft(body: JobEventBody, request: CreateJobRequest | undefined, ts = this.now()): EventDraft | undefined {
    if (!this.adapter.recordsEvents) return undefined
    const webhook = this.webhookFor(body, request)
    return { body, ts, ...(webhook ? { webhook } : {}) }
  }

  /**
   * A write's event, once the write landed: the event it recorded (local observers now, the
   * webhook from the outbox), or with an adapter that records none, the event as `emit` builds it.
   * An adapter that records events but recorded none here sends nothing: only the outbox does.
   */
  announce(body: JobEventBody, written: Pick<WrittenRecord, 'info' | 'event'>, run: JobRun | undefined, request?: CreateJobRequest, ts = this.now()): void {
    if (written.event) this.announceRecorded(written.event, run?.record.request ?? request)
    else if (!this.adapter.recordsEvents) this.emit(body, written.info, run, request, ts)
  }

  /** An event a write recorded: local observers see it now; its webhook, if any, leaves from the outbox. */
  announceRecorded(event: JobEvent, request: CreateJobRequest | undefined): void {
    this.#observe(event)
    if (this.webhookFor(event, request)) this.outboxKick()
  }

  /** Wakes outbox delivery (set by JobQueue when the adapter records events). */
  outboxKick: () => void = () => {}

  /** The job webhook an event goes to: none for job_submitted (events.23), nor progress quieted by `progress: 'completion'`. */
  webhookFor(body: { type: JobEventBody['type'] }, request: CreateJobRequest | undefined): WebhookTarget | undefined {
    const webhook = request?.webhook
    if (!webhook || body.type === 'job_submitted') return undefined
    if (body.type === 'job_progress' && webhook.progress === 'completion') return undefined
    return { url: webhook.url, ...(webhook.headers ? { headers: webhook.headers } : {}) }
  }

  #observe(event: JobEvent): void {
    try { this.options.onEvent?.(event) } catch { /* an observer never breaks the queue */ }
    for (const listener of this.listeners) {
      try { listener(event) } catch { /* nor does a socket */ }
    }
  }

  async budgetExhausted(): Promise<boolean> {
    const limit = this.options.dailyTokenLimit
    if (limit === undefined) return false
    const now = this.now()
    if ((await this.adapter.dailyTokens(dayKeyOf(now))) < limit) return false
    // Held jobs start at the UTC rollover without waiting for an unrelated event.
    this.later(msUntilUtcRollover(now) + 5, () => void this.pump())
    return true
  }

  async sweep(): Promise<void> {
    const retention = this.options.retention
    if (!retention) return
    try {
      await this.adapter.prune(retention.maxAgeMs, this.now())
    } catch {
      // Retention is housekeeping; a failed sweep is retried on the next one.
    }
  }

  /**
   * Pumps once `at` has come by this queue's clock. A timer may fire a millisecond before the
   * wall clock reaches `at` (timers run on a monotonic clock), and claimNext would then skip the
   * job with nothing left to wake it: so a timer that fires early re-arms for the remainder.
   */
  wakeAt(at: number): void {
    this.later(Math.max(0, at - this.now()), () => {
      if (this.now() < at) this.wakeAt(at)
      else void this.pump()
    })
  }

  /** `claim` (a claim sent to the adapter), known to be in flight until it is answered. */
  async claiming<T>(claim: Promise<T>): Promise<T> {
    this.claimsInFlight.add(claim)
    try {
      return await claim
    } finally {
      this.claimsInFlight.delete(claim)
    }
  }

  later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      fn()
    }, ms)
    timer.unref()
    this.timers.add(timer)
  }

  /**
   * `run` ended or was abandoned: it leaves the running and parked maps, and with it its job's
   * reserved slot and resume waiters. Only its own entries: a process stalled past its lease may
   * claim the job's next attempt before its stale run of the previous one stops, and that run's
   * end must not unregister the new one (which would then park unseen and stay running).
   */
  forget(run: JobRun, waiters: boolean): void {
    const newer = [this.running.get(run.id), this.parked.get(run.id)].some((r) => r !== undefined && r !== run)
    if (this.running.get(run.id) === run) this.running.delete(run.id)
    if (this.parked.get(run.id) === run) this.parked.delete(run.id)
    if (newer) return
    this.reserved.delete(run.id)
    if (waiters) this.resumeWaiters = this.resumeWaiters.filter((w) => w.jobId !== run.id)
  }

  /**
   * The claims this process has a run for (QueueAdapter.renewOnly): running, being started,
   * parking or resuming (a parked run; the adapter renews running jobs only), or being ended.
   */
  *heldClaims(): Iterable<{ id: string; attempt: number }> {
    for (const run of [...this.running.values(), ...this.parked.values()]) yield { id: run.id, attempt: run.record.info.attempt }
    for (const claims of [this.starting, this.ending]) for (const [id, attempt] of claims) yield { id, attempt }
  }

  /** The run of this session, parked here, if any. */
  parkedRunOf(sessionId: string): JobRun | undefined {
    return [...this.parked.values()].find((r) => r.runner.id === sessionId)
  }
}
