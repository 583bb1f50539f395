/**
 * The Runner contract between the gateway and an engine adapter. The registry, the WebSocket
 * route and (later) parking and the queue only ever talk to a session through this interface.
 */
import type {
  CreateSessionRequest, EngineName, MessageAttachment, PermissionMode, ResolvedBy, Scope,
  SessionClosedReason, SessionInfo,
} from '../protocol/index.ts'
import type { EventListener } from './event-log.ts'

/** A create request after validation, profile resolution, defaults and `buildRunnerConfig`. */
export interface RunnerConfig extends CreateSessionRequest {
  /** The server id the runner must adopt (embedding-rules.9). */
  id: string
  profile: string
  engine: EngineName
  permissionMode: PermissionMode
  canBypassPermissions: boolean
  scope?: Scope
  createdAt: number
  /** Host-owned extras from `buildRunnerConfig` (credentials never reach a response). */
  [key: string]: unknown
}

export interface PermissionDecision {
  behavior: 'allow' | 'deny'
  updatedInput?: unknown
  message?: string
  interrupt?: boolean
}

export interface Runner {
  readonly id: string
  /** Idempotent; resolves when the session has started (not when it ends). */
  start(): Promise<void>
  info(): SessionInfo
  /** Replays events with seq > afterSeq synchronously, then delivers live ones. */
  subscribe(listener: EventListener, afterSeq?: number): () => void
  /** Throws `session is closed` on a closed session. */
  sendMessage(text: string, attachments?: MessageAttachment[]): void
  /** Writes `meta.title`; the engine is never told (updatesessionrequest.2). */
  setTitle(title: string | undefined): void
  resolvePermission(requestId: string, decision: PermissionDecision, resolvedBy: ResolvedBy): boolean
  interrupt(): void
  setPermissionMode(mode: PermissionMode): void
  setModel(model: string | undefined): void
  /** Present when the engine's record sets `clearContext`. */
  clearContext?(): void
  /** Emits `session_error`, status `failed`, then closes with reason `error`. */
  fail(message: string): void
  /** Emits `session_closed{reason}` then status `closed`. Idempotent. */
  close(reason?: SessionClosedReason): void
}

/** The tool bridge handed to provider runners; sandboxed tools are executed by the first attached client. */
export interface ToolBridge {
  /** Number of clients attached to this session right now. */
  attachedCount(): number
}

/** What `createEngineRunner` receives (server-configuration: createEngineRunner). */
export interface EngineRunnerContext {
  config: RunnerConfig
  profile: import('../protocol/index.ts').ProfileConfig
  bridge: ToolBridge
}

export type CreateEngineRunner = (ctx: EngineRunnerContext) => Runner | Promise<Runner>
