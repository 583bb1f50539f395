/**
 * Session events (events.*). Every event carries `seq` (from 1, monotonic per session) and `ts`
 * (epoch ms). Bodies are discriminated on `type`; unknown future types must still pass through.
 */
import type { PermissionMode } from './capabilities.ts'
import type { ApiMessage, MessageAttachment, Usage } from './messages.ts'
import type { SessionStatus } from './session.ts'

export interface ModelOption {
  value: string
  displayName?: string
  description?: string
  primary?: boolean
}

export interface PermissionRequest {
  requestId: string
  toolName: string
  input: unknown
  title?: string
  toolUseId?: string
  [key: string]: unknown
}

export type ResolvedBy = 'client' | 'rest' | 'timeout' | 'policy'

export interface MessageOrigin {
  kind: 'peer'
  sessionId: string
  name?: string
  engine?: string
  hops?: number
}

export type SessionClosedReason = 'client' | 'server' | 'error'

export type SessionEventBody =
  | { type: 'system_init'; sdkSessionId?: string; model?: string; cwd?: string; apiKeySource: string; tools: string[]; skills?: string[]; slashCommands?: string[]; permissionMode: PermissionMode; cliVersion?: string; mcpServers?: unknown[] }
  | { type: 'status_changed'; status: SessionStatus; detail?: string }
  | { type: 'capabilities'; models: ModelOption[]; slashCommands?: unknown[]; defaultModel?: string }
  | { type: 'model_changed'; model?: string }
  | { type: 'permission_mode_changed'; mode: PermissionMode }
  | { type: 'context_usage'; usage: unknown }
  | { type: 'rate_limit'; info: unknown }
  | { type: 'plan_info'; subscriptionType: string }
  | { type: 'assistant_message'; message: ApiMessage; parentToolUseId?: string | null; replay?: boolean }
  | { type: 'user_message'; message: ApiMessage; parentToolUseId?: string | null; replay?: boolean; synthetic?: boolean; attachments?: MessageAttachment[]; origin?: MessageOrigin }
  | { type: 'stream_delta'; event: unknown; parentToolUseId?: string | null }
  | { type: 'turn_result'; subtype: string; isError: boolean; durationMs: number; numTurns: number; totalCostUsd: number; result?: string; errors?: string[]; usage?: Usage }
  | { type: 'permission_requested'; request: PermissionRequest }
  | { type: 'permission_resolved'; requestId: string; behavior: 'allow' | 'deny'; resolvedBy: ResolvedBy }
  | { type: 'execution_dispatched'; executionId: string; toolName: string; backend?: string; deferred?: boolean; expiresAt?: number }
  | { type: 'execution_result'; executionId: string; output?: unknown }
  | { type: 'execution_failed'; executionId: string; reason: string; error: string }
  | { type: 'skills'; skills: unknown[] }
  | { type: 'tool_titles'; titles: Record<string, string> }
  | { type: 'file_delivered'; path: string; bytes?: number; mediaType?: string }
  | { type: 'file_produced'; fileId: string; path: string; mediaType?: string }
  | { type: 'sdk_event'; event: unknown }
  | { type: 'conversation_reset'; sdkSessionId?: string }
  | { type: 'session_error'; message: string }
  | { type: 'session_closed'; reason: SessionClosedReason }

export type SessionEventType = SessionEventBody['type']
export type EventEnvelope = { seq: number; ts: number }
export type SessionEvent = SessionEventBody & EventEnvelope
export type EventOf<T extends SessionEventType> = Extract<SessionEventBody, { type: T }> & EventEnvelope

function countAssistantRows(message: ApiMessage): number {
  const { content } = message
  if (typeof content === 'string') return content.trim() ? 1 : 0
  let rows = 0
  for (const block of content) {
    if (block.type === 'text' || block.type === 'thinking' || block.type === 'tool_use') rows++
  }
  return rows
}

/**
 * The row-count rule (events.22, versioning.4): how many transcript rows an event is worth.
 * It drives `activityCount`, an unread cursor measured in rows, never turns or seqs.
 */
export function transcriptActivity(event: SessionEventBody): number {
  if ('parentToolUseId' in event && event.parentToolUseId) return 0
  switch (event.type) {
    case 'assistant_message':
      return countAssistantRows(event.message)
    case 'user_message':
      return event.synthetic ? 0 : 1
    case 'turn_result':
    case 'file_delivered':
    case 'session_error':
      return 1
    default:
      return 0
  }
}

const CONTENT_TYPES: ReadonlySet<string> = new Set([
  'user_message', 'assistant_message', 'stream_delta', 'turn_result', 'execution_dispatched',
  'execution_result', 'execution_failed', 'file_delivered', 'session_error', 'session_closed', 'conversation_reset',
])

/**
 * Transcript content, the part of the log a `conversation_reset` hides on re-attach (events.20).
 * State-bearing events (status, model, mode, capabilities) are not content and always replay;
 * unknown future types are not content either.
 */
export function isTranscriptContent(event: { type: string }): boolean {
  return CONTENT_TYPES.has(event.type)
}

/** Events a client replay may coalesce last-write-wins; never `capabilities`, `model_changed`, `system_init`. */
export function replayCoalesceKey(event: SessionEventBody): string | undefined {
  if (event.type === 'context_usage' || event.type === 'status_changed' || event.type === 'plan_info') return event.type
  return undefined
}
