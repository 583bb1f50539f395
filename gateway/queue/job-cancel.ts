/**
 * `DELETE /jobs/:id` (job-status.12: any -> canceled) in whichever phase this process has the job:
 * queued in the store, claimed with its session still starting, running (a turn, or waiting on a
 * permission), parked, or ended with its final write (which may queue a retry) in flight. Each
 * phase ends here with a terminal write, so the answer is the canceled job, and the run stops.
 */
import type { JobInfo } from '../protocol/index.ts'
import type { JobRecord } from './adapter.ts'
import type { JobLifecycle } from './job-lifecycle.ts'
import type { JobRun } from './job-run.ts'
import type { QueueState } from './queue-state.ts'

/** Phases a cancel may see the job leave under it (a claim racing a queued job's cancel), each seen again. */
const MAX_ROUNDS = 4

const CANCELED = { error: 'canceled' } as const

export class JobCancel {
  readonly #q: QueueState
  readonly #lifecycle: JobLifecycle

  constructor(state: QueueState, lifecycle: JobLifecycle) {
    this.#q = state
    this.#lifecycle = lifecycle
  }

  async cancel(id: string): Promise<JobInfo | undefined> {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const done = await this.#once(id)
      if (done !== 'moved') return done
    }
    return (await this.#q.adapter.get(id))?.info
  }

  /** One look at the job's phase; 'moved' when a claim took it from queued meanwhile. */
  async #once(id: string): Promise<JobInfo | undefined | 'moved'> {
    const q = this.#q
    // An ended attempt's final write may queue a retry: the cancel applies to what it leaves.
    for (let ending = q.endWrites.get(id); ending; ending = q.endWrites.get(id)) await ending
    // From here to each branch's first await, nothing else runs: the phase seen is the phase.
    const run = q.running.get(id) ?? q.parked.get(id)
    if (run) return this.#cancelRun(run)
    const attempt = q.starting.get(id)
    if (attempt !== undefined) return this.#cancelStart(id, attempt)
    return this.#cancelQueued(id)
  }

  #heldHere(id: string): boolean {
    const q = this.#q
    return q.running.has(id) || q.parked.has(id) || q.starting.has(id) || q.endWrites.has(id)
  }

  async #cancelRun(run: JobRun): Promise<JobInfo | undefined | 'moved'> {
    // job_started is recorded before job_completed, as a park waits for it too.
    await run.started
    // It ended meanwhile (its own end, or a lost claim): look again.
    if (run.finalized) return 'moved'
    run.canceled = true
    run.killReason = 'canceled'
    await this.#lifecycle.finalize(run, 'canceled', CANCELED)
    return (await this.#q.adapter.get(run.id))?.info
  }

  /**
   * Claimed, its session still being started: the end is written now (fenced by the attempt this
   * process holds), and the start closes the session as soon as it exists (JobLifecycle.start).
   */
  async #cancelStart(id: string, attempt: number): Promise<JobInfo | undefined> {
    const q = this.#q
    q.canceledStarts.add(id)
    try {
      const record = await q.adapter.get(id)
      if (!record) return undefined
      const written = await q.adapter.update(id, { status: 'canceled', finishedAt: q.now(), ...CANCELED, nextRunAt: undefined }, { attempt }, q.draft({ type: 'job_completed' }, record.request))
      if (written) q.announce({ type: 'job_completed' }, written, undefined, record.request)
      return (written ?? await q.adapter.get(id))?.info
    } catch (err) {
      // Not written (the store failed): the start, if still to come, runs the job after all.
      q.canceledStarts.delete(id)
      throw err
    }
  }

  /**
   * Running or parked in another process of a fleet (or in a dead one whose lease has not lapsed
   * yet): ended in the store while it is still in the attempt read, so the holder's next fenced
   * write finds it terminal and writes nothing; its next heartbeat stops the run (JobFencing).
   */
  async #cancelElsewhere(record: JobRecord): Promise<JobInfo | undefined | 'moved'> {
    const q = this.#q
    const written = await q.adapter.update(record.info.id, { status: 'canceled', finishedAt: q.now(), ...CANCELED, nextRunAt: undefined }, { held: record.info.attempt }, q.draft({ type: 'job_completed' }, record.request))
    if (!written) return 'moved'
    q.announce({ type: 'job_completed' }, written, undefined, record.request)
    return written.info
  }

  /** Queued (or held by no run of this process): ended only while still queued, so a claim racing it is seen. */
  async #cancelQueued(id: string): Promise<JobInfo | undefined | 'moved'> {
    const q = this.#q
    const record = await q.adapter.get(id)
    // Running in the store, and here a claim unanswered, or the job held since the read was sent
    // (a claim answered meanwhile: its start began): look again, once the claims are answered.
    if (record?.info.status === 'running' && (q.claimsInFlight.size > 0 || this.#heldHere(id))) {
      await Promise.allSettled([...q.claimsInFlight])
      return 'moved'
    }
    if (record && (record.info.status === 'running' || record.info.status === 'parked')) return this.#cancelElsewhere(record)
    if (!record || record.info.status !== 'queued') return record?.info
    const written = await q.adapter.update(id, { status: 'canceled', finishedAt: q.now(), ...CANCELED, nextRunAt: undefined }, { queued: true }, q.draft({ type: 'job_completed' }, record.request))
    if (!written) return 'moved'
    q.announce({ type: 'job_completed' }, written, undefined, record.request)
    return written.info
  }
}
