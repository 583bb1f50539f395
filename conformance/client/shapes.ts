/**
 * Protocol 7's wire shapes as its public reference client library documents them, written down
 * here on their own (not imported from our gateway) so that the kit's client keeps asking for
 * what a protocol-7 client asks for: a shape change on either side fails a test. Only the fields
 * the client reads or sends are typed; everything else passes through as `unknown`.
 */

export type ToolExecutionOutput = { type: 'text'; value: string } | { type: 'json'; value: unknown }

export interface PermissionRequest {
  /** Server-assigned; the value a client answers with. */
  id: string
  toolName: string
  input: Record<string, unknown>
  toolUseId: string
  title?: string
  displayName?: string
  description?: string
  decisionReason?: string
  agentId?: string
  expiresAt?: number
}

export type PermissionDecisionSource = 'client' | 'timeout' | 'policy'

export interface SessionInfo {
  id: string
  status: string
  cwd: string
  lastSeq: number
  pendingPermissionCount: number
  [key: string]: unknown
}

export type StreamEvent = { type: string; index?: number; delta?: { type: string; text?: string; thinking?: string; [key: string]: unknown }; [key: string]: unknown }

export type SessionEvent = { seq: number; ts: number } & (
  | { type: 'permission_requested'; request: PermissionRequest }
  | { type: 'permission_resolved'; requestId: string; behavior: 'allow' | 'deny'; resolvedBy: PermissionDecisionSource; message?: string }
  | { type: 'stream_delta'; event: StreamEvent; parentToolUseId: string | null; uuid: string }
  | { type: 'assistant_message'; message: { role: 'assistant'; content: string | Array<{ type: string; text?: string }> }; parentToolUseId: string | null }
  | { type: 'user_message'; message: unknown; parentToolUseId: string | null; synthetic?: boolean }
  | { type: 'turn_result'; subtype: string; isError: boolean; result?: string; numTurns: number }
  | { type: 'execution_dispatched'; executionId: string; toolName: string; backend: string; deferred?: boolean; expiresAt?: number }
  | { type: 'execution_result'; executionId: string; output: ToolExecutionOutput; logs?: string[] }
  | { type: 'execution_failed'; executionId: string; reason: string; error: string }
  | { type: 'status_changed'; status: string; detail?: string }
  | { type: 'sdk_event'; payload: { type: string; [key: string]: unknown } }
  | { type: Exclude<string, 'permission_requested'>; [key: string]: unknown }
)

export interface ToolCallRequestFrame {
  type: 'tool_call_request'
  executionId: string
  toolName: string
  input: unknown
  vfsSeed?: Record<string, string>
  limits?: { timeoutMs?: number; memoryLimitBytes?: number }
  expiresAt?: number
}

export type ServerFrame =
  | { type: 'attached'; protocolVersion: number; session: SessionInfo; replayingFrom: number }
  | { type: 'event'; event: SessionEvent }
  | ToolCallRequestFrame
  | { type: 'tool_call_canceled'; executionId: string; reason: string }
  | { type: 'protocol_error'; message: string }

export type PermissionAnswer =
  | { behavior: 'allow'; updatedInput?: Record<string, unknown> }
  | { behavior: 'deny'; message?: string; interrupt?: boolean }

export type SessionCommand =
  | { type: 'user_message'; text: string; attachmentIds?: string[] }
  | ({ type: 'permission_decision'; requestId: string } & PermissionAnswer)
  | { type: 'interrupt' }
  | { type: 'set_permission_mode'; mode: string }
  | { type: 'set_model'; model?: string }
  | { type: 'tool_call_result'; executionId: string; output: ToolExecutionOutput; logs?: string[] }
  | { type: 'tool_call_error'; executionId: string; reason: string; error: string; logs?: string[] }
  | { type: 'close' }

/** What a bridged tool handler returns: an output, or a failure the agent reads as tool output. */
export type BridgeAnswer = { output: ToolExecutionOutput; logs?: string[] } | { reason: string; error: string; logs?: string[] }
