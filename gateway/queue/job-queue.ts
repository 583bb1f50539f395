/**
 * The job queue (job-status.*): claims jobs into ordinary registry sessions, completes them on the
 * first turn result, retries failed runs with doubling delays, enforces token and duration limits,
 * frees slots while parked, and reports every transition as a JobEvent, in order, per job.
 */
import { randomUUID } from 'node:crypto'
import {
  TERMINAL_JOB_STATUSES, type CreateJobRequest, type CreateSessionRequest, type JobEvent, type JobEventBody, type JobInfo,
  type JobStatus, type QueueStats, type Scope, type SessionEvent,
} from '../protocol/index.ts'
import type { Runner } from '../sessions/runner.ts'
import type { WebhookDeliverer } from '../sessions/webhooks.ts'
import { dayKeyOf, msUntilUtcRollover, type Fence, type JobRecord, type QueueAdapter } from './adapter.ts'
import { JobRun, stricter, sumUsage } from './job-run.ts'
import { createMemoryQueueAdapter } from './memory-adapter.ts'
import { QUEUE_DEFAULTS, type QueueOptions } from './options.ts'
import { progressOf } from './progress.ts'

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
  /** A store operation failed (issue 21): the one job operation it served fails, the process goes on. */
  onError?: (err: unknown, where: string) => void
  now?: () => number
}

/** What parking gets back when it asks to resume a job's park (see ParkingDeps.beforeResume). */
export type ResumeGrant = boolean | { park: unknown }

export class QueueRefusal extends Error {}

export class JobQueue {
  readonly adapter: QueueAdapter
  #options: QueueOptions
  #deps: QueueDeps
  #now: () => number
  #running = new Map<string, JobRun>()
  #parked = new Map<string, JobRun>()
  #timers = new Set<NodeJS.Timeout>()
  #listeners = new Set<(event: JobEvent) => void>()
  /** Slots promised to parked jobs whose session is being rebuilt; resumes go before new claims. */
  #reserved = new Set<string>()
  #resumeWaiters: Array<{ jobId: string; sessionId: string; settledExecutionId?: string; grant: (mine: ResumeGrant) => void }> = []
  #pumping = false
  #pumpAgain = false
  #closed = false
  #atomicResume: boolean
  #sweepingCaps = false

  constructor(options: QueueOptions, deps: QueueDeps) {
    this.#options = options
    this.#deps = deps
    this.#now = deps.now ?? Date.now
    this.adapter = options.adapter ?? createMemoryQueueAdapter()
    this.#atomicResume = this.adapter.resumeAndAdopt !== undefined && this.adapter.databaseId !== undefined && this.adapter.databaseId === deps.parkStoreDatabaseId
    this.adapter.onWork?.(() => void this.pump())
    this.adapter.onHeartbeat?.(() => {
      void this.#checkClaims()
      void this.#sweepParkedCaps()
    })
    const retention = options.retention
    if (retention) {
      const timer = setInterval(() => void this.#sweep(), retention.sweepIntervalMs ?? Math.min(retention.maxAgeMs, 60_000))
      timer.unref()
      this.#timers.add(timer)
    }
  }

  get maxConcurrency(): number {
    return this.#options.maxConcurrency ?? QUEUE_DEFAULTS.maxConcurrency
  }

  /** Local observers and the queue WS see every event, job_submitted included. */
  subscribe(listener: (event: JobEvent) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  async submit(request: CreateJobRequest, scope: Scope | undefined): Promise<JobInfo> {
    if (this.#closed) throw new QueueRefusal('queue is closed')
    const { session } = request
    if (session.resume !== undefined || session.forkSession !== undefined) throw new QueueRefusal('resume/forkSession are not supported for queued jobs')
    const attempts = request.attempts ?? 1
    if (!Number.isInteger(attempts) || attempts < 1) throw new QueueRefusal('attempts must be a positive integer')
    if (request.retryDelayMs !== undefined && !(request.retryDelayMs >= 0)) throw new QueueRefusal('retryDelayMs must be >= 0')
    const info: JobInfo = {
      id: randomUUID(), status: 'queued', cwd: session.cwd ?? '', prompt: session.prompt, createdAt: this.#now(),
      attempt: 1, maxAttempts: attempts, usage: { tokens: 0, totalCostUsd: 0, numTurns: 0 },
    }
    if (session.profile !== undefined) info.profile = session.profile
    if (request.meta !== undefined) info.meta = request.meta
    if (scope !== undefined) info.scope = scope
    await this.adapter.add({ info, request })
    this.#emit({ type: 'job_submitted' }, info, undefined, request)
    void this.pump()
    return info
  }

  get(id: string): Promise<JobRecord | undefined> {
    return this.adapter.get(id)
  }

  async list(): Promise<JobInfo[]> {
    return (await this.adapter.list()).map((r) => r.info)
  }

  async cancel(id: string): Promise<JobInfo | undefined> {
    const run = this.#running.get(id) ?? this.#parked.get(id)
    if (run) {
      run.canceled = true
      run.killReason = 'canceled'
      await this.#finalize(run, 'canceled', { error: 'canceled' })
      return (await this.adapter.get(id))?.info
    }
    const record = await this.adapter.get(id)
    if (!record || record.info.status !== 'queued') return record?.info
    const info = await this.adapter.update(id, { status: 'canceled', finishedAt: this.#now(), error: 'canceled', nextRunAt: undefined })
    if (info) this.#emit({ type: 'job_completed' }, info.info, undefined, record.request)
    return info?.info
  }

  async stats(): Promise<QueueStats> {
    const jobs = await this.adapter.list()
    const used = await this.adapter.dailyTokens(dayKeyOf(this.#now()))
    const limit = this.#options.dailyTokenLimit
    // A shared adapter answers for the fleet (issue 21, item 7): every process gives the same
    // counts, read from the store; one process alone counts its slots, resuming ones included.
    const shared = this.adapter.resumeParked !== undefined
    const count = (status: JobStatus) => jobs.filter((j) => j.info.status === status).length
    const stats: QueueStats = {
      maxConcurrency: this.maxConcurrency,
      running: shared ? count('running') : this.#running.size + this.#reserved.size,
      queued: count('queued'),
      parked: shared ? count('parked') : this.#parked.size,
      dailyTokensUsed: used,
      paused: limit !== undefined && used >= limit,
    }
    if (this.#options.sessionTokenLimit !== undefined) stats.sessionTokenLimit = this.#options.sessionTokenLimit
    if (limit !== undefined) stats.dailyTokenLimit = limit
    return stats
  }

  /**
   * Claims while a slot is free and the daily budget allows (job-status.3). Single-flight. Never
   * rejects: a store error is reported and the next wake-up (a notification, the heartbeat, a
   * job's end) pumps again.
   */
  async pump(): Promise<void> {
    if (this.#pumping) {
      this.#pumpAgain = true
      return
    }
    this.#pumping = true
    try {
      do {
        this.#pumpAgain = false
        await this.#reclaimLapsed()
        const limits = { maxRunning: this.maxConcurrency }
        while (!this.#closed && this.#running.size + this.#reserved.size < this.maxConcurrency) {
          const waiter = this.#resumeWaiters.shift()
          if (waiter) {
            // A shared adapter counts the whole fleet: wait for a slot freed anywhere (job-status.6).
            const tried = this.adapter.resumeParked ? await this.#tryResume(waiter, limits) : 'resumed'
            const outcome = typeof tried === 'object' ? 'resumed' : tried
            if (outcome === 'full') {
              this.#resumeWaiters.unshift(waiter)
              break
            }
            if (outcome === 'taken') {
              // Another process resumed it first: this process's parked run is stale.
              this.#dropParked(waiter.jobId)
              waiter.grant(false)
              continue
            }
            this.#reserved.add(waiter.jobId)
            waiter.grant(typeof tried === 'object' ? tried : true)
            continue
          }
          if (await this.#budgetExhausted()) break
          const claimed = await this.adapter.claimNext(this.#now(), limits)
          if (!claimed) break
          await this.#start(claimed)
        }
      } while (this.#pumpAgain && !this.#closed)
    } catch (err) {
      this.#report(err, 'queue pump')
    } finally {
      this.#pumping = false
    }
  }

  #report(err: unknown, where: string): void {
    try {
      this.#deps.onError?.(err, where)
    } catch {
      // A throwing error hook must not break the queue.
    }
  }

  /** `{park}`: resumed and its park adopted in one transaction (the store shares the adapter's database). */
  async #tryResume(waiter: { jobId: string; sessionId: string; settledExecutionId?: string }, limits: { maxRunning: number }): Promise<'resumed' | 'full' | 'taken' | { park: unknown }> {
    try {
      if (!this.#atomicResume) return await this.adapter.resumeParked!(waiter.jobId, limits)
      const tried = await this.adapter.resumeAndAdopt!(waiter.jobId, waiter.sessionId, limits, waiter.settledExecutionId)
      return tried.outcome === 'resumed' ? { park: tried.park } : tried.outcome
    } catch (err) {
      this.#report(err, 'resume')
      return 'full' // the store is unreachable: the next wake-up asks again
    }
  }

  #dropParked(jobId: string): void {
    const run = this.#parked.get(jobId)
    run?.clearTimers()
    this.#parked.delete(jobId)
  }

  /**
   * A shared adapter hands over jobs whose worker died holding them (its claim lapsed): the
   * attempt failed, and the retry rules apply to it here, once (job-status.7).
   */
  async #reclaimLapsed(): Promise<void> {
    if (!this.adapter.reclaimExpired || this.#closed) return
    let lapsed: JobRecord[]
    try {
      lapsed = await this.adapter.reclaimExpired(this.#now())
    } catch {
      return // housekeeping; the next pump tries again
    }
    for (const record of lapsed) {
      if (this.#running.has(record.info.id)) continue
      // A parked run here is stale: another process resumed the job, then died running it.
      this.#dropParked(record.info.id)
      await this.#conclude(record, undefined, 'failed', { error: 'worker lost: the process running this job stopped' }, record.info)
    }
  }

  async #budgetExhausted(): Promise<boolean> {
    const limit = this.#options.dailyTokenLimit
    if (limit === undefined) return false
    const now = this.#now()
    if ((await this.adapter.dailyTokens(dayKeyOf(now))) < limit) return false
    // Held jobs start at the UTC rollover without waiting for an unrelated event.
    this.#later(msUntilUtcRollover(now) + 5, () => void this.pump())
    return true
  }

  async #start(record: JobRecord): Promise<void> {
    const meta = { ...record.request.meta, ...record.request.session.meta, jobId: record.info.id }
    let runner: Runner
    try {
      runner = await this.#deps.startSession({ ...record.request.session, meta, scope: record.info.scope })
    } catch (err) {
      // The claim lapses if this write fails too: another process applies the retry rules.
      const info = await this.adapter.update(record.info.id, { status: 'failed', finishedAt: this.#now(), error: (err as Error).message }, { attempt: record.info.attempt })
      if (info) this.#emit({ type: 'job_completed' }, info.info, undefined, record.request)
      return
    }
    const run = new JobRun(record, runner, this.#now())
    let started!: () => void
    run.started = new Promise<void>((resolve) => { started = resolve })
    this.#running.set(run.id, run)
    // No status here: claimNext set `running`, and the session may already be parking, whose
    // `parked` must not be overwritten by this write landing after it (updates merge per key).
    // The park waits for this write and for job_started (run.started): the job's session id is
    // in the store before the job can be recorded parked (a process adopting the park finds its
    // job), and job_started goes out before job_parked (issue 21, items 2 and 3).
    try {
      // Each attempt starts clean (issue 21, item 8): the previous attempt's error went out with its job_retrying.
      const info = await this.adapter.update(run.id, { startedAt: this.#now(), sessionId: runner.id, error: undefined }, this.#fenceOf(run))
      if (!info) {
        started()
        return this.#abandon(run)
      }
      run.record.info = info.info
    } catch (err) {
      this.#report(err, 'job start')
    }
    this.#emit({ type: 'job_started' }, run.record.info, run)
    started()
    this.#armDuration(run)
    run.unsubscribe = runner.subscribe((event) => this.#onEvent(run, event), 0)
  }

  #armDuration(run: JobRun): void {
    const limit = stricter(run.record.request.maxDurationMs, this.#options.maxJobDurationMs)
    if (limit === undefined) return
    clearTimeout(run.durationTimer)
    run.durationTimer = setTimeout(() => this.#kill(run, `job exceeded max duration (${limit}ms)`), Math.max(0, limit - run.runningMs))
  }

  #onEvent(run: JobRun, event: SessionEvent): void {
    if (run.finalized) return
    run.lastSeq = event.seq
    switch (event.type) {
      case 'system_init':
        if (event.sdkSessionId) this.adapter.update(run.id, { sdkSessionId: event.sdkSessionId }, this.#fenceOf(run)).catch((err) => this.#report(err, 'job update'))
        break
      case 'assistant_message': {
        if (event.replay) break
        run.estimatedTokens += sumUsage(event.message.usage)
        const limit = stricter(run.record.request.maxTokens, this.#options.sessionTokenLimit)
        if (limit !== undefined && run.estimatedTokens > limit) this.#kill(run, `session token limit exceeded (${run.estimatedTokens} > ${limit})`)
        const progress = progressOf(event)
        if (progress) this.#emitProgress(run, progress)
        break
      }
      case 'permission_requested':
      case 'permission_resolved': {
        const progress = progressOf(event)
        if (progress) this.#emitProgress(run, progress)
        break
      }
      case 'turn_result': {
        // The first turn result completes the job (job-status.8).
        const tokens = sumUsage(event.usage) || run.estimatedTokens
        const result = { subtype: event.subtype, isError: event.isError, durationMs: event.durationMs, ...(event.result !== undefined ? { result: event.result } : {}), ...(event.errors ? { errors: event.errors } : {}) }
        const status: JobStatus = run.killReason ? (run.canceled ? 'canceled' : 'failed') : event.isError ? 'failed' : 'succeeded'
        const error = run.killReason ?? (event.isError ? (event.errors?.join('; ') || event.subtype) : undefined)
        this.#finalizeSafely(run, status, { result, ...(error ? { error } : {}) }, { tokens, totalCostUsd: event.totalCostUsd, numTurns: event.numTurns })
        break
      }
      case 'session_error':
        this.#finalizeSafely(run, run.canceled ? 'canceled' : 'failed', { error: event.message })
        break
      case 'session_closed':
        this.#finalizeSafely(run, run.canceled ? 'canceled' : 'failed', { error: run.killReason ?? 'session closed before completing' })
        break
    }
  }

  /** Interrupts, then force-finalizes after killGraceMs (job-status.9-10). Idempotent. */
  #kill(run: JobRun, reason: string): void {
    if (run.killReason || run.finalized) return
    run.killReason = reason
    if (run.parked) {
      this.#finalizeSafely(run, 'failed', { error: reason })
      return
    }
    try { run.runner.interrupt() } catch { /* the grace timer finalizes anyway */ }
    run.forceTimer = setTimeout(() => this.#finalizeSafely(run, run.canceled ? 'canceled' : 'failed', { error: reason }), this.#options.killGraceMs ?? QUEUE_DEFAULTS.killGraceMs)
  }

  /** #finalize from an event or a timer: a store error is reported, never an unhandled rejection. */
  #finalizeSafely(run: JobRun, status: JobStatus, patch: Partial<JobInfo>, usage?: { tokens: number; totalCostUsd: number; numTurns: number }): void {
    this.#finalize(run, status, patch, usage).catch((err) => this.#report(err, 'job finalize'))
  }

  async #finalize(run: JobRun, status: JobStatus, patch: Partial<JobInfo>, usage?: { tokens: number; totalCostUsd: number; numTurns: number }): Promise<void> {
    if (run.finalized) return
    run.finalized = true
    run.unsubscribe()
    run.clearTimers()
    const wasParked = run.parked
    this.#running.delete(run.id)
    this.#parked.delete(run.id)
    this.#reserved.delete(run.id)
    this.#resumeWaiters = this.#resumeWaiters.filter((w) => w.jobId !== run.id)
    try { run.runner.close('server') } catch { /* already closed */ }
    if (wasParked) this.#deps.discardSession?.(run.runner.id)
    const tokens = usage?.tokens ?? run.estimatedTokens
    if (tokens > 0) await this.adapter.addDailyTokens(dayKeyOf(this.#now()), tokens).catch((err) => this.#report(err, 'daily tokens'))
    // The attempt's end must reach the store, or the job stays `running` under this process's
    // renewed lease with nothing left to end it: a failed write is reported and tried again.
    const record = async (tries: number): Promise<void> => {
      try {
        const current = (await this.adapter.get(run.id))?.info ?? run.record.info
        const total = {
          tokens: current.usage.tokens + tokens,
          totalCostUsd: current.usage.totalCostUsd + (usage?.totalCostUsd ?? 0),
          numTurns: current.usage.numTurns + (usage?.numTurns ?? 0),
        }
        await this.#conclude(run.record, run, status, patch, current, total)
      } catch (err) {
        this.#report(err, 'job finalize')
        if (!this.#closed) this.#later(Math.min(30_000, 250 * 2 ** tries), () => void record(tries + 1))
      }
    }
    await record(0)
    void this.pump()
  }

  /** Retries a failed attempt with a doubling delay while attempts remain; otherwise the job ends (job-status.7-8). */
  async #conclude(record: JobRecord, run: JobRun | undefined, status: JobStatus, patch: Partial<JobInfo>, current: JobInfo, total = current.usage): Promise<void> {
    const retry = status === 'failed' && current.attempt < current.maxAttempts && !this.#closed
    const id = current.id
    // The attempt this end is for (the record's, not the store's current one, which another
    // process may have moved on): the write lands only while this process holds its claim.
    const fence = { attempt: record.info.attempt }
    if (retry) {
      const delay = (record.request.retryDelayMs ?? QUEUE_DEFAULTS.retryDelayMs) * 2 ** (current.attempt - 1)
      const now = this.#now()
      const nextRunAt = now + delay
      await this.#complete(id, {
        status: 'queued', attempt: current.attempt + 1, nextRunAt, error: patch.error, usage: total,
        sessionId: undefined, sdkSessionId: undefined, startedAt: undefined, result: undefined, parkedAt: undefined, parkedExecutionId: undefined,
      }, (updated) => {
        if (!updated) return this.#fencedOut(id, fence)
        this.#emit({ type: 'job_retrying', nextRunAt, ...(patch.error ? { error: patch.error } : {}) }, updated, run, record.request, now)
        this.#wakeAt(nextRunAt)
      }, fence)
    } else {
      await this.#complete(id, { error: undefined, ...patch, status, usage: total, nextRunAt: undefined, parkedAt: undefined, parkedExecutionId: undefined, finishedAt: this.#now() }, (updated) => {
        if (!updated) return this.#fencedOut(id, fence)
        this.#emit({ type: 'job_completed' }, updated, run, record.request)
      }, fence)
      await this.#sweep()
    }
  }

  /**
   * An attempt's final write (`done` sees its result before anything else happens). When the
   * freed slot would claim next anyway (no pump running, no parked job waiting to resume first,
   * a free slot, the daily budget allows), an adapter with `completeAndClaim` does the write and
   * the claim in one step, one round trip for a database, and the claimed job starts here as the
   * pump would start it; the pump that follows the attempt's end claims for any other free slot.
   */
  async #complete(id: string, patch: Partial<JobInfo>, done: (updated: JobInfo | undefined) => void, fence: Fence): Promise<void> {
    const adapter = this.adapter
    if (!adapter.completeAndClaim || this.#pumping || this.#closed || this.#resumeWaiters.length > 0 || this.#running.size + this.#reserved.size >= this.maxConcurrency) {
      done((await adapter.update(id, patch, fence))?.info)
      return
    }
    this.#pumping = true // a claim, so single-flight with the pump's
    try {
      if (await this.#budgetExhausted()) {
        done((await adapter.update(id, patch, fence))?.info)
        return
      }
      const { completed, claimed } = await adapter.completeAndClaim(id, patch, this.#now(), { maxRunning: this.maxConcurrency }, fence)
      done(completed)
      if (claimed) await this.#start(claimed)
    } finally {
      this.#pumping = false
    }
  }

  /** Parking asks before it parks a job session; false vetoes (job-status.5). */
  async onSessionParking(sessionId: string, executionId: string): Promise<boolean> {
    const run = [...this.#running.values()].find((r) => r.runner.id === sessionId)
    if (!run) return ![...this.#parked.values()].some((r) => r.runner.id === sessionId)
    if (run.finalized || run.killReason) return false
    const now = this.#now()
    run.runningMs += now - run.legStartedAt
    clearTimeout(run.durationTimer)
    run.unsubscribe()
    run.parked = true
    run.parkedAt = now
    this.#running.delete(run.id)
    this.#parked.set(run.id, run)
    return true
  }

  /** The park is durable (parking saved it): the job is parked in the adapter, its slot freed (job-status.5). */
  async onSessionParked(sessionId: string, executionId: string): Promise<void> {
    const run = [...this.#parked.values()].find((r) => r.runner.id === sessionId)
    if (!run) return
    await run.started
    let updated
    try {
      updated = await this.adapter.update(run.id, { status: 'parked', parkedAt: run.parkedAt, parkedExecutionId: executionId }, this.#fenceOf(run))
      if (!updated) return this.#abandon(run)
    } catch (err) {
      // Not recorded parked: nothing could wake it. The attempt fails (retry rules apply) and its park is discarded.
      this.#report(err, 'job park')
      this.#kill(run, `the park could not be recorded: ${(err as Error).message}`)
      return
    }
    if (updated) run.record.info = updated.info
    this.#emit({ type: 'job_parked', executionId }, run.record.info, run)
    const cap = this.#options.maxParkedDurationMs
    if (cap !== undefined) run.parkTimer = setTimeout(() => void this.#parkedTooLong(run, cap).catch((err) => this.#report(err, 'job park cap')), Math.max(0, cap - run.parkedMs))
    void this.pump()
  }

  /**
   * A shared adapter: jobs parked longer than maxParkedDurationMs anywhere in the fleet, their
   * parker alive or not, fail their attempt here (retry rules apply), once (issue 21, Deliver 4).
   */
  async #sweepParkedCaps(): Promise<void> {
    const cap = this.#options.maxParkedDurationMs
    if (cap === undefined || !this.adapter.takeOverdueParked || this.#closed || this.#sweepingCaps) return
    this.#sweepingCaps = true
    try {
      for (const record of await this.adapter.takeOverdueParked(this.#now() - cap)) {
        this.#dropParked(record.info.id)
        if (record.info.sessionId) this.#deps.discardSession?.(record.info.sessionId)
        await this.#conclude(record, undefined, 'failed', { error: `job exceeded max parked duration (${cap}ms)` }, record.info)
      }
    } catch (err) {
      this.#report(err, 'job park cap')
    } finally {
      this.#sweepingCaps = false
    }
  }

  /** Parking could not store the park: the attempt fails (retry rules apply), its job never recorded parked. */
  onParkFailed(sessionId: string, error: string): void {
    const run = [...this.#parked.values()].find((r) => r.runner.id === sessionId)
    if (run) this.#kill(run, error)
  }

  async #parkedTooLong(run: JobRun, cap: number): Promise<void> {
    // With a shared adapter another process may have adopted the park and be running the job now.
    if (this.adapter.findJobBySession) {
      const stored = await this.adapter.findJobBySession(run.runner.id).catch(() => run.record)
      if (stored?.info.id !== run.id || stored.info.status !== 'parked') return this.#dropParked(run.id)
    }
    this.#kill(run, `job exceeded max parked duration (${cap}ms)`)
  }

  /**
   * Parking calls this before rebuilding a parked job's session: it resolves once a slot is free,
   * so a resume never pushes `running` past maxConcurrency. Sessions of no job resolve at once.
   * False (shared adapter): another process resumed the job first and this one must not rebuild it.
   */
  async waitForResumeSlot(sessionId: string, hint: { jobId?: string; settledExecutionId?: string } = {}): Promise<ResumeGrant> {
    const run = [...this.#parked.values()].find((r) => r.runner.id === sessionId) ?? await this.#adoptParked(sessionId, hint.jobId)
    if (run === 'not-parked') return false
    if (!run || this.#closed) return true
    return new Promise((grant) => {
      this.#resumeWaiters.push({ jobId: run.id, sessionId, ...(hint.settledExecutionId !== undefined ? { settledExecutionId: hint.settledExecutionId } : {}), grant })
      void this.pump()
    })
  }

  /**
   * With a shared adapter, a job parked by another process (maybe a dead one) is resumed here
   * when its park is adopted here: it becomes this process's parked run. Its clocks restart
   * from the stored parkedAt; the running time of earlier legs stays with the process that ran them.
   */
  async #adoptParked(sessionId: string, jobId: string | undefined): Promise<JobRun | 'not-parked' | undefined> {
    if (!this.adapter.findJobBySession || this.#closed) return undefined
    // The park names its job (meta.jobId): a job not found, or whose session is not (yet) this
    // one, is not resumed and its park not adopted as a plain session's (issue 21, item 2).
    let record: JobRecord | undefined
    try {
      record = jobId !== undefined ? await this.adapter.get(jobId) : await this.adapter.findJobBySession(sessionId)
    } catch (err) {
      this.#report(err, 'resume')
      return 'not-parked'
    }
    if (jobId !== undefined && record?.info.sessionId !== sessionId) return 'not-parked'
    if (!record) return undefined
    // The job of this session is no longer parked (another process resumed it): not ours to wake.
    if (record.info.status !== 'parked' || this.#running.has(record.info.id) || this.#parked.has(record.info.id)) return 'not-parked'
    // Until the rebuilt runner arrives in onSessionResumed only its id is read; close() and
    // subscribe() on a stand-in are caught or never reached.
    const standIn = { id: sessionId } as unknown as Runner
    const run = new JobRun(record, standIn, this.#now())
    run.parked = true
    run.adopted = true
    run.parkedAt = record.info.parkedAt ?? this.#now()
    this.#parked.set(run.id, run)
    return run
  }

  /** The parked job's session could not be rebuilt here: the attempt failed (retry rules apply). */
  async onResumeFailed(sessionId: string, error: string): Promise<void> {
    const run = [...this.#parked.values()].find((r) => r.runner.id === sessionId)
    if (run) await this.#finalize(run, 'failed', { error }).catch((err) => this.#report(err, 'job finalize'))
  }

  /** A rebuilt session takes its slot back and is watched from where it left off (job-status.6). */
  async onSessionResumed(sessionId: string, runner: Runner): Promise<void> {
    const run = [...this.#parked.values()].find((r) => r.runner.id === sessionId)
    if (!run || run.finalized) return
    // An adopted run never saw the events before the park: watch from the rebuilt log's end,
    // read now, before the result that follows this call starts the turn again.
    if (run.adopted) run.lastSeq = runner.info().lastSeq
    const now = this.#now()
    this.#reserved.delete(run.id)
    run.parkedMs += now - run.parkedAt
    clearTimeout(run.parkTimer)
    run.parked = false
    run.runner = runner
    run.legStartedAt = now
    this.#parked.delete(run.id)
    this.#running.set(run.id, run)
    const executionId = run.record.info.parkedExecutionId
    // A shared adapter moved the job to running atomically in resumeParked; a second status write could land after a new park.
    try {
      const updated = await this.adapter.update(run.id, { ...(this.adapter.resumeParked ? {} : { status: 'running' as const }), parkedAt: undefined, parkedExecutionId: undefined }, this.#fenceOf(run))
      if (updated) run.record.info = updated.info
    } catch (err) {
      this.#report(err, 'job resume') // the job runs here already; only the park fields stay
    }
    // Protocol 7 names the execution the run resumed on, as job_parked does.
    this.#emit(executionId ? { type: 'job_resumed', executionId } : { type: 'job_resumed' }, run.record.info, run)
    this.#armDuration(run)
    run.unsubscribe = runner.subscribe((event) => this.#onEvent(run, event), run.lastSeq)
  }

  /**
   * Progress is written nowhere, so no statement fences it: it goes out only while this
   * process's lease on the job is known to hold (Deliver 3). A lapsed one (the process stalled
   * past it) drops the event and asks the store at once whether the claim is still held.
   */
  #emitProgress(run: JobRun, progress: NonNullable<ReturnType<typeof progressOf>>): void {
    if (this.adapter.leaseHeld?.(run.id) === false) {
      void this.#checkClaims()
      return
    }
    this.#emit({ type: 'job_progress', progress }, run.record.info, run)
  }

  #fenceOf(run: JobRun): Fence {
    return { attempt: run.record.info.attempt }
  }

  /**
   * Fencing (issue 21, Deliver 3): this process no longer holds the claim of `run`'s attempt
   * (its lease lapsed and another process reclaimed the job, or moved it on). The run stops
   * here without a write and without an event: the attempt's outcome is the other process's.
   */
  #abandon(run: JobRun): void {
    if (run.finalized) return
    run.finalized = true
    run.unsubscribe()
    run.clearTimers()
    this.#running.delete(run.id)
    this.#parked.delete(run.id)
    this.#reserved.delete(run.id)
    this.#fencedOut(run.id, this.#fenceOf(run))
    try { run.runner.close('server') } catch { /* already closed */ }
    // A park this process stored for the lost attempt must not wake it: the job runs elsewhere.
    if (run.parked) this.#deps.discardSession?.(run.runner.id)
    void this.pump()
  }

  #fencedOut(jobId: string, fence: Fence): void {
    this.#report(new Error(`job ${jobId} attempt ${fence.attempt}: this process no longer holds its claim (its lease lapsed and another process took the job); its run stopped, nothing written or sent`), 'job fence')
  }

  /** On each heartbeat of a shared adapter: runs whose claim this process no longer holds stop (Deliver 3). */
  async #checkClaims(): Promise<void> {
    const runs = [...this.#running.values()]
    if (!this.adapter.claimsHeld || runs.length === 0 || this.#closed) return
    let held: Set<string>
    try {
      held = await this.adapter.claimsHeld(runs.map((r) => ({ id: r.id, attempt: r.record.info.attempt })))
    } catch (err) {
      return this.#report(err, 'job fence')
    }
    // A run that ended meanwhile is no longer in #running; only the rest are stale.
    for (const run of runs) if (!held.has(run.id) && this.#running.get(run.id) === run) this.#abandon(run)
  }

  // `ts` is passed when the event states a delay from "now", so nextRunAt - ts is exactly that delay.
  #emit(body: JobEventBody, job: JobInfo, run: JobRun | undefined, request?: CreateJobRequest, ts = this.#now()): void {
    const event = { ...body, jobId: job.id, job, ts } as JobEvent
    try { this.#options.onEvent?.(event) } catch { /* an observer never breaks the queue */ }
    for (const listener of this.#listeners) {
      try { listener(event) } catch { /* nor does a socket */ }
    }
    const webhook = (run?.record.request ?? request)?.webhook
    if (!webhook || body.type === 'job_submitted') return // job_submitted goes to local observers only (events.23)
    if (body.type === 'job_progress' && webhook.progress === 'completion') return
    this.#deps.deliverer.deliver(`job:${job.id}`, { url: webhook.url, headers: webhook.headers }, event)
  }

  async #sweep(): Promise<void> {
    const retention = this.#options.retention
    if (!retention) return
    try {
      await this.adapter.prune(retention.maxAgeMs, this.#now())
    } catch {
      // Retention is housekeeping; a failed sweep is retried on the next one.
    }
  }

  /**
   * Pumps once `at` has come by this queue's clock. A timer may fire a millisecond before the
   * wall clock reaches `at` (timers run on a monotonic clock), and claimNext would then skip the
   * job with nothing left to wake it: so a timer that fires early re-arms for the remainder.
   */
  #wakeAt(at: number): void {
    this.#later(Math.max(0, at - this.#now()), () => {
      if (this.#now() < at) this.#wakeAt(at)
      else void this.pump()
    })
  }

  #later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer)
      fn()
    }, ms)
    timer.unref()
    this.#timers.add(timer)
  }

  close(): void {
    this.#closed = true
    for (const timer of this.#timers) clearTimeout(timer)
    this.#timers.clear()
    for (const run of [...this.#running.values(), ...this.#parked.values()]) run.clearTimers()
  }

  isTerminal(status: JobStatus): boolean {
    return TERMINAL_JOB_STATUSES.includes(status)
  }
}
