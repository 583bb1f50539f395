/**
 * A CLI engine's dormant record (embedding-rules.14): the Claude CLI and codex keep the
 * conversation in their own stores, so what survives a restart is only the id to resume it from,
 * the seq numbering and the session's row. Written through parking's `persistLive` path like a
 * provider snapshot, but with no events: the engine replays the history itself on resume.
 */
import type { SessionCore } from '../sessions/session-core.ts'
import type { RunnerSnapshot } from '../sessions/session-store.ts'

/** Undefined until the engine has named its conversation, and once the session is closed. */
export function dormantSnapshot(core: SessionCore, resumeId: string | undefined): RunnerSnapshot | undefined {
  if (core.closed || resumeId === undefined) return undefined
  return { events: [], seq: core.log.lastSeq, createdAt: core.info().createdAt, engineState: null, files: {}, executions: [], resumeId }
}
