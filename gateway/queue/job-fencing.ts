/**
 * Fencing: a run continues only while this process holds the claim of its
 * attempt. Writes carry the attempt as their fence; progress, written nowhere, is gated on the
 * lease; each heartbeat asks the store which claims still hold; a run whose claim is lost stops
 * here without a write and without an event, since the attempt's outcome is the other process's.
 */
import type { Fence } from './adapter.ts'
import type { JobRun } from './job-run.ts'
import type { progressOf } from './progress.ts'
import type { QueueState } from './queue-state.ts'

export class JobFencing {
  readonly #q: QueueState

  constructor(state: QueueState) {
    this.#q = state
  }

  fenceOf(run: JobRun): Fence {
    return { attempt: run.record.info.attempt }
  }

  /**
   * `run`'s claim is lost (its lease lapsed and another process reclaimed the job, or moved it
   * on): the run stops here, nothing written or sent.
   */
  abandon(run: JobRun, canceled = false): void {
    const q = this.#q
    if (run.finalized) return
    run.finalized = true
    run.unsubscribe()
    run.clearTimers()
    q.forget(run, false)
    // Canceled through another process (job-status.12): the end is written, nothing was lost.
    if (canceled) run.killReason = 'canceled'
    else this.fencedOut(run.id, this.fenceOf(run))
    try { run.runner.close('server') } catch { /* already closed */ }
    // A park this process stored for the lost attempt must not wake it: the job runs elsewhere.
    if (run.parked) q.deps.discardSession?.(run.runner.id)
    void q.pump()
  }

  fencedOut(jobId: string, fence: Fence): void {
    this.#q.report(new Error(`job ${jobId} attempt ${fence.attempt}: this process no longer holds its claim (its lease lapsed and another process took the job); its run stopped, nothing written or sent`), 'job fence')
  }

  /** On each heartbeat of a shared adapter: runs whose claim this process no longer holds stop (Deliver 3). */
  async checkClaims(): Promise<void> {
    const q = this.#q
    const runs = [...q.running.values()]
    if (!q.adapter.claimsHeld || runs.length === 0 || q.closed) return
    let held: Set<string>
    try {
      held = await q.adapter.claimsHeld(runs.map((r) => ({ id: r.id, attempt: r.record.info.attempt })))
    } catch (err) {
      return q.report(err, 'job fence')
    }
    // A run that ended meanwhile is no longer in running; only the rest are stale.
    for (const run of runs) {
      if (held.has(run.id) || q.running.get(run.id) !== run) continue
      const canceled = await q.adapter.get(run.id).then((r) => r?.info.status === 'canceled' && r.info.attempt === run.record.info.attempt, () => false)
      if (q.running.get(run.id) === run) this.abandon(run, canceled)
    }
  }

  /**
   * Progress is written nowhere, so no statement fences it: it goes out only while this
   * process's lease on the job is known to hold (Deliver 3). A lapsed one (the process stalled
   * past it) drops the event and asks the store at once whether the claim is still held.
   */
  emitProgress(run: JobRun, progress: NonNullable<ReturnType<typeof progressOf>>): void {
    const q = this.#q
    if (q.adapter.leaseHeld?.(run.id) === false) {
      void this.checkClaims()
      return
    }
    const body = { type: 'job_progress' as const, progress }
    const draft = q.draft(body, run.record.request)
    // Progress that goes to no webhook is written nowhere (a write per assistant message would
    // cost every job): local observers get it unnumbered, as from an adapter that records nothing.
    if (!draft?.webhook) return q.emit(body, run.record.info, run)
    // Recorded like every event of an adapter that records them, and so
    // fenced by its statement: a run that lost its claim records none.
    q.adapter.update(run.id, {}, this.fenceOf(run), draft).then((written) => {
      if (written) q.announce(body, written, run)
      else void this.checkClaims()
    }).catch((err) => q.report(err, 'job progress'))
  }
}
