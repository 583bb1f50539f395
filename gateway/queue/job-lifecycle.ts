/**
 * The run of one attempt, from its start to its end (job-status.3, 8-10): the session is started
 * and watched, the token and duration limits are enforced, the first turn result (or the session's
 * error or close) finalizes the attempt, and a kill interrupts, then force-finalizes after a grace.
 * What the end writes (retry or final status) is JobConclusion's.
 */
import type { JobInfo, JobStatus, SessionEvent } from '../protocol/index.ts'
import type { Runner } from '../sessions/runner.ts'
import { dayKeyOf, type JobRecord } from './adapter.ts'
import { JobConclusion } from './job-conclusion.ts'
import type { JobFencing } from './job-fencing.ts'
import { JobRun, stricter, sumUsage } from './job-run.ts'
import { QUEUE_DEFAULTS } from './options.ts'
import { progressOf } from './progress.ts'
import type { QueueState } from './queue-state.ts'

type AttemptUsage = { tokens: number; totalCostUsd: number; numTurns: number }

export class JobLifecycle {
  readonly #q: QueueState
  readonly #fencing: JobFencing
  readonly conclusion: JobConclusion

  constructor(state: QueueState, fencing: JobFencing) {
    this.#q = state
    this.#fencing = fencing
    // The final write may start the job it claims: it is handed this start, so neither module imports the other.
    this.conclusion = new JobConclusion(state, fencing, (record) => this.start(record))
  }

  async start(record: JobRecord): Promise<void> {
    const q = this.#q
    const meta = { ...record.request.meta, ...record.request.session.meta, jobId: record.info.id }
    let runner: Runner
    q.starting.set(record.info.id, record.info.attempt)
    try {
      runner = await q.deps.startSession({ ...record.request.session, meta, scope: record.info.scope })
    } catch (err) {
      q.starting.delete(record.info.id)
      // Canceled while it started: the cancel wrote the job's end (job-status.12).
      if (!q.canceledStarts.delete(record.info.id)) {
        // The claim lapses if this write fails too: another process applies the retry rules.
        const info = await q.adapter.update(record.info.id, { status: 'failed', finishedAt: q.now(), error: (err as Error).message }, { attempt: record.info.attempt }, q.draft({ type: 'job_completed' }, record.request))
        if (info) q.announce({ type: 'job_completed' }, info, undefined, record.request)
      }
      void q.pump() // its slot is free
      return
    }
    if (q.canceledStarts.delete(record.info.id)) {
      // Canceled while its session started (job-status.12): the cancel wrote the job's end; the
      // session is closed before it is watched, so the job does not run on.
      q.starting.delete(record.info.id)
      try { runner.close('server') } catch { /* already closed */ }
      void q.pump()
      return
    }
    const run = new JobRun(record, runner, q.now())
    let started!: () => void
    run.started = new Promise<void>((resolve) => { started = resolve })
    q.running.set(run.id, run)
    q.starting.delete(run.id)
    // No status here: claimNext set `running`, and the session may already be parking, whose
    // `parked` must not be overwritten by this write landing after it (updates merge per key).
    // The park waits for this write and for job_started (run.started): the job's session id is
    // in the store before the job can be recorded parked (a process adopting the park finds its
    // job), and job_started goes out before job_parked.
    // Claimed while its submit was still settling in this process (a shared store): job_submitted goes out first.
    await q.announcing.get(run.id)
    // A session whose first turn has its result by the end of this turn (nothing to do) with no
    // progress before: its start is written by its end's write (StartStep), one write instead of
    // two in a row. Run as below; the job in the store stays as the claim left it (running, this
    // attempt, fenced) until that write, which records job_started first. Never a session that
    // is parking (it closes without a result): a park needs its job's session in the store first.
    if (q.adapter.recordsStartWithEnd && await this.#endedAtOnce(runner) && !run.finalized && !run.parked) {
      const patch = this.#startPatch(run)
      run.startWithEnd = { patch, event: q.draft({ type: 'job_started' }, run.record.request) }
      // The job as that write will find it once its start step is merged: the end needs no read.
      run.record.info = { ...run.record.info, ...patch }
      run.infoCurrent = true
      started()
    } else {
      const recorded = await this.#recordStart(run)
      started()
      if (!recorded) return
    }
    this.armDuration(run)
    run.unsubscribe = runner.subscribe((event) => this.onEvent(run, event), 0)
  }

  /**
   * After this event-loop turn: whether the session's log holds its first turn's result
   * (job-status.8) with nothing before it that the run would write or send (progress), so that
   * the run's end is all it would write. A session's error or close is not taken for it: a
   * parking session closes too, and its park must find the start recorded.
   */
  async #endedAtOnce(runner: Runner): Promise<boolean> {
    await new Promise<void>((resolve) => setImmediate(resolve))
    let ended = false
    let quiet = true
    const off = runner.subscribe((event) => {
      if (ended) return
      if (event.type === 'turn_result') ended = true
      else if (event.type === 'session_error' || event.type === 'session_closed' || progressOf(event)) quiet = false
    }, 0)
    off()
    return ended && quiet
  }

  /** The attempt's start as the store records it (protocol 7's job_started names the session). */
  #startPatch(run: JobRun): Partial<JobInfo> {
    // Each attempt starts clean: the previous attempt's error went out with its job_retrying.
    // The SDK session id too when the session already has it (one write, not two; system_init then writes nothing).
    const sdkSessionId = run.runner.info().sdkSessionId
    return { startedAt: this.#q.now(), sessionId: run.runner.id, error: undefined, ...(sdkSessionId ? { sdkSessionId } : {}) }
  }

  /**
   * The attempt's start in the store: job_started, and the session a park's resume checks the job
   * by (job-status.5-6). A failed write is tried again until it lands, as an end's is: a run that
   * went on unrecorded parked with no session named, and its result was refused everywhere. False:
   * the run is not to be watched (fenced out, or ended meanwhile).
   */
  async #recordStart(run: JobRun): Promise<boolean> {
    const q = this.#q
    for (let tries = 0; !run.finalized; tries++) {
      try {
        const info = await q.adapter.update(run.id, this.#startPatch(run), this.#fencing.fenceOf(run), q.draft({ type: 'job_started' }, run.record.request))
        if (!info) {
          this.#fencing.abandon(run)
          return false
        }
        run.record.info = info.info
        run.infoCurrent = !run.parked
        q.announce({ type: 'job_started' }, info, run)
        return true
      } catch (err) {
        q.report(err, 'job start')
        // Closing: the run goes on unrecorded; an adapter that records events has its end record job_started late (JobConclusion).
        if (q.closed) {
          if (!q.adapter.recordsEvents) q.emit({ type: 'job_started' }, run.record.info, run)
          return true
        }
        await new Promise<void>((resolve) => q.later(Math.min(30_000, 50 * 2 ** tries), resolve))
      }
    }
    return false
  }

  armDuration(run: JobRun): void {
    const limit = stricter(run.record.request.maxDurationMs, this.#q.options.maxJobDurationMs)
    if (limit === undefined) return
    clearTimeout(run.durationTimer)
    run.durationTimer = setTimeout(() => this.kill(run, `job exceeded max duration (${limit}ms)`), Math.max(0, limit - run.runningMs))
  }

  onEvent(run: JobRun, event: SessionEvent): void {
    const q = this.#q
    if (run.finalized) return
    run.lastSeq = event.seq
    switch (event.type) {
      case 'system_init':
        if (event.sdkSessionId && event.sdkSessionId !== run.record.info.sdkSessionId) q.adapter.update(run.id, { sdkSessionId: event.sdkSessionId }, this.#fencing.fenceOf(run)).catch((err) => q.report(err, 'job update'))
        break
      case 'assistant_message': {
        if (event.replay) break
        run.estimatedTokens += sumUsage(event.message.usage)
        const limit = stricter(run.record.request.maxTokens, q.options.sessionTokenLimit)
        if (limit !== undefined && run.estimatedTokens > limit) this.kill(run, `session token limit exceeded (${run.estimatedTokens} > ${limit})`)
        const progress = progressOf(event)
        if (progress) this.#fencing.emitProgress(run, progress)
        break
      }
      case 'permission_requested':
      case 'permission_resolved': {
        const progress = progressOf(event)
        if (progress) this.#fencing.emitProgress(run, progress)
        break
      }
      case 'turn_result': {
        // The first turn result completes the job (job-status.8).
        const tokens = sumUsage(event.usage) || run.estimatedTokens
        const result = { subtype: event.subtype, isError: event.isError, durationMs: event.durationMs, ...(event.result !== undefined ? { result: event.result } : {}), ...(event.errors ? { errors: event.errors } : {}) }
        const status: JobStatus = run.killReason ? (run.canceled ? 'canceled' : 'failed') : event.isError ? 'failed' : 'succeeded'
        const error = run.killReason ?? (event.isError ? (event.errors?.join('; ') || event.subtype) : undefined)
        this.finalizeSafely(run, status, { result, ...(error ? { error } : {}) }, { tokens, totalCostUsd: event.totalCostUsd, numTurns: event.numTurns })
        break
      }
      case 'session_error':
        this.finalizeSafely(run, run.canceled ? 'canceled' : 'failed', { error: event.message })
        break
      case 'session_closed':
        this.finalizeSafely(run, run.canceled ? 'canceled' : 'failed', { error: run.killReason ?? 'session closed before completing' })
        break
    }
  }

  /** Interrupts, then force-finalizes after killGraceMs (job-status.9-10). Idempotent. */
  kill(run: JobRun, reason: string): void {
    if (run.killReason || run.finalized) return
    run.killReason = reason
    if (run.parked) {
      this.finalizeSafely(run, 'failed', { error: reason })
      return
    }
    try { run.runner.interrupt() } catch { /* the grace timer finalizes anyway */ }
    run.forceTimer = setTimeout(() => this.finalizeSafely(run, run.canceled ? 'canceled' : 'failed', { error: reason }), this.#q.options.killGraceMs ?? QUEUE_DEFAULTS.killGraceMs)
  }

  /** finalize from an event or a timer: a store error is reported, never an unhandled rejection. */
  finalizeSafely(run: JobRun, status: JobStatus, patch: Partial<JobInfo>, usage?: AttemptUsage): void {
    this.finalize(run, status, patch, usage).catch((err) => this.#q.report(err, 'job finalize'))
  }

  async finalize(run: JobRun, status: JobStatus, patch: Partial<JobInfo>, usage?: AttemptUsage): Promise<void> {
    const q = this.#q
    if (run.finalized) return
    run.finalized = true
    run.unsubscribe()
    run.clearTimers()
    const wasParked = run.parked
    q.forget(run, true)
    // Its lease is renewed until its end is written (or fenced out), and no longer.
    q.ending.set(run.id, run.record.info.attempt)
    try { run.runner.close('server') } catch { /* already closed */ }
    if (wasParked) q.deps.discardSession?.(run.runner.id)
    // A cancel meanwhile waits for the end's write: it may queue a retry, which the cancel then ends.
    const written = this.#writeEnd(run, status, patch, usage)
    q.endWrites.set(run.id, written)
    const claimedNext = await written
    if (q.endWrites.get(run.id) === written) q.endWrites.delete(run.id)
    // Its slot is free, unless its own write claimed the next job for it (then a pump would only
    // ask the store for a slot the fleet no longer has).
    if (!claimedNext) void q.pump()
  }

  /** The attempt's tokens and its end, in the store; true when the end's write claimed the next job for its slot. */
  async #writeEnd(run: JobRun, status: JobStatus, patch: Partial<JobInfo>, usage?: AttemptUsage): Promise<boolean> {
    const q = this.#q
    const tokens = usage?.tokens ?? run.estimatedTokens
    if (tokens > 0) await q.adapter.addDailyTokens(dayKeyOf(q.now()), tokens).catch((err) => q.report(err, 'daily tokens'))
    // The attempt's end must reach the store, or the job stays `running` under this process's
    // renewed lease with nothing left to end it: a failed write is reported and tried again.
    const record = async (tries: number): Promise<boolean> => {
      try {
        // The store's copy is read unless this run's own start write answered it and nothing
        // since wrote the job (only this claim's holder writes it, and only through this run).
        const current = (tries === 0 && run.infoCurrent ? run.record.info : (await q.adapter.get(run.id))?.info) ?? run.record.info
        const total = {
          tokens: current.usage.tokens + tokens,
          totalCostUsd: current.usage.totalCostUsd + (usage?.totalCostUsd ?? 0),
          numTurns: current.usage.numTurns + (usage?.numTurns ?? 0),
        }
        const claimed = await this.conclusion.conclude(run.record, run, status, patch, current, total)
        if (q.ending.get(run.id) === run.record.info.attempt) q.ending.delete(run.id)
        return claimed
      } catch (err) {
        q.report(err, 'job finalize')
        if (!q.closed) q.later(Math.min(30_000, 250 * 2 ** tries), () => void record(tries + 1))
        return false
      }
    }
    return record(0)
  }
}
