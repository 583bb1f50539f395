/**
 * The Agent SDK's messages mapped onto the spec's events (engine-facts §1): content becomes
 * messages, stream deltas and rate limits; `system_init`, results and conversation resets go to
 * the runner, which keeps the turn's state; anything unmodeled passes as an `sdk_event` (events.19).
 */
import { randomUUID } from 'node:crypto'
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk'
import type { RawStreamEvent, SessionEventBody } from '../../protocol/index.ts'
import type { ProducedFiles } from './produced.ts'
import { uuidOf } from './sdk-shapes.ts'

export interface MessageSink {
  emit(body: SessionEventBody): void
  produced: ProducedFiles
  onInit(init: Record<string, unknown>): void
  onResult(result: Record<string, unknown>): void
  /** `byClear`: /clear (or its aliases) reset it, so its own result follows; else a turn's (plan-mode exit). */
  onReset(conversationId: string, byClear: boolean): void
}

export function dispatchMessage(m: SDKMessage, sink: MessageSink): void {
  const raw = m as Record<string, unknown> & { type: string; subtype?: string }
  const parent = (raw.parent_tool_use_id as string | null | undefined) ?? null
  switch (raw.type) {
    case 'system':
      // Everything else, `status` included, passes through untouched (events.19).
      if (raw.subtype === 'init') return sink.onInit(raw)
      return sink.emit({ type: 'sdk_event', payload: raw })
    case 'assistant':
      sink.produced.noteToolUses((raw.message as { content?: unknown } | undefined)?.content)
      return sink.emit({ type: 'assistant_message', message: raw.message as never, parentToolUseId: parent, ...uuidOf(raw) })
    case 'user': {
      sink.emit({ type: 'user_message', message: raw.message as never, parentToolUseId: parent, synthetic: true, ...uuidOf(raw) })
      for (const file of sink.produced.collect((raw.message as { content?: unknown } | undefined)?.content)) sink.emit({ type: 'file_produced', ...file })
      return
    }
    case 'stream_event':
      // The SDK's raw Messages-API event passes through untouched: it already is protocol 7's shape (events.11).
      return sink.emit({ type: 'stream_delta', event: raw.event as RawStreamEvent, parentToolUseId: parent, uuid: String(raw.uuid ?? randomUUID()) })
    case 'rate_limit_event':
      return sink.emit({ type: 'rate_limit', info: raw.rate_limit_info })
    case 'result':
      return sink.onResult(raw)
    case 'conversation_reset':
      // /clear (clear_context, or typed as a message as protocol 7's client does), and its aliases (events.20).
      return sink.onReset(String(raw.new_conversation_id ?? raw.session_id), raw.trigger === undefined || raw.trigger === 'clear')
    default:
      return sink.emit({ type: 'sdk_event', payload: raw })
  }
}
