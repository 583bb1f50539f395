/**
 * An attempt's end (job-status.7-8): retry with a doubling delay while attempts remain, otherwise
 * the job's final status; and the final write itself, which may claim the next job in the same
 * step. Every write is fenced by the attempt it ends: it lands only while this process holds
 * that claim.
 */
import type { JobEventBody, JobInfo, JobStatus } from '../protocol/index.ts'
import type { EventDraft, Fence, JobRecord, StartStep, WrittenRecord } from './adapter.ts'
import type { JobFencing } from './job-fencing.ts'
import type { JobRun } from './job-run.ts'
import { QUEUE_DEFAULTS } from './options.ts'
import type { QueueState } from './queue-state.ts'

export class JobConclusion {
  readonly #q: QueueState
  readonly #fencing: JobFencing
  /** Starts a claimed job as the pump would (the run lifecycle's start, passed in: no import cycle). */
  readonly #start: (record: JobRecord) => Promise<void>

  constructor(state: QueueState, fencing: JobFencing, start: (record: JobRecord) => Promise<void>) {
    this.#q = state
    this.#fencing = fencing
    this.#start = start
  }

  /**
   * Retries a failed attempt with a doubling delay while attempts remain; otherwise the job ends
   * (job-status.7-8). True when the end's write claimed the next job for the slot it freed.
   */
  async conclude(record: JobRecord, run: JobRun | undefined, status: JobStatus, patch: Partial<JobInfo>, current: JobInfo, total = current.usage): Promise<boolean> {
    const q = this.#q
    const retry = status === 'failed' && current.attempt < current.maxAttempts && !q.closed
    const id = current.id
    // The attempt this end is for (the record's, not the store's current one, which another
    // process may have moved on): the write lands only while this process holds its claim.
    const fence = { attempt: record.info.attempt }
    // Its session ended before its start was written: the start goes with this write (StartStep),
    // once (a retried end reads the store, and finds the start there or writes it as below).
    const start = run?.startWithEnd
    if (run) run.startWithEnd = undefined
    // job_started, then this write's own event, each as the write recorded it.
    const announce = (body: JobEventBody, updated: Pick<WrittenRecord, 'info' | 'event' | 'startEvent'>, ts?: number) => {
      if (updated.startEvent) q.announceRecorded(updated.startEvent, record.request)
      q.announce(body, updated, run, record.request, ts)
    }
    // An attempt claimed but never recorded started (its process died right after the claim, or
    // the start's write failed): its job_started is recorded now, before its end, so the
    // webhook stream has no hole. startedAt is written with job_started.
    if (!start && q.adapter.recordsEvents && current.startedAt === undefined && current.status === 'running') {
      const body = { type: 'job_started' as const }
      const started = await q.adapter.update(id, { startedAt: q.now(), error: undefined }, fence, q.draft(body, record.request))
      if (!started) {
        this.#fencing.fencedOut(id, fence)
        return false
      }
      q.announce(body, started, run, record.request)
    }
    if (retry) {
      const delay = (record.request.retryDelayMs ?? QUEUE_DEFAULTS.retryDelayMs) * 2 ** (current.attempt - 1)
      const now = q.now()
      const nextRunAt = now + delay
      const body = { type: 'job_retrying' as const, nextRunAt, ...(patch.error ? { error: patch.error } : {}) }
      return this.#complete(id, {
        status: 'queued', attempt: current.attempt + 1, nextRunAt, error: patch.error, usage: total,
        sessionId: undefined, sdkSessionId: undefined, startedAt: undefined, result: undefined, parkedAt: undefined, parkedExecutionId: undefined,
      }, q.draft(body, record.request, now), (updated) => {
        if (!updated) return this.#fencing.fencedOut(id, fence)
        announce(body, updated, now)
        q.wakeAt(nextRunAt)
      }, fence, start)
    }
    const body = { type: 'job_completed' as const }
    const claimed = await this.#complete(id, { error: undefined, ...patch, status, usage: total, nextRunAt: undefined, parkedAt: undefined, parkedExecutionId: undefined, finishedAt: q.now() }, q.draft(body, record.request), (updated) => {
      if (!updated) return this.#fencing.fencedOut(id, fence)
      announce(body, updated)
    }, fence, start)
    await q.sweep()
    return claimed
  }

  /**
   * An attempt's final write (`done` sees its result before anything else happens). When the
   * freed slot would claim next anyway (no parked job waiting to resume first, a free slot, the
   * daily budget allows), an adapter with `completeAndClaim` does the write and the claim in one
   * step, one round trip for a database, and the claimed job starts here as the pump would start
   * it; the pump that follows the attempt's end claims for any other free slot. Several ends at
   * once each claim for their own slot (a database adapter writes and claims them together, in
   * one batch), beside a running pump: each claim is for a slot counted taken (`ending`) until
   * it lands, so the pump never claims for the same slot, and the store bounds the fleet.
   */
  async #complete(id: string, patch: Partial<JobInfo>, event: EventDraft | undefined, done: (updated: Pick<WrittenRecord, 'info' | 'event' | 'startEvent'> | undefined) => void, fence: Fence, start?: StartStep): Promise<boolean> {
    const q = this.#q
    const adapter = q.adapter
    // The slot this attempt held is the one its final write frees (it is still counted, as `ending`).
    const freed = q.ending.has(id) ? 1 : 0
    if (!adapter.completeAndClaim || q.closed || q.resumeWaiters.length > 0 || q.slotsTaken() - freed >= q.maxConcurrency || await q.budgetExhausted()) {
      done(await adapter.update(id, patch, fence, event, start))
      return false
    }
    const outcome = await q.claiming(adapter.completeAndClaim(id, patch, q.now(), { maxRunning: q.maxConcurrency }, fence, event, start))
    done(outcome.completed && { info: outcome.completed, ...(outcome.completedEvent ? { event: outcome.completedEvent } : {}), ...(outcome.startedEvent ? { startEvent: outcome.startedEvent } : {}) })
    const claimed = outcome.claimed
    // The end is written: its slot is no longer this job's (the claimed job's own end, if it
    // comes while this one's start runs, must find it free to claim in turn).
    if (q.ending.get(id) === fence.attempt) q.ending.delete(id)
    // Started after the claim is done: its slot is held from start()'s first step
    // (q.starting), and a job that ends at once must find no claim in flight, so that its own
    // final write can claim the next job rather than leave it to one more round trip.
    if (!claimed) return false
    await this.#start(claimed)
    return true
  }
}
