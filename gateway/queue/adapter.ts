/**
 * The QueueAdapter contract (queue-options: adapter; jobs rules): storage for jobs and the daily
 * token counters. `claimNext` is atomic across workers and skips jobs whose `nextRunAt` is in the
 * future; daily counters are keyed by UTC `YYYY-MM-DD`.
 */
import type { CreateJobRequest, JobEvent, JobEventBody, JobInfo } from '../protocol/index.ts'

export interface JobRecord {
  info: JobInfo
  request: CreateJobRequest
}

/** A job event a write records with itself; the adapter adds `jobId`, `job` and `seq`. */
export interface EventDraft {
  body: JobEventBody
  ts: number
  /** Where the event is to be POSTed (none: recorded and numbered, not delivered). */
  webhook?: { url: string; headers?: Record<string, string> }
}

/** A job as a write left it, with the event the write recorded (an adapter that `recordsEvents`, given a draft). */
export interface WrittenRecord extends JobRecord {
  event?: JobEvent
  /** The event its start step recorded, numbered before `event` (see `StartStep`). */
  startEvent?: JobEvent
}

/**
 * An attempt's start, written by its end's write (an adapter that `recordsStartWithEnd`): an
 * attempt whose session ended before its start was written records both in one write, the start
 * merged first and its event (job_started) numbered before the end's, both under the end's fence.
 */
export interface StartStep {
  patch: Partial<JobInfo>
  event?: EventDraft
}

/** A recorded event claimed for delivery by this process (see `claimOutbox`). */
export interface OutboxEntry {
  jobId: string
  seq: number
  event: JobEvent
  target: { url: string; headers?: Record<string, string> }
  /** The claim's number: `finishOutbox` settles only while no later claim took the entry. */
  claim: number
  /** Failed attempts before this one. */
  attempts: number
}

export interface QueueAdapter {
  add(record: JobRecord): Promise<void>
  /**
   * `add` under an idempotency key (POST /jobs `Idempotency-Key`): when a job was added under
   * `key` before, nothing is added and that job is the answer; otherwise undefined (added). An
   * adapter without it adds every submission (a retried POST may then add a second job).
   */
  addOnce?(record: JobRecord, key: string): Promise<JobRecord | undefined>
  /**
   * Atomically moves the oldest queued job whose nextRunAt is unset or ≤ now to `running`.
   * A shared adapter also refuses while `limits.maxRunning` jobs run anywhere in the fleet.
   */
  claimNext(now: number, limits?: ClaimLimits): Promise<JobRecord | undefined>
  /**
   * Up to `count` claims at once, as `count` calls of `claimNext(now, limits)` in a row would make
   * them (oldest first, never past `limits.maxRunning` fleet-wide), in one step (one round trip for
   * a database). The queue uses it when present to fill several free slots.
   */
  claimBatch?(now: number, limits: ClaimLimits, count: number): Promise<JobRecord[]>
  get(id: string): Promise<JobRecord | undefined>
  /** Oldest first. */
  list(): Promise<JobRecord[]>
  /**
   * Shallow merge into `info`; a key set to undefined clears the field. With `fence` (a shared
   * adapter), only while this process still holds the job's claim for `fence.attempt` (job-status fencing);
   * otherwise nothing changes and the answer is undefined. A single-process adapter
   * holds every claim and may ignore it. With a `QueuedFence` (every adapter), only while the job
   * is still `queued`: a cancel never lands on a job a claim moved on meanwhile (job-status.12).
   * With a `HeldFence` (every adapter), only while the job is running or parked in that attempt.
   */
  update(id: string, patch: Partial<JobInfo>, fence?: Fence | QueuedFence | HeldFence, event?: EventDraft, start?: StartStep): Promise<WrittenRecord | undefined>
  /** `update` and `completeAndClaim` take a `StartStep` (and then write it, in the same write). */
  readonly recordsStartWithEnd?: boolean
  /** Deletes terminal jobs finished at or before `now - olderThanMs`; returns how many. */
  prune(olderThanMs: number, now: number): Promise<number>
  addDailyTokens(dayKey: string, tokens: number): Promise<number>
  dailyTokens(dayKey: string): Promise<number>
  /** Another worker added or released work. */
  onWork?(listener: () => void): void

  // Shared adapters (several gateway processes on one store) implement the members below; the
  // queue uses them when present, so a single-process adapter needs none of them.

  /**
   * A transactional outbox: a write given an EventDraft records the event in
   * its own transaction, numbered per job (`seq`), and queues it for the job's webhook; a resume
   * records its job_resumed (`resumeAndAdopt` answers it). The queue then delivers webhooks only
   * from `claimOutbox`.
   */
  readonly recordsEvents?: boolean
  /**
   * Up to `limit` recorded events due for delivery, each the oldest undelivered one of its job
   * (a job's next event is never handed out before the previous one is delivered or given up),
   * now claimed by this process for `claimMs`: a claimant that dies leaves them to another after it.
   */
  claimOutbox?(limit: number, claimMs: number): Promise<OutboxEntry[]>
  /** The entry was delivered or given up (no `retryAfterMs`: it leaves), or failed and is due again after `retryAfterMs`. */
  finishOutbox?(entry: OutboxEntry, retryAfterMs?: number): Promise<void>

  /**
   * The fleet's job event feed (job-status.2: every process's `/queue/ws` streams every job's
   * events): `shareEvent` relays an event this process emitted to the other processes, sent after
   * the write that made it; `onSharedEvent` hears the ones the others relayed (never this
   * process's own), in the order heard.
   */
  shareEvent?(event: JobEvent): void
  onSharedEvent?(listener: (event: JobEvent) => void): () => void

  /**
   * Moves a parked job back to `running` for this process, only while fewer than
   * `limits.maxRunning` jobs run fleet-wide (job-status.6: a resume never exceeds maxConcurrency).
   * `full`: ask again when work is released. `taken`: the job is no longer parked (another
   * process resumed it first, or it ended): this process must not rebuild its session.
   */
  resumeParked?(id: string, limits: ClaimLimits): Promise<'resumed' | 'full' | 'taken'>
  /**
   * `resumeParked` and the adoption of the job's park in ONE transaction: the park row
   * leaves the session store sharing this adapter's database (`databaseId`), the job moves to
   * `running` for this process, its history row is written and `settledExecutionId` is recorded
   * settled for the fleet, all together or not at all. `taken`: the job is not parked, or is not
   * the job of `sessionId`. `resumed` with no park: the job is now running here but its park was
   * gone, and the caller fails the attempt.
   */
  resumeAndAdopt?(id: string, sessionId: string, limits: ClaimLimits, settledExecutionId?: string): Promise<ResumeAndAdoptOutcome>
  /**
   * Of these attempts, the ids whose claim this process still holds (lease owner, attempt, and
   * running or parked): the others were reclaimed elsewhere after this process's lease lapsed.
   */
  claimsHeld?(claims: Array<{ id: string; attempt: number }>): Promise<Set<string>>
  /**
   * Jobs parked at or before `parkedBefore` (their maxParkedDurationMs passed), wherever they were
   * parked: each one's park is deleted and the job is now held by this process (still `parked`),
   * which applies the retry rules to it exactly once.
   */
  takeOverdueParked?(parkedBefore: number): Promise<JobRecord[]>
  /**
   * False once this process's lease on the running job `id` may have lapsed (its last renewal,
   * or its claim, is more than the lease ago): events nothing writes are then not sent.
   */
  leaseHeld?(id: string): boolean
  /** Called after each lease renewal (every leaseMs / 3). */
  onHeartbeat?(listener: () => void): void
  /**
   * The claims each lease renewal renews, asked at every heartbeat: only attempts this
   * process is running, starting, parking, resuming or ending. A job whose run ended, or was never
   * started here, is not kept alive: its lease lapses and another process reclaims it (job-status.7).
   * Without it the heartbeat renews every running job this process holds a lease on.
   */
  renewOnly?(claims: () => Iterable<{ id: string; attempt: number }>): void
  /** The database this adapter keeps its jobs in (opaque); a store with the same id shares it. */
  readonly databaseId?: string
  /**
   * Running jobs whose claim lapsed (their worker stopped renewing it: it died); each is now
   * claimed by this process, which applies the retry rules to it exactly once.
   */
  reclaimExpired?(now: number): Promise<JobRecord[]>
  /**
   * A worker slot's job ended and the slot would claim again: `update(id, patch)` and then
   * `claimNext(now, limits)`, in one atomic step (one round trip for a database): the updated
   * job's info and the claimed job, each undefined as theirs would be.
   */
  completeAndClaim?(id: string, patch: Partial<JobInfo>, now: number, limits: ClaimLimits, fence?: Fence, event?: EventDraft, start?: StartStep): Promise<{ completed?: JobInfo; completedEvent?: JobEvent; startedEvent?: JobEvent; claimed?: JobRecord }>
  /** The job whose current session is `sessionId` (any status), wherever it runs or was parked. */
  findJobBySession?(sessionId: string): Promise<JobRecord | undefined>
}

/** `event`: the job_resumed the resume recorded (an adapter that `recordsEvents`). */
export type ResumeAndAdoptOutcome = { outcome: 'resumed'; park: unknown; event?: JobEvent } | { outcome: 'full' | 'taken' }

/** The attempt a write is for: it lands only while this process holds that attempt's claim. */
export interface Fence {
  attempt: number
}

/** A write for a job no process holds: it lands only while the job is still `queued`. */
export interface QueuedFence {
  queued: true
}

/**
 * A cancel of a job another process holds (job-status.12): it lands only while the job is still
 * running or parked in `held`'s attempt, whoever holds it. The holder's next fenced write then
 * finds the job terminal and writes nothing; its heartbeat stops the run.
 */
export interface HeldFence {
  held: number
}

export interface ClaimLimits {
  maxRunning: number
}

/** The UTC day a timestamp falls in, as the daily counters are keyed. */
export function dayKeyOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

/** Milliseconds until the next UTC midnight. */
export function msUntilUtcRollover(ms: number): number {
  const d = new Date(ms)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1) - ms
}
