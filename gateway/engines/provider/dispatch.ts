/**
 * A leg's tool calls handed over (engine-facts §4): local tools run here, deferred ones are
 * announced for an answer from outside, bridged ones go to the attached client under a deadline.
 * Deferred ids are claimed first: they are looked up across every session (`POST
 * /executions/:id/result`, parking, the queue's `parkedExecutionId`).
 */
import type { SessionEventBody } from '../../protocol/index.ts'
import type { EngineRunnerContext } from '../../sessions/runner.ts'
import type { ScratchFs } from './scratch-fs.ts'
import type { ToolOutput, ToolSpec } from './tools.ts'
import { asObject, type CallRecord, type TurnState } from './turn-state.ts'

export interface DispatchHost {
  ctx: EngineRunnerContext
  tools: Map<string, ToolSpec>
  fs: ScratchFs
  emit(body: SessionEventBody): void
  /** The abort of the local tool running now, for an interrupt; undefined once it ended. */
  running(controller: AbortController | undefined): void
  /** An answer for one call; `resume` false while the batch is still being handed over. */
  settle(call: CallRecord, output: ToolOutput, resume?: boolean): void
  /** Bridged calls time out here; a client that never answers must not hold the turn forever. */
  timers: Map<string, ReturnType<typeof setTimeout>>
  /** The turn is still this runner's current one (no interrupt, close or park since). */
  current(): boolean
}

/** False: the turn moved on (an interrupt or a close) while a claim was answered. */
export async function claimDeferredIds(host: DispatchHost, turn: TurnState): Promise<boolean> {
  const claim = host.ctx.claimExecutionId
  const deferred = turn.calls.filter((c) => c.kind === 'deferred')
  if (!claim || !deferred.length) return true
  for (const call of deferred) {
    const id = await claim(call.toolCallId)
    if (!host.current() || call.output) return false
    call.executionId = id
  }
  return true
}

export async function dispatchCalls(host: DispatchHost, turn: TurnState): Promise<void> {
  const now = Date.now()
  for (const call of turn.calls) {
    const tool = host.tools.get(call.toolName)
    if (!tool) {
      call.output = { ok: false, error: `unknown tool: ${call.toolName}` }
      continue
    }
    if (tool.kind === 'local') {
      const controller = new AbortController()
      host.running(controller)
      call.output = await tool.run(asObject(call.input), { fs: host.fs, emit: (body) => host.emit(body), signal: controller.signal, peers: host.ctx.peers, hops: turn.hops ?? 0 })
        .catch((err: unknown) => ({ ok: false as const, error: (err as Error).message }))
      host.running(undefined)
      continue
    }
    call.expiresAt = now + tool.expiresInMs
    // Protocol 7's backend names: a deferred call runs `remote`, a bridged one in the client (`browser`).
    if (tool.kind === 'deferred') {
      host.emit({ type: 'execution_dispatched', executionId: call.executionId, toolName: call.toolName, backend: 'remote', deferred: true, expiresAt: call.expiresAt })
      continue
    }
    host.emit({ type: 'execution_dispatched', executionId: call.executionId, toolName: call.toolName, backend: 'browser', expiresAt: call.expiresAt })
    const sent = host.ctx.bridge.request?.({ executionId: call.executionId, toolName: call.toolName, input: call.input, vfsSeed: host.fs.toJSON(), expiresAt: call.expiresAt })
    if (!sent) {
      host.settle(call, { ok: false, error: 'no client is attached to run this tool', reason: 'no_client' }, false)
      continue
    }
    host.timers.set(call.executionId, setTimeout(() => {
      host.timers.delete(call.executionId)
      if (call.output || !host.current()) return
      host.ctx.bridge.cancel?.(call.executionId, 'timeout')
      host.settle(call, { ok: false, error: `the client did not answer '${call.toolName}' within ${tool.expiresInMs} ms`, reason: 'timeout' })
    }, tool.expiresInMs))
  }
}
