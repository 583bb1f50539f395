/**
 * One attached client of a session (websocket-framing.*): `attached` first, then the
 * replay of events after `afterSeq`, then live events (session-feed.ts); client frames are
 * commands. Failures are `protocol_error` frames and the socket stays open; the gateway closes it
 * only for a slow reader (send-budget.ts), a revoked principal, or a shutdown.
 */
import type { Duplex } from 'node:stream'
import { ENGINE_CAPABILITIES, PROTOCOL_VERSION, type SessionCommand } from '../../protocol/index.ts'
import type { ToolResultViews } from '../../sessions/tool-result-views.ts'
import type { Runner } from '../../sessions/runner.ts'
import type { GatewayContext } from '../context.ts'
import { parseCommand } from './command-parser.ts'
import type { SendBudget } from './send-budget.ts'
import { corkedBatch, feedSession, NO_VIEWS } from './session-feed.ts'

export function attachClient(ctx: GatewayContext, budget: SendBudget, socket: Duplex, runner: Runner, afterSeq: number, views: ToolResultViews = NO_VIEWS): void {
  const { ws } = budget
  const info = ctx.registry.info(runner.id) ?? runner.info()
  const batch = corkedBatch(socket)
  batch()
  ws.send(JSON.stringify({ type: 'attached', protocolVersion: PROTOCOL_VERSION, session: info, replayingFrom: afterSeq }))
  feedSession(ctx, budget, batch, runner, afterSeq, views)
  ws.on('message', (data, isBinary) => {
    const text = isBinary ? '' : data.toString()
    const parsed = parseCommand(text)
    if (!parsed.ok) return sendProtocolError(budget, parsed.message)
    try {
      const problem = dispatch(ctx, runner, parsed.command)
      if (problem) sendProtocolError(budget, problem)
    } catch (err) {
      sendProtocolError(budget, err instanceof Error && err.message ? err.message : 'command failed')
    }
  })
}

/** A protocol_error answers the client's own frame: bounded by its budget like every frame (send-budget.ts). */
function sendProtocolError(budget: SendBudget, message: string): void {
  budget.sendControl(JSON.stringify({ type: 'protocol_error', message }))
}

/** Runs one command; returns a protocol_error message for a refusal, undefined on success. */
function dispatch(ctx: GatewayContext, runner: Runner, command: SessionCommand): string | undefined {
  const info = ctx.registry.info(runner.id) ?? runner.info()
  const record = ENGINE_CAPABILITIES[info.engine]
  switch (command.type) {
    case 'user_message':
      if (command.attachmentIds?.length) {
        const resolved = ctx.attachments.resolve(runner.id, command.attachmentIds)
        if (!resolved.ok) return `unknown attachment(s): ${resolved.missing.join(', ')}`
        runner.sendMessage(command.text, resolved.attachments)
        return undefined
      }
      runner.sendMessage(command.text)
      return undefined
    case 'permission_decision': {
      const decision = command.behavior === 'allow'
        ? { behavior: 'allow' as const, updatedInput: command.updatedInput }
        : { behavior: 'deny' as const, message: command.message, interrupt: command.interrupt }
      if (!runner.resolvePermission(command.requestId, decision, 'client')) {
        return `permission request not found (already resolved or expired): ${command.requestId}`
      }
      return undefined
    }
    case 'interrupt':
      runner.interrupt()
      return undefined
    case 'set_permission_mode':
      if (!(record.permissionModes as readonly string[]).includes(command.mode)) {
        return `permission mode '${command.mode}' is not supported by engine ${info.engine}`
      }
      if (command.mode === 'bypassPermissions' && ctx.options.disableBypassPermissions) {
        return 'bypassPermissions is disabled on this server (disableBypassPermissions)'
      }
      if (command.mode === 'bypassPermissions' && !info.canBypassPermissions) {
        return 'this session was not created with allowDangerouslySkipPermissions'
      }
      runner.setPermissionMode(command.mode)
      return undefined
    case 'set_model':
      runner.setModel(command.model)
      return undefined
    case 'clear_context':
      if (!record.clearContext || !runner.clearContext) return `clear_context is not supported by engine ${info.engine}`
      runner.clearContext()
      return undefined
    case 'close':
      runner.close('client')
      return undefined
    case 'tool_call_result':
      // Unknown or late executions are ignored: the call may already have timed out or been canceled.
      // The model receives the value, never the {type, value} wrapper (protocol 7; tool-output.ts).
      runner.resolveToolCall?.(command.executionId, { ok: true, value: command.output.value, output: command.output, ...(command.logs ? { logs: command.logs } : {}) })
      return undefined
    case 'tool_call_error':
      // Fed back as tool output the way a failed deferred result is: `<reason>: <error>` (events.14);
      // execution_failed carries the bare error, as protocol 7's does.
      runner.resolveToolCall?.(command.executionId, {
        ok: false, reason: command.reason ?? 'client_error', error: command.error,
        ...(command.reason ? { modelText: `${command.reason}: ${command.error}` } : {}),
        ...(command.logs ? { logs: command.logs } : {}),
      })
      return undefined
    default: {
      const never: never = command
      return `unknown command: ${(never as { type: string }).type}`
    }
  }
}
