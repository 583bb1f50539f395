/**
 * A runner that emits events as fast as the gateway can take them, built on the real SessionCore
 * (event log, numbering, frames). Benchmarks of replay and fan-out use it so they measure the
 * gateway's own cost, not the speed of a model server or the AI SDK's stream parser.
 */
import type { SessionEventBody } from '../gateway/protocol/index.ts'
import type { EngineRunnerContext, Runner } from '../gateway/sessions/runner.ts'
import { SessionCore } from '../gateway/sessions/session-core.ts'

/** The i-th delta of a burst, as an engine hands it over; the raw live baseline builds the same. */
export function firehoseDelta(i: number): SessionEventBody {
  return { type: 'stream_delta', event: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `token-${i} ` } }, parentToolUseId: null, uuid: `delta-${i}` }
}

/** `user_message` text `burst:<n>` emits n `stream_delta` events then a turn result. */
export function createFirehoseRunner(ctx: EngineRunnerContext): Runner {
  const core = new SessionCore(ctx.config)
  let started: Promise<void> | undefined
  const runner: Runner = {
    id: ctx.config.id,
    start: () => (started ??= Promise.resolve().then(() => {
      core.emit({ type: 'system_init', sdkSessionId: `sdk-${ctx.config.id}`, model: 'firehose', apiKeySource: 'none', tools: [], permissionMode: core.permissionMode })
      core.setStatus('idle')
    })),
    info: () => core.info(),
    subscribe: (listener, afterSeq) => core.subscribe(listener, afterSeq),
    sendMessage(text) {
      if (core.closed) throw new Error('session is closed')
      core.emit({ type: 'user_message', message: { role: 'user', content: text } })
      const n = Number(/^burst:(\d+)$/.exec(text)?.[1] ?? 0)
      core.setStatus('running')
      setImmediate(() => {
        for (let i = 0; i < n; i++) core.emit(firehoseDelta(i))
        core.emit({ type: 'turn_result', subtype: 'success', isError: false, durationMs: 0, numTurns: 1, totalCostUsd: 0 })
        core.setStatus('idle')
      })
    },
    setTitle: (title) => core.setTitle(title),
    resolvePermission: () => false,
    interrupt: () => {},
    setPermissionMode: (mode) => { core.emit({ type: 'permission_mode_changed', mode }) },
    setModel: (model) => { core.emit({ type: 'model_changed', model }) },
    fail: (message) => { core.emit({ type: 'session_error', message }); core.setStatus('failed') },
    close(reason = 'client') {
      if (core.closed) return
      core.emit({ type: 'session_closed', reason })
      core.setStatus('closed')
    },
  }
  return runner
}
