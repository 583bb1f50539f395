/**
 * What ParkingManager is configured with and what it needs from its host (the factory, the
 * registry and the job queue), split out of parking.ts so the manager file holds park, wake and
 * adoption only. parking.ts re-exports all of it, so every import path stays the same.
 */
import type { SessionRegistry } from './registry.ts'
import type { Runner } from './runner.ts'
import type { SessionStore, StoredSession } from './session-store.ts'

export interface ParkingOptions {
  store?: SessionStore
  /** Grace after the last client detaches before a session resting on deferred executions parks. */
  parkDelayMs?: number
  /** At boot, a deadline earlier than now + this is pushed out to it. */
  expiredGraceMs?: number
  /** Write the runner snapshot through after every turn (plaintext transcript; off by default). */
  persistLive?: boolean
  onError?: (err: unknown, where: 'park' | 'resume' | 'persist' | 'discard') => void
  /**
   * A shared store: every this often, lapsed deadlines of parks stored by
   * any process are fired here, so they never wait for their parker (maybe dead). The first
   * sweep comes `expiredGraceMs` after start, as deadlines re-armed at boot do.
   */
  deadlineSweepMs?: number
}

export const PARKING_DEFAULTS = { parkDelayMs: 2000, expiredGraceMs: 60_000, deadlineSweepMs: 1000 } as const

export interface ParkingDeps {
  registry: SessionRegistry
  attachedCount(id: string): number
  /** Builds, registers, watches and starts a runner from a stored record (the factory). */
  rebuild(record: StoredSession): Promise<Runner>
  /** The queue may veto a park, and must hand a resumed job its slot back. */
  onParking?(sessionId: string, executionId: string): Promise<boolean>
  /**
   * The park is in the store: only now may the queue record its job as parked, so a process that
   * dies in between leaves a running job whose claim lapses (retried), never a parked job with no
   * park to wake it (job-status.5, job-status.7).
   */
  onParked?(sessionId: string, executionId: string): Promise<void>
  /** The park could not be stored (the store failed): a job's attempt fails (retry rules apply). */
  onParkFailed?(sessionId: string, error: string): void
  /**
   * Resolves when the session may resume; false: another process took its job first (shared
   * store). An object: the queue resumed the job and adopted its park in one transaction
   * and hands over the adopted record (undefined: the park was gone; the attempt fails).
   * `jobId` is the park's own `meta.jobId`; `settledExecutionId` the result that woke it.
   */
  beforeResume?(sessionId: string, hint: { jobId?: string; settledExecutionId?: string }): Promise<boolean | void | { park: unknown }>
  /** A parked session could not be rebuilt here (its job's attempt fails). */
  onResumeFailed?(sessionId: string, error: string): void
  onResumed?(sessionId: string, runner: Runner): void
  onError(err: unknown, where: string): void
}

export interface SubmitOutcome {
  applied: boolean
  sessionId: string
}
