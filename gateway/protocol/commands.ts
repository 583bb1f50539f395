/** Session WebSocket commands and frames (commands.*, websocket-framing.*). */
import type { PermissionMode } from './capabilities.ts'
import type { SessionEvent } from './events.ts'
import type { SessionInfo } from './session.ts'
import type { ToolExecutionOutput } from './tool-output.ts'

export type { ToolExecutionOutput } from './tool-output.ts'

export type SessionCommand =
  | { type: 'user_message'; text: string; attachmentIds?: string[] }
  | { type: 'permission_decision'; requestId: string; behavior: 'allow'; updatedInput?: unknown }
  | { type: 'permission_decision'; requestId: string; behavior: 'deny'; message?: string; interrupt?: boolean }
  | { type: 'interrupt' }
  | { type: 'set_permission_mode'; mode: PermissionMode }
  | { type: 'set_model'; model?: string }
  | { type: 'clear_context' }
  | { type: 'close' }
  /** `output` is protocol 7's field; `result` is accepted as an alias (tool-output.ts). */
  | { type: 'tool_call_result'; executionId: string; output: ToolExecutionOutput; logs?: string[] }
  | { type: 'tool_call_error'; executionId: string; reason?: string; error: string; logs?: string[] }

export type SessionCommandType = SessionCommand['type']
export const SESSION_COMMAND_TYPES: readonly SessionCommandType[] = [
  'user_message', 'permission_decision', 'interrupt', 'set_permission_mode', 'set_model',
  'clear_context', 'close', 'tool_call_result', 'tool_call_error',
]

export interface ToolCallLimits {
  timeoutMs?: number
  memoryLimitBytes?: number
}

export type SessionServerFrame =
  | { type: 'attached'; protocolVersion: number; session: SessionInfo; replayingFrom: number }
  | { type: 'event'; event: SessionEvent }
  | { type: 'tool_call_request'; executionId: string; toolName: string; input: unknown; vfsSeed?: Record<string, string>; limits?: ToolCallLimits; expiresAt?: number }
  | { type: 'tool_call_canceled'; executionId: string; reason: string }
  | { type: 'protocol_error'; message: string }

export interface ResolvePermissionRequest {
  behavior: 'allow' | 'deny'
  updatedInput?: unknown
  message?: string
  interrupt?: boolean
}

export interface ResolvePermissionResponse {
  resolved: true
}

export type SubmitExecutionResultRequest =
  | { status: 'ok'; output: ToolExecutionOutput; logs?: string[] }
  | { status: 'failed'; reason: string; error: string; logs?: string[] }

export interface SubmitExecutionResultResponse {
  applied: boolean
  sessionId: string
}
