/**
 * Session events (events.*). Every event carries `seq` (from 1, monotonic per session) and `ts`
 * (epoch ms). Bodies are discriminated on `type`; unknown future types must still pass through.
 */
import type { PermissionMode } from './capabilities.ts'
import type { ApiMessage, MessageAttachment, Usage } from './messages.ts'
import type { SessionStatus } from './session.ts'
import type { ToolExecutionOutput } from './tool-output.ts'
import type { RawStreamEvent } from './stream-events.ts'

export interface ModelOption {
  value: string
  /** Protocol 7 always sends one; engines without labels repeat `value`. */
  displayName?: string
  resolvedModel?: string
  description?: string
  primary?: boolean
}

/**
 * A pending approval (permission-request.1), in protocol 7's shape: `id` is what clients answer
 * with, over the WebSocket (`permission_decision.requestId`) and over REST
 * (`POST /sessions/:id/permissions/:requestId`). `requestId` repeats `id` for clients written
 * against this gateway before it matched protocol 7 (docs/compatibility.md); new clients read `id`.
 */
export interface PermissionRequest {
  id: string
  /** @deprecated the same value as `id`. */
  requestId: string
  toolName: string
  input: unknown
  toolUseId?: string
  /** The engine's full prompt sentence. */
  title?: string
  /** A short noun phrase for the action. */
  displayName?: string
  description?: string
  decisionReason?: string
  /** Set when a sub-agent raised the request. */
  agentId?: string
  /** Epoch ms at which the approval timeout denies it (absent: no timeout). */
  expiresAt?: number
  [key: string]: unknown
}

/** Who settled a permission request: protocol 7's values. A REST answer is a client answer. */
export const RESOLVED_BY = ['client', 'timeout', 'policy'] as const
export type ResolvedBy = (typeof RESOLVED_BY)[number]

export interface MessageOrigin {
  kind: 'peer'
  sessionId: string
  name?: string
  engine?: string
  hops?: number
}

export type SessionClosedReason = 'client' | 'server' | 'error'

export type ExecutionBackend = 'server' | 'browser' | 'managed' | 'remote'

export type SessionEventBody =
  | { type: 'system_init'; sdkSessionId?: string; model?: string; cwd?: string; apiKeySource: string; tools: string[]; skills?: string[]; slashCommands?: string[]; permissionMode: PermissionMode; claudeCodeVersion?: string; mcpServers?: Array<{ name: string; status: string }> }
  | { type: 'status_changed'; status: SessionStatus; detail?: string }
  | { type: 'capabilities'; models: ModelOption[]; commands?: unknown[]; defaultModel?: string }
  | { type: 'model_changed'; model?: string }
  | { type: 'permission_mode_changed'; mode: PermissionMode }
  | { type: 'context_usage'; usage: unknown }
  | { type: 'rate_limit'; info: unknown }
  | { type: 'plan_info'; subscriptionType: string }
  | { type: 'assistant_message'; message: ApiMessage; parentToolUseId?: string | null; replay?: boolean; uuid?: string }
  | { type: 'user_message'; message: ApiMessage; parentToolUseId?: string | null; replay?: boolean; uuid?: string; synthetic?: boolean; attachments?: MessageAttachment[]; origin?: MessageOrigin }
  /** The engine's raw stream event in the Anthropic Messages shape (stream-events.ts), on every engine. */
  | { type: 'stream_delta'; event: RawStreamEvent; parentToolUseId: string | null; uuid: string }
  | { type: 'turn_result'; subtype: string; isError: boolean; durationMs: number; numTurns: number; totalCostUsd: number; result?: string; errors?: string[]; usage?: Usage }
  | { type: 'permission_requested'; request: PermissionRequest }
  /** `message` is the deny message, when a deny carried one. */
  | { type: 'permission_resolved'; requestId: string; behavior: 'allow' | 'deny'; resolvedBy: ResolvedBy; message?: string }
  /** `backend` uses protocol 7's values: `server`, `browser` (bridged), `remote` (deferred). */
  | { type: 'execution_dispatched'; executionId: string; toolName: string; backend: ExecutionBackend; deferred?: boolean; expiresAt?: number }
  | { type: 'execution_result'; executionId: string; output: ToolExecutionOutput; logs?: string[] }
  /** `reason` is a machine-readable cause: `timeout`, `interrupted`, `no_client`, or the executor's own. */
  | { type: 'execution_failed'; executionId: string; reason: string; error: string; logs?: string[] }
  | { type: 'skills'; skills: unknown[] }
  | { type: 'tool_titles'; titles: Record<string, string> }
  | { type: 'file_delivered'; path: string; bytes?: number; mediaType?: string }
  | { type: 'file_produced'; fileId: string; path: string; mediaType?: string }
  /** An engine message with no first-class event, untouched (protocol 7 names the field `payload`). */
  | { type: 'sdk_event'; payload: { type: string; [key: string]: unknown } }
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
