/**
 * The job queue (job-status.*): claims jobs into ordinary registry sessions, completes them on the
 * first turn result, retries failed runs with doubling delays, enforces token and duration limits,
 * frees slots while parked, and reports every transition as a JobEvent, in order, per job.
 *
 * JobQueue is the public face and the claim loop (submit, cancel, stats, pump); the parts fencing
 * and fleet parking grew live beside it, each handed the shared QueueState: the run of an attempt (job-lifecycle.ts),
 * its end and final write (job-conclusion.ts), fencing (job-fencing.ts), park/resume (job-parking.ts),
 * a cancel in whichever phase the job is (job-cancel.ts).
 */
import { createHash, randomUUID } from 'node:crypto'
import {
  TERMINAL_JOB_STATUSES, type CreateJobRequest, type JobEvent, type JobInfo, type JobStatus, type QueueStats, type Scope,
} from '../protocol/index.ts'
import type { Runner } from '../sessions/runner.ts'
import { dayKeyOf, type JobRecord, type QueueAdapter } from './adapter.ts'
import { JobCancel } from './job-cancel.ts'
import { JobEventOrder } from './job-event-order.ts'
import { JobFencing } from './job-fencing.ts'
import { JobLifecycle } from './job-lifecycle.ts'
import { JobParking } from './job-parking.ts'
import { createMemoryQueueAdapter } from './memory-adapter.ts'
import { OutboxDelivery } from './outbox-delivery.ts'
import type { QueueOptions } from './options.ts'
import { QueueState, type QueueDeps, type ResumeGrant } from './queue-state.ts'

// Their export path stays this module's, as before the split.
export type { QueueDeps, ResumeGrant } from './queue-state.ts'

export class QueueRefusal extends Error {}

/** Claims per batch (claimBatch): enough for a pool's worth of slots, few enough that one call stays short. */
const CLAIM_BATCH_MAX = 32

/** JSON with object keys sorted: a request compares equal to itself read back from a store that reorders keys. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : v))
}

export class JobQueue {
  readonly adapter: QueueAdapter
  readonly #q: QueueState
  readonly #fencing: JobFencing
  readonly #lifecycle: JobLifecycle
  readonly #parking: JobParking
  readonly #cancel: JobCancel
  readonly #outbox: OutboxDelivery | undefined

  constructor(options: QueueOptions, deps: QueueDeps) {
    this.adapter = options.adapter ?? createMemoryQueueAdapter()
    const q = this.#q = new QueueState(this.adapter, options, deps)
    q.pump = () => this.pump()
    this.#fencing = new JobFencing(q)
    this.#lifecycle = new JobLifecycle(q, this.#fencing)
    this.#parking = new JobParking(q, this.#fencing, this.#lifecycle)
    this.#cancel = new JobCancel(q, this.#lifecycle)
    this.adapter.onWork?.(() => void this.pump())
    // Every event this process emits is relayed to the fleet's other processes (job-status.2).
    if (this.adapter.shareEvent) {
      const share = this.adapter.shareEvent.bind(this.adapter)
      q.listeners.add((event) => share(event))
    }
    // Job webhooks leave from the adapter's outbox when it records events;
    // a claim is held past one delivery's timeout, so only a dead claimant's events go out twice.
    const adapter = this.adapter
    const outbox = this.#outbox = adapter.recordsEvents && adapter.claimOutbox && adapter.finishOutbox
      ? new OutboxDelivery({ claimOutbox: (limit, ms) => adapter.claimOutbox!(limit, ms), finishOutbox: (entry, after) => adapter.finishOutbox!(entry, after) }, deps.deliverer, { claimMs: (deps.deliverer.timeoutMs ?? 10_000) + 5000, onError: (err, where) => q.report(err, where) })
      : undefined
    if (outbox) {
      q.outboxKick = () => outbox.kick()
      outbox.kick() // events a process before this one recorded and did not deliver
    }
    // Leases are renewed for the runs this process has, not for every job it once claimed.
    this.adapter.renewOnly?.(() => q.heldClaims())
    this.adapter.onHeartbeat?.(() => {
      // A claim lapses only with time, by a lease far longer than a heartbeat: the pump asks for
      // lapsed claims once per heartbeat, not once per job (a round trip per job).
      q.reclaimDue = true
      void this.pump()
      void this.#fencing.checkClaims()
      void this.#parking.sweepParkedCaps()
      outbox?.kick() // retries come due, and claims of dead processes lapse
    })
    const retention = options.retention
    if (retention) {
      const timer = setInterval(() => void q.sweep(), retention.sweepIntervalMs ?? Math.min(retention.maxAgeMs, 60_000))
      timer.unref()
      q.timers.add(timer)
    }
  }

  get maxConcurrency(): number {
    return this.#q.maxConcurrency
  }

  /** Local observers and the queue WS see every event, job_submitted included. */
  subscribe(listener: (event: JobEvent) => void): () => void {
    this.#q.listeners.add(listener)
    return () => this.#q.listeners.delete(listener)
  }

  /**
   * Every job's events, wherever in the fleet they were emitted (`/queue/ws`, job-status.2): this
   * process's and those the adapter hears relayed, each job's in order, once each (JobEventOrder).
   * With an adapter that shares none (one process), the same as `subscribe`.
   */
  subscribeFleet(listener: (event: JobEvent) => void): () => void {
    const adapter = this.adapter
    if (!adapter.onSharedEvent) return this.subscribe(listener)
    const order = new JobEventOrder(listener)
    const offLocal = this.subscribe((event) => order.push(event))
    const offShared = adapter.onSharedEvent((event) => order.push(event))
    return () => { offLocal(); offShared(); order.close() }
  }

  /**
   * `idempotencyKey` (POST /jobs `Idempotency-Key`): a submission under a key this caller's scope
   * used before, for the same request, answers that job and adds nothing (a retry after a 503
   * whose insert had committed); for another request it is refused. Honoured by adapters with
   * `addOnce` (both bundled ones).
   */
  async submit(request: CreateJobRequest, scope: Scope | undefined, idempotencyKey?: string): Promise<JobInfo> {
    const q = this.#q
    if (q.closed) throw new QueueRefusal('queue is closed')
    const { session } = request
    if (session.resume !== undefined || session.forkSession !== undefined) throw new QueueRefusal('resume/forkSession are not supported for queued jobs')
    const attempts = request.attempts ?? 1
    if (!Number.isInteger(attempts) || attempts < 1) throw new QueueRefusal('attempts must be a positive integer')
    if (request.retryDelayMs !== undefined && !(request.retryDelayMs >= 0)) throw new QueueRefusal('retryDelayMs must be >= 0')
    const info: JobInfo = {
      id: randomUUID(), status: 'queued', cwd: session.cwd ?? '', prompt: session.prompt, createdAt: q.now(),
      attempt: 1, maxAttempts: attempts, usage: { tokens: 0, totalCostUsd: 0, numTurns: 0 },
    }
    if (session.profile !== undefined) info.profile = session.profile
    if (request.meta !== undefined) info.meta = request.meta
    if (scope !== undefined) info.scope = scope
    let announced!: () => void
    q.announcing.set(info.id, new Promise<void>((resolve) => { announced = resolve }))
    try {
      if (idempotencyKey !== undefined && this.adapter.addOnce) {
        // Scoped: one caller's key never names another's job.
        const key = createHash('sha256').update(JSON.stringify(scope ?? null)).update('\n').update(idempotencyKey).digest('hex')
        const existing = await this.adapter.addOnce({ info, request }, key)
        if (existing) {
          if (canonical(existing.request) !== canonical(request)) throw new QueueRefusal('Idempotency-Key was already used for a different job request')
          return existing.info
        }
      } else {
        await this.adapter.add({ info, request })
      }
      q.emit({ type: 'job_submitted' }, info, undefined, request)
    } finally {
      q.announcing.delete(info.id)
      announced()
    }
    void this.pump()
    return info
  }

  get(id: string): Promise<JobRecord | undefined> {
    return this.adapter.get(id)
  }

  async list(): Promise<JobInfo[]> {
    return (await this.adapter.list()).map((r) => r.info)
  }

  /** job-status.12, whatever the job's phase here (job-cancel.ts). */
  cancel(id: string): Promise<JobInfo | undefined> {
    return this.#cancel.cancel(id)
  }

  async stats(): Promise<QueueStats> {
    const q = this.#q
    const jobs = await this.adapter.list()
    const used = await this.adapter.dailyTokens(dayKeyOf(q.now()))
    const limit = q.options.dailyTokenLimit
    // A shared adapter answers for the fleet: every process gives the same
    // counts, read from the store; one process alone counts its slots, resuming ones included.
    const shared = this.adapter.resumeParked !== undefined
    const count = (status: JobStatus) => jobs.filter((j) => j.info.status === status).length
    const stats: QueueStats = {
      maxConcurrency: this.maxConcurrency,
      running: shared ? count('running') : q.running.size + q.reserved.size,
      queued: count('queued'),
      parked: shared ? count('parked') : q.parked.size,
      dailyTokensUsed: used,
      paused: limit !== undefined && used >= limit,
    }
    if (q.options.sessionTokenLimit !== undefined) stats.sessionTokenLimit = q.options.sessionTokenLimit
    if (limit !== undefined) stats.dailyTokenLimit = limit
    return stats
  }

  /**
   * Claims while a slot is free and the daily budget allows (job-status.3). Single-flight. Never
   * rejects: a store error is reported and the next wake-up (a notification, the heartbeat, a
   * job's end) pumps again.
   */
  async pump(): Promise<void> {
    const q = this.#q
    if (q.pumping) {
      q.pumpAgain = true
      return
    }
    q.pumping = true
    try {
      do {
        q.pumpAgain = false
        await this.#reclaimLapsed()
        const limits = { maxRunning: this.maxConcurrency }
        while (!q.closed && q.slotsTaken() < this.maxConcurrency) {
          const waiter = q.resumeWaiters.shift()
          if (waiter) {
            // A shared adapter counts the whole fleet: wait for a slot freed anywhere (job-status.6).
            const tried = this.adapter.resumeParked ? await this.#parking.tryResume(waiter, limits) : 'resumed'
            const outcome = typeof tried === 'object' ? 'resumed' : tried
            if (outcome === 'full') {
              q.resumeWaiters.unshift(waiter)
              break
            }
            if (outcome === 'taken') {
              // Another process resumed it first: this process's parked run is stale. Unless this
              // process resumed it itself (a slot is reserved for its rebuild): that run must reach
              // onSessionResumed, or the job would stay running here with nothing to end it.
              if (!q.reserved.has(waiter.jobId)) this.#parking.dropParked(waiter.jobId)
              waiter.grant(false)
              continue
            }
            q.reserved.add(waiter.jobId)
            waiter.grant(typeof tried === 'object' ? tried : true)
            continue
          }
          if (await q.budgetExhausted()) break
          // Every free slot's claim in one step when the adapter can, else one by one.
          const asked = this.adapter.claimBatch ? Math.min(this.maxConcurrency - q.slotsTaken(), CLAIM_BATCH_MAX) : 1
          const claims = asked > 1
            ? await q.claiming(this.adapter.claimBatch!(q.now(), limits, asked))
            : [await q.claiming(this.adapter.claimNext(q.now(), limits))].filter((r) => r !== undefined)
          // Not awaited: each start holds its slot from here (q.starting, counted by
          // slotsTaken), and a job that ends while the pump goes on claiming for other slots
          // would otherwise find the pump busy and could not claim the next job with its final
          // write. start() reports its own failures.
          for (const claimed of claims) void this.#lifecycle.start(claimed).catch((err) => q.report(err, 'job start'))
          if (claims.length < asked) break // no more runnable jobs, or no fleet-wide slot
        }
      } while (q.pumpAgain && !q.closed)
    } catch (err) {
      q.report(err, 'queue pump')
    } finally {
      q.pumping = false
    }
  }

  /**
   * A shared adapter hands over jobs whose worker died holding them (its claim lapsed): the
   * attempt failed, and the retry rules apply to it here, once (job-status.7).
   */
  async #reclaimLapsed(): Promise<void> {
    const q = this.#q
    if (!this.adapter.reclaimExpired || q.closed) return
    // With a heartbeat, only after one (and at the first pump); without, at every pump as before.
    if (this.adapter.onHeartbeat && !q.reclaimDue) return
    q.reclaimDue = false
    let lapsed: JobRecord[]
    try {
      lapsed = await this.adapter.reclaimExpired(q.now())
    } catch {
      return // housekeeping; the next pump tries again
    }
    for (const record of lapsed) {
      if (q.running.has(record.info.id)) continue
      // A parked run here is stale: another process resumed the job, then died running it.
      this.#parking.dropParked(record.info.id)
      await this.#lifecycle.conclusion.conclude(record, undefined, 'failed', { error: 'worker lost: the process running this job stopped' }, record.info)
    }
  }

  /** Parking asks before it parks a job session; false vetoes (job-status.5). */
  onSessionParking(sessionId: string, executionId: string): Promise<boolean> {
    return this.#parking.onSessionParking(sessionId, executionId)
  }

  /** The park is durable (parking saved it): the job is parked in the adapter, its slot freed (job-status.5). */
  onSessionParked(sessionId: string, executionId: string): Promise<void> {
    return this.#parking.onSessionParked(sessionId, executionId)
  }

  /** Parking could not store the park: the attempt fails (retry rules apply), its job never recorded parked. */
  onParkFailed(sessionId: string, error: string): void {
    this.#parking.onParkFailed(sessionId, error)
  }

  /** Resolves once a slot is free for the parked job's rebuilt session; false: another process resumed it first. */
  waitForResumeSlot(sessionId: string, hint: { jobId?: string; settledExecutionId?: string } = {}): Promise<ResumeGrant> {
    return this.#parking.waitForResumeSlot(sessionId, hint)
  }

  /** The parked job's session could not be rebuilt here: the attempt failed (retry rules apply). */
  onResumeFailed(sessionId: string, error: string): Promise<void> {
    return this.#parking.onResumeFailed(sessionId, error)
  }

  /** A rebuilt session takes its slot back and is watched from where it left off (job-status.6). */
  onSessionResumed(sessionId: string, runner: Runner): Promise<void> {
    return this.#parking.onSessionResumed(sessionId, runner)
  }

  close(): void {
    const q = this.#q
    q.closed = true
    this.#outbox?.close()
    for (const timer of q.timers) clearTimeout(timer)
    q.timers.clear()
    for (const run of [...q.running.values(), ...q.parked.values()]) run.clearTimers()
  }

  isTerminal(status: JobStatus): boolean {
    return TERMINAL_JOB_STATUSES.includes(status)
  }
}
