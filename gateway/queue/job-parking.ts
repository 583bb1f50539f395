/**
 * Park and resume of a job's session (job-status.5-6): a parked job frees its slot, is capped by
 * maxParkedDurationMs, and takes a slot back before new claims when its session is rebuilt. With
 * a shared adapter a park may be adopted and resumed by another process, a resume may
 * be taken first elsewhere, and overdue parks are swept fleet-wide.
 */
import type { Runner } from '../sessions/runner.ts'
import type { JobRecord } from './adapter.ts'
import type { JobFencing } from './job-fencing.ts'
import type { JobLifecycle } from './job-lifecycle.ts'
import { JobRun } from './job-run.ts'
import type { QueueState, ResumeGrant } from './queue-state.ts'

export class JobParking {
  readonly #q: QueueState
  readonly #fencing: JobFencing
  readonly #lifecycle: JobLifecycle
  /** Resume and park adoption are one transaction: the park store shares the adapter's database. */
  readonly #atomicResume: boolean
  #sweepingCaps = false

  constructor(state: QueueState, fencing: JobFencing, lifecycle: JobLifecycle) {
    this.#q = state
    this.#fencing = fencing
    this.#lifecycle = lifecycle
    const adapter = state.adapter
    this.#atomicResume = adapter.resumeAndAdopt !== undefined && adapter.databaseId !== undefined && adapter.databaseId === state.deps.parkStoreDatabaseId
  }

  /** `{park}`: resumed and its park adopted in one transaction (the store shares the adapter's database). */
  async tryResume(waiter: { jobId: string; sessionId: string; settledExecutionId?: string }, limits: { maxRunning: number }): Promise<'resumed' | 'full' | 'taken' | { park: unknown }> {
    const q = this.#q
    try {
      if (!this.#atomicResume) return await q.adapter.resumeParked!(waiter.jobId, limits)
      const tried = await q.adapter.resumeAndAdopt!(waiter.jobId, waiter.sessionId, limits, waiter.settledExecutionId)
      if (tried.outcome !== 'resumed') return tried.outcome
      // The job_resumed the resume recorded goes out when the rebuilt session takes its slot.
      const run = q.parked.get(waiter.jobId)
      if (run && tried.event) run.resumedEvent = tried.event
      return { park: tried.park }
    } catch (err) {
      q.report(err, 'resume')
      return 'full' // the store is unreachable: the next wake-up asks again
    }
  }

  dropParked(jobId: string): void {
    const run = this.#q.parked.get(jobId)
    run?.clearTimers()
    this.#q.parked.delete(jobId)
  }

  /** Parking asks before it parks a job session; false vetoes (job-status.5). */
  async onSessionParking(sessionId: string, executionId: string): Promise<boolean> {
    const q = this.#q
    const run = [...q.running.values()].find((r) => r.runner.id === sessionId)
    if (!run) return ![...q.parked.values()].some((r) => r.runner.id === sessionId)
    if (run.finalized || run.killReason) return false
    const now = q.now()
    run.runningMs += now - run.legStartedAt
    clearTimeout(run.durationTimer)
    run.unsubscribe()
    run.parked = true
    run.infoCurrent = false
    run.parkedAt = now
    q.running.delete(run.id)
    q.parked.set(run.id, run)
    return true
  }

  /** The park is durable (parking saved it): the job is parked in the adapter, its slot freed (job-status.5). */
  async onSessionParked(sessionId: string, executionId: string): Promise<void> {
    const q = this.#q
    const run = q.parkedRunOf(sessionId)
    if (!run) return
    await run.started
    let updated
    try {
      updated = await q.adapter.update(run.id, { status: 'parked', parkedAt: run.parkedAt, parkedExecutionId: executionId }, this.#fencing.fenceOf(run), q.draft({ type: 'job_parked', executionId }, run.record.request))
      if (!updated) return this.#fencing.abandon(run)
    } catch (err) {
      // Not recorded parked: nothing could wake it. The attempt fails (retry rules apply) and its park is discarded.
      q.report(err, 'job park')
      this.#lifecycle.kill(run, `the park could not be recorded: ${(err as Error).message}`)
      return
    }
    run.record.info = updated.info
    q.announce({ type: 'job_parked', executionId }, updated, run)
    const cap = q.options.maxParkedDurationMs
    if (cap !== undefined) run.parkTimer = setTimeout(() => void this.#parkedTooLong(run, cap).catch((err) => q.report(err, 'job park cap')), Math.max(0, cap - run.parkedMs))
    void q.pump()
  }

  /**
   * A shared adapter: jobs parked longer than maxParkedDurationMs anywhere in the fleet, their
   * parker alive or not, fail their attempt here (retry rules apply), once.
   */
  async sweepParkedCaps(): Promise<void> {
    const q = this.#q
    const cap = q.options.maxParkedDurationMs
    if (cap === undefined || !q.adapter.takeOverdueParked || q.closed || this.#sweepingCaps) return
    this.#sweepingCaps = true
    try {
      for (const record of await q.adapter.takeOverdueParked(q.now() - cap)) {
        this.dropParked(record.info.id)
        if (record.info.sessionId) q.deps.discardSession?.(record.info.sessionId)
        await this.#lifecycle.conclusion.conclude(record, undefined, 'failed', { error: `job exceeded max parked duration (${cap}ms)` }, record.info)
      }
    } catch (err) {
      q.report(err, 'job park cap')
    } finally {
      this.#sweepingCaps = false
    }
  }

  /** Parking could not store the park: the attempt fails (retry rules apply), its job never recorded parked. */
  onParkFailed(sessionId: string, error: string): void {
    const run = this.#q.parkedRunOf(sessionId)
    if (run) this.#lifecycle.kill(run, error)
  }

  async #parkedTooLong(run: JobRun, cap: number): Promise<void> {
    const adapter = this.#q.adapter
    // With a shared adapter another process may have adopted the park and be running the job now.
    if (adapter.findJobBySession) {
      const stored = await adapter.findJobBySession(run.runner.id).catch(() => run.record)
      if (stored?.info.id !== run.id || stored.info.status !== 'parked') return this.dropParked(run.id)
    }
    this.#lifecycle.kill(run, `job exceeded max parked duration (${cap}ms)`)
  }

  /**
   * Parking calls this before rebuilding a parked job's session: it resolves once a slot is free,
   * so a resume never pushes `running` past maxConcurrency. Sessions of no job resolve at once.
   * False (shared adapter): another process resumed the job first and this one must not rebuild it.
   */
  async waitForResumeSlot(sessionId: string, hint: { jobId?: string; settledExecutionId?: string } = {}): Promise<ResumeGrant> {
    const q = this.#q
    const run = q.parkedRunOf(sessionId) ?? await this.#adoptParked(sessionId, hint.jobId)
    if (run === 'not-parked') return false
    if (!run || q.closed) return true
    return new Promise((grant) => {
      q.resumeWaiters.push({ jobId: run.id, sessionId, ...(hint.settledExecutionId !== undefined ? { settledExecutionId: hint.settledExecutionId } : {}), grant })
      void q.pump()
    })
  }

  /**
   * With a shared adapter, a job parked by another process (maybe a dead one) is resumed here
   * when its park is adopted here: it becomes this process's parked run. Its clocks restart
   * from the stored parkedAt; the running time of earlier legs stays with the process that ran them.
   */
  async #adoptParked(sessionId: string, jobId: string | undefined): Promise<JobRun | 'not-parked' | undefined> {
    const q = this.#q
    if (!q.adapter.findJobBySession || q.closed) return undefined
    // The park names its job (meta.jobId): a job not found, or whose session is not (yet) this
    // one, is not resumed and its park not adopted as a plain session's.
    let record: JobRecord | undefined
    try {
      record = jobId !== undefined ? await q.adapter.get(jobId) : await q.adapter.findJobBySession(sessionId)
    } catch (err) {
      q.report(err, 'resume')
      return 'not-parked'
    }
    if (jobId !== undefined && record?.info.sessionId !== sessionId) return 'not-parked'
    if (!record) return undefined
    // The job of this session is no longer parked (another process resumed it): not ours to wake.
    if (record.info.status !== 'parked' || q.running.has(record.info.id) || q.parked.has(record.info.id)) return 'not-parked'
    // Until the rebuilt runner arrives in onSessionResumed only its id is read; close() and
    // subscribe() on a stand-in are caught or never reached.
    const standIn = { id: sessionId } as unknown as Runner
    const run = new JobRun(record, standIn, q.now())
    run.parked = true
    run.adopted = true
    run.parkedAt = record.info.parkedAt ?? q.now()
    q.parked.set(run.id, run)
    return run
  }

  /** The parked job's session could not be rebuilt here: the attempt failed (retry rules apply). */
  async onResumeFailed(sessionId: string, error: string): Promise<void> {
    const run = this.#q.parkedRunOf(sessionId)
    if (run) await this.#lifecycle.finalize(run, 'failed', { error }).catch((err) => this.#q.report(err, 'job finalize'))
  }

  /** A rebuilt session takes its slot back and is watched from where it left off (job-status.6). */
  async onSessionResumed(sessionId: string, runner: Runner): Promise<void> {
    const q = this.#q
    const run = q.parkedRunOf(sessionId)
    if (!run || run.finalized) return
    // An adopted run never saw the events before the park: watch from the rebuilt log's end,
    // read now. Parking calls this in the same step as the rebuild, before anything can drive
    // the session (the result that woke it, or its own watchdog re-armed for a lapsed deadline).
    if (run.adopted) run.lastSeq = runner.info().lastSeq
    const now = q.now()
    q.reserved.delete(run.id)
    run.parkedMs += now - run.parkedAt
    clearTimeout(run.parkTimer)
    run.parked = false
    run.runner = runner
    run.legStartedAt = now
    q.parked.delete(run.id)
    q.running.set(run.id, run)
    const executionId = run.record.info.parkedExecutionId
    // Protocol 7 names the execution the run resumed on, as job_parked does.
    const body = executionId ? { type: 'job_resumed' as const, executionId } : { type: 'job_resumed' as const }
    // Recorded by the resume itself (resumeAndAdopt), or else by this write.
    const recorded = run.resumedEvent
    run.resumedEvent = undefined
    // A shared adapter moved the job to running atomically in resumeParked; a second status write could land after a new park.
    try {
      const updated = await q.adapter.update(run.id, { ...(q.adapter.resumeParked ? {} : { status: 'running' as const }), parkedAt: undefined, parkedExecutionId: undefined },
        this.#fencing.fenceOf(run), recorded ? undefined : q.draft(body, run.record.request))
      if (updated) run.record.info = updated.info
      if (recorded) q.announceRecorded(recorded, run.record.request)
      else q.announce(body, updated ?? run.record, run)
    } catch (err) {
      q.report(err, 'job resume') // the job runs here already; only the park fields stay
      if (recorded) q.announceRecorded(recorded, run.record.request)
      else if (!q.adapter.recordsEvents) q.emit(body, run.record.info, run)
    }
    this.#lifecycle.armDuration(run)
    run.unsubscribe = runner.subscribe((event) => this.#lifecycle.onEvent(run, event), run.lastSeq)
  }
}
