/**
 * What a provider session writes when it parks or persists live (embedding-rules.9-10): its
 * events, the engine state and scratch files, and the deferred executions that may outlive the
 * runner. Undefined while anything else is open: such a session cannot be rebuilt elsewhere now.
 */
import type { SessionCore } from '../../sessions/session-core.ts'
import type { RunnerSnapshot, StoredExecution } from '../../sessions/session-store.ts'
import type { ScratchFs } from './scratch-fs.ts'
import type { EngineState } from './turn-state.ts'

/** stream_delta rows are superseded by the messages and count zero rows (engine-facts §4). */
const SUPERSEDED_ON_SNAPSHOT: ReadonlySet<'stream_delta'> = new Set(['stream_delta'])

export function providerSnapshot(core: SessionCore, state: EngineState, fs: ScratchFs): RunnerSnapshot | undefined {
  const turn = state.turn
  // Only deferred calls can outlive this runner; anything else open means "not now".
  if (turn && turn.calls.some((c) => !c.output && c.kind !== 'deferred')) return undefined
  const executions: StoredExecution[] = turn
    ? turn.calls.filter((c) => !c.output && c.kind === 'deferred').map((c) => ({ executionId: c.executionId, toolName: c.toolName, expiresAt: c.expiresAt ?? 0 }))
    : []
  return {
    events: core.log.events(SUPERSEDED_ON_SNAPSHOT),
    seq: core.log.lastSeq,
    createdAt: core.info().createdAt,
    engineState: structuredClone(state),
    files: fs.toJSON(),
    executions,
  }
}
