/** Session resource shapes (session.*, createsessionrequest.*, updatesessionrequest.*). */
import type { EngineCapabilities, EngineName, PermissionMode } from './capabilities.ts'

export const SESSION_STATUSES = ['starting', 'running', 'awaiting_approval', 'idle', 'parked', 'failed', 'closed'] as const
export type SessionStatus = (typeof SESSION_STATUSES)[number]

/** Statuses a session never leaves (session-status-values). `parked` is not one of them. */
export const TERMINAL_SESSION_STATUSES: readonly SessionStatus[] = ['failed', 'closed']

export type Scope = Record<string, string>

export interface ProjectInfo {
  name: string
  root: string
  /** A glyph name, or `{mediaType, hash}` whose bytes come from `/sessions/:id/project/icon`. */
  icon?: string | { mediaType: string; hash: string }
}

export interface SessionMeta {
  title?: string
  [key: string]: unknown
}

export interface SessionInfo {
  id: string
  sdkSessionId?: string
  status: SessionStatus
  cwd?: string
  profile: string
  engine: EngineName
  capabilities: EngineCapabilities
  model?: string
  permissionMode: PermissionMode
  canBypassPermissions: boolean
  apiKeySource: string
  lastSeq: number
  pendingPermissionCount: number
  title?: string
  totalCostUsd: number
  numTurns: number
  activityCount: number
  lastActivityAt?: number
  createdAt: number
  scope?: Scope
  subagents: unknown[]
  project?: ProjectInfo
  meta?: SessionMeta
}

export type McpTransport = 'stdio' | 'http' | 'sse'
export interface McpServerConfigWire {
  type?: McpTransport
  command?: string
  args?: string[]
  env?: Record<string, string>
  url?: string
  headers?: Record<string, string>
}

/** How AskUserQuestion is settled when nobody answers: wait (ask), first option (auto), let the model decide (deny). */
export type QuestionBehavior = 'ask' | 'auto' | 'deny'

export interface CreateSessionRequest {
  profile?: string
  cwd?: string
  prompt?: string
  permissionMode?: PermissionMode
  allowDangerouslySkipPermissions?: boolean
  allowedTools?: string[]
  disallowedTools?: string[]
  mcpServers?: Record<string, McpServerConfigWire>
  settingSources?: string[]
  model?: string
  reasoningEffort?: string
  maxTurns?: number
  maxBudgetUsd?: number
  resume?: string
  forkSession?: boolean
  capabilities?: string[]
  includePartialMessages?: boolean
  approvalTimeoutMs?: number | null
  questionBehavior?: QuestionBehavior
  meta?: SessionMeta
  scope?: Scope
}

export interface UpdateSessionRequest {
  /** Three-state: string sets `meta.title`, null clears it, omitted leaves it (updatesessionrequest.1). */
  title?: string | null
}

export interface SessionResponse {
  session: SessionInfo
}

export interface ListSessionsResponse {
  sessions: SessionInfo[]
}
