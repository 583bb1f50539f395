/**
 * One attached client of a session (websocket-framing.*): `attached` first, then the
 * replay of events after `afterSeq`, then live events; client frames are commands. Failures are
 * `protocol_error` frames and the socket stays open; only the client closes it.
 */
import type { Duplex } from 'node:stream'
import type { WebSocket } from 'ws'
import { ENGINE_CAPABILITIES, PROTOCOL_VERSION, type SessionCommand } from '../../protocol/index.ts'
import { eventFrame, type FramedEvent } from '../../sessions/event-log.ts'
import { viewOf, type ToolResultViews } from '../../sessions/tool-result-views.ts'
import type { Runner } from '../../sessions/runner.ts'
import type { GatewayContext } from '../context.ts'
import { parseCommand } from './command-parser.ts'

export function attachClient(ctx: GatewayContext, ws: WebSocket, socket: Duplex, runner: Runner, afterSeq: number, views: ToolResultViews = NO_VIEWS): void {
  const info = ctx.registry.info(runner.id) ?? runner.info()
  const batch = corkedBatch(socket)
  batch()
  ws.send(JSON.stringify({ type: 'attached', protocolVersion: PROTOCOL_VERSION, session: info, replayingFrom: afterSeq }))
  // Frames waiting behind a write-ahead hold, in order; undefined on the fast path.
  let held: FramedEvent[] | undefined
  // A released hold lets its frame through even if nothing became durable (the write failed and was
  // reported): a client held forever is worse. Each later frame is checked again in turn.
  const flush = async (wait: Promise<void>) => {
    await wait
    while (held?.length && ws.readyState === ws.OPEN) {
      batch()
      ws.send(held.shift()!.frame())
      const next = held[0]
      if (!next) break
      const again = ctx.parking.hold(runner, next.event)
      if (again) await again
    }
    held = undefined
  }
  // The replay is delivered synchronously inside subscribe(); everything after it is live.
  let replaying = true
  const unsubscribe = runner.subscribe((event, stored) => {
    if (ws.readyState !== ws.OPEN) return
    const entry = viewed(stored, views, replaying)
    if (held) return void held.push(entry)
    const wait = ctx.parking.hold(runner, event)
    if (wait) {
      held = [entry]
      void flush(wait)
      return
    }
    batch()
    ws.send(entry.frame())
  }, afterSeq)
  replaying = false
  ws.on('message', (data, isBinary) => {
    const text = isBinary ? '' : data.toString()
    const parsed = parseCommand(text)
    if (!parsed.ok) return sendProtocolError(ws, parsed.message)
    try {
      const problem = dispatch(ctx, runner, parsed.command)
      if (problem) sendProtocolError(ws, problem)
    } catch (err) {
      sendProtocolError(ws, err instanceof Error && err.message ? err.message : 'command failed')
    }
  })
  ws.on('close', unsubscribe)
  ws.on('error', unsubscribe)
}

const NO_VIEWS: ToolResultViews = { truncateResults: false, imageRefs: false }

/** The entry itself unless the client's views change the event (the shared frame stays untouched). */
function viewed(entry: FramedEvent, views: ToolResultViews, replay: boolean): FramedEvent {
  if (views === NO_VIEWS) return entry
  const event = viewOf(entry.event, views, replay)
  return event === entry.event ? entry : { event, frame: () => eventFrame(event) }
}

/**
 * Frames sent in one tick (a replay, a burst of deltas) leave in one write instead of one
 * syscall each: the socket is corked on the first send of a tick and uncorked on the next.
 */
function corkedBatch(socket: Duplex): () => void {
  let corked = false
  const flush = () => {
    corked = false
    socket.uncork()
  }
  return () => {
    if (corked) return
    corked = true
    socket.cork()
    process.nextTick(flush)
  }
}

function sendProtocolError(ws: WebSocket, message: string): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'protocol_error', message }))
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
