/** The queue bench's no-op job session: shared by queue-child.ts and queue-trace.ts. */
import { randomUUID } from 'node:crypto'
import { SessionCore } from '../gateway/sessions/session-core.ts'
import type { Runner } from '../gateway/sessions/runner.ts'

/** A session whose one turn ends as soon as it starts: the job's own work is nothing, as graphile-worker's no-op task. */
export function noopSession(): Runner {
  const id = randomUUID()
  const core = new SessionCore({ id, profile: 'bench', engine: 'provider', permissionMode: 'default', canBypassPermissions: false, createdAt: Date.now() } as ConstructorParameters<typeof SessionCore>[0])
  core.emit({ type: 'system_init', sdkSessionId: `sdk-${id}`, model: 'noop', apiKeySource: 'none', tools: [], permissionMode: core.permissionMode })
  core.setStatus('running')
  setImmediate(() => {
    core.emit({ type: 'turn_result', subtype: 'success', isError: false, durationMs: 0, numTurns: 1, totalCostUsd: 0 })
    core.setStatus('idle')
  })
  const closed = () => { if (!core.closed) { core.emit({ type: 'session_closed', reason: 'server' }); core.setStatus('closed') } }
  return {
    id, start: async () => {}, info: () => core.info(), subscribe: (listener, after) => core.subscribe(listener, after),
    sendMessage: () => {}, setTitle: () => {}, resolvePermission: () => false, interrupt: () => {}, setPermissionMode: () => {},
    setModel: () => {}, fail: closed, close: closed,
  }
}
