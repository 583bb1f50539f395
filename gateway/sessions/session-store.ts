/**
 * The session store seam (parking, session-stores): what a parked or persisted-live provider
 * session leaves behind so a later runner, possibly in another process, can rebuild it under its
 * own id with the same transcript and seq numbering; and, through the same `live` records, the
 * dormant record of a CLI session, which names the engine's conversation instead of holding a
 * transcript (`RunnerSnapshot.resumeId`). Records are plain JSON: never functions,
 * never environment values or credentials (those are re-derived by the factory on every build).
 */
import type { SessionEvent, SessionInfo } from '../protocol/index.ts'
import type { RunnerConfig } from './runner.ts'

/** A deferred execution the parked turn is waiting on. */
export interface StoredExecution {
  executionId: string
  toolName: string
  /** Epoch ms; the watchdog fails the execution (as tool output) at this time. */
  expiresAt: number
}

/** What a runner hands over when it is parked or persisted (`Runner.snapshot()`). */
export interface RunnerSnapshot {
  /** Event log as of the snapshot; seq numbering continues from `seq` after a rebuild. */
  events: SessionEvent[]
  seq: number
  createdAt: number
  /** Engine-private state (model history, dispatched calls); opaque to the server. */
  engineState: unknown
  /** Scratch filesystem, path → base64 bytes. */
  files: Record<string, string>
  /** Deferred executions still open (empty for a live record). */
  executions: StoredExecution[]
  /**
   * A CLI engine's dormant record (embedding-rules.14): the conversation lives in the engine's own
   * store, and this is the id to resume it from (the Agent SDK session id, the codex thread id).
   * `events` is then empty: a rebuild resumes the engine, which replays the history itself.
   */
  resumeId?: string
}

export interface StoredSession {
  /** `park`: resting on deferred executions, consumed on wake. `live`: persistLive write-through, refreshed in place. */
  kind: 'park' | 'live'
  id: string
  /** The runner config as built at create (JSON only; `buildRunnerConfig` runs again on rebuild). */
  config: RunnerConfig
  /** SessionInfo as of the snapshot, served by GET and the list while no runner exists. */
  info: SessionInfo
  snapshot: RunnerSnapshot
  savedAt: number
  /**
   * Live records only (write-ahead): every seq up to this may have been shown to a
   * client, so a rebuild numbers on after it, never reusing one. Absent: `snapshot.seq`. Stores
   * keep it like any other field of the record.
   */
  seqReserved?: number
  /**
   * Live records only: a turn started after this snapshot and had not ended when the record was
   * last written. A rebuild ends it as an error (`Runner.endLostTurn`): its process died with it.
   */
  turnRunning?: boolean
}

export interface SessionStore {
  /** Writes (or replaces) the record for `record.id`. */
  save(record: StoredSession): Promise<void>
  load(id: string): Promise<StoredSession | undefined>
  /** Idempotent. */
  delete(id: string): Promise<void>
  /** Every record, in no particular order. */
  list(): Promise<StoredSession[]>

  // A store shared by several gateway processes implements both members below, so an execution
  // result reaching any process wakes its parked session there, and in exactly one process.

  /**
   * Takes the record to rebuild from: a park is removed in the same atomic step (only one caller
   * ever gets it); a live record is returned and kept. Undefined: gone, or another process took it.
   * `settledExecutionId`: the result that woke the park, recorded settled (see `settle`) in the
   * same step, so a duplicate reaching another process meanwhile answers `applied: false`.
   */
  adopt?(id: string, settledExecutionId?: string): Promise<StoredSession | undefined>
  /** The session whose stored park has `executionId` among its open executions. */
  findByExecution?(executionId: string): Promise<string | undefined>
  /**
   * Shared settled record: `executionId`'s result was applied to `info.id`'s session.
   * Kept until `forgetSettled` for the session, or, for a job's session, until the job is pruned.
   */
  settle?(executionId: string, info: SessionInfo): Promise<void>
  /** The session a settled execution belonged to, with its info for the caller's visibility check. */
  findSettled?(executionId: string): Promise<SessionInfo | undefined>
  /** The session is gone: its settled ids go too (a job's stay until the job is pruned). */
  forgetSettled?(sessionId: string): Promise<void>
  /** Open executions of stored parks whose deadline is at or before `now` (any process may fire them). */
  expiredExecutions?(now: number, limit: number): Promise<string[]>
  /** The database a shared store keeps its records in (opaque); a queue adapter with the same id shares it. */
  readonly databaseId?: string
  /**
   * Fleet: from now on a record is written or deleted only while no other process holds its session
   * in the session directory; a refused write rejects with `SessionMovedError`. A process that
   * stalled past its lease can then never overwrite what the process that adopted the session
   * wrote (seqs reused, completed turns lost: event-and-command-envelope.1, embedding-rules.14).
   */
  fenceTo?(processId: string): void
}

/** A record write refused because another process of the fleet runs the session now. */
export class SessionMovedError extends Error {
  override name = 'SessionMovedError'
  readonly sessionId: string
  constructor(sessionId: string) {
    super(`session ${sessionId} is run by another process of the fleet now; this process's write was refused`)
    this.sessionId = sessionId
  }
}
