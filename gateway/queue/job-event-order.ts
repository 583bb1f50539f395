/**
 * One process's view of every job's events across a fleet (job-status.2 on `/queue/ws`): its own
 * events and those other processes relay arrive on different paths, so a job submitted through
 * one process and run by another may be heard out of order. Delivered per job in order, once each:
 * `job_submitted` counts as number 0, a recorded event by its `seq`; an unnumbered event (progress
 * written nowhere) follows the numbered event heard before it. An event whose predecessors are
 * missing is held until they come, at most `gapWaitMs`, then the held ones go out in order (a
 * predecessor never heard: a process that started after the job did, or a lost notification).
 */
import type { JobEvent } from '../protocol/index.ts'

export const JOB_EVENT_ORDER_DEFAULTS = { gapWaitMs: 1000, maxJobs: 10_000 } as const

interface Held { key: number; n: number; event: JobEvent }
interface JobState { delivered: number; heard: number; held: Held[]; timer: ReturnType<typeof setTimeout> | undefined }

const TERMINAL = new Set(['completed', 'failed', 'canceled'])

export class JobEventOrder {
  readonly #deliver: (event: JobEvent) => void
  readonly #gapWaitMs: number
  readonly #maxJobs: number
  readonly #jobs = new Map<string, JobState>()
  /** Jobs whose job_completed went out, the latest maxJobs (a late relay comes within a stall of its process). */
  readonly #ended = new Set<string>()
  #arrivals = 0

  constructor(deliver: (event: JobEvent) => void, options: { gapWaitMs?: number; maxJobs?: number } = {}) {
    this.#deliver = deliver
    this.#gapWaitMs = options.gapWaitMs ?? JOB_EVENT_ORDER_DEFAULTS.gapWaitMs
    this.#maxJobs = options.maxJobs ?? JOB_EVENT_ORDER_DEFAULTS.maxJobs
  }

  push(event: JobEvent): void {
    // A relay that comes after the job's last event went out (its process stalled between its
    // write and its relay past gapWaitMs, and the events after it were sent without it): too late
    // to go in order, so it does not go at all, as when it never comes.
    if (this.#ended.has(event.jobId)) return
    const state = this.#state(event.jobId)
    const numbered = event.type === 'job_submitted' ? 0 : event.seq
    if (numbered !== undefined) {
      // Heard already (delivered or held): once each.
      if (numbered <= state.delivered || state.held.some((h) => h.key === numbered && Number.isInteger(h.key))) return
      state.heard = Math.max(state.heard, numbered)
    }
    // An unnumbered event sorts just after the numbered one heard before it.
    const key = numbered ?? state.heard + 0.5
    state.held.push({ key, n: this.#arrivals++, event })
    state.held.sort((a, b) => a.key - b.key || a.n - b.n)
    this.#flush(event.jobId, state, false)
  }

  /** Drops every held event and timer (the queue closed). */
  close(): void {
    for (const state of this.#jobs.values()) clearTimeout(state.timer)
    this.#jobs.clear()
    this.#ended.clear()
  }

  #state(jobId: string): JobState {
    let state = this.#jobs.get(jobId)
    if (!state) {
      this.#trim()
      state = { delivered: -1, heard: -1, held: [], timer: undefined }
      this.#jobs.set(jobId, state)
    }
    return state
  }

  #flush(jobId: string, state: JobState, force: boolean): void {
    while (state.held.length > 0) {
      const next = state.held[0]!
      const due = Number.isInteger(next.key) ? next.key <= state.delivered + 1 : Math.floor(next.key) <= state.delivered
      if (!due && !force) break
      state.held.shift()
      if (Number.isInteger(next.key)) state.delivered = Math.max(state.delivered, next.key)
      try { this.#deliver(next.event) } catch { /* a listener never breaks the order */ }
      if (TERMINAL.has(next.event.job.status) && next.event.type === 'job_completed') {
        // Its last event: the job is remembered as ended, or a late relay of an earlier event
        // would start it afresh and go out after this one.
        clearTimeout(state.timer)
        this.#jobs.delete(jobId)
        this.#ended.add(jobId)
        if (this.#ended.size > this.#maxJobs) this.#ended.delete(this.#ended.values().next().value!)
        return
      }
    }
    clearTimeout(state.timer)
    state.timer = state.held.length > 0
      ? setTimeout(() => this.#flush(jobId, state, true), this.#gapWaitMs)
      : undefined
    state.timer?.unref?.()
  }

  /** Bounded memory: the oldest jobs with nothing held are forgotten first. */
  #trim(): void {
    if (this.#jobs.size < this.#maxJobs) return
    for (const [id, state] of this.#jobs) {
      if (state.held.length === 0) this.#jobs.delete(id)
      if (this.#jobs.size < this.#maxJobs) return
    }
  }
}
