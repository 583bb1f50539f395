/**
 * The Runner contract between the gateway and an engine adapter. The registry, the WebSocket
 * route and (later) parking and the queue only ever talk to a session through this interface.
 */
import type {
  CreateSessionRequest, EngineName, MessageOrigin, PermissionMode, ResolvedBy, Scope,
  SessionClosedReason, SessionInfo, ToolExecutionOutput,
} from '../protocol/index.ts'
import type { EventListener } from './event-log.ts'
import type { RunnerSnapshot } from './session-store.ts'
import type { OutgoingAttachment } from './attachments.ts'

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
  /**
   * Set on the config that wakes a dormant CLI record (embedding-rules.14): its conversation must
   * come back from the engine's store, and a session that cannot read it fails, naming why.
   */
  wakeFromDormant?: boolean
  /** Host-owned extras from `buildRunnerConfig` (credentials never reach a response). */
  [key: string]: unknown
}

export interface PermissionDecision {
  behavior: 'allow' | 'deny'
  updatedInput?: unknown
  message?: string
  interrupt?: boolean
}

/**
 * `afterSeq` for a subscriber that wants only what happens from now on (no event's seq is past
 * it): cheaper than asking `info().lastSeq`, which builds a whole SessionInfo.
 */
export const LIVE_ONLY = Number.MAX_SAFE_INTEGER

export interface Runner {
  readonly id: string
  /** Idempotent; resolves when the session has started (not when it ends). */
  start(): Promise<void>
  info(): SessionInfo
  /** Replays events with seq > afterSeq synchronously, then delivers live ones. */
  subscribe(listener: EventListener, afterSeq?: number): () => void
  /** Throws `session is closed` on a closed session. Attachment bytes go to the engine, never into events. */
  sendMessage(text: string, attachments?: OutgoingAttachment[], origin?: MessageOrigin): void
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
  /** A rebuilt session whose previous process died mid-turn: ends that turn with an error `turn_result`. */
  endLostTurn?(message: string): void
  /** Emits `session_closed{reason}` then status `closed`. Idempotent. */
  close(reason?: SessionClosedReason): void

  // Optional members: engines that can do more say so by having them.
  /** The scratch filesystem behind `/sessions/:id/files` (path → bytes). */
  files?(): ScratchFiles | undefined
  /**
   * Feeds a deferred execution's result into the agent loop. Idempotent: false for an unknown or
   * already settled id.
   */
  settleExecution?(executionId: string, result: ExecutionOutcome): boolean
  /** Snapshot and go inert, without `session_closed`; undefined when the runner cannot park now. */
  park?(): RunnerSnapshot | undefined
  /** The same value without tearing down; undefined while a turn is in flight. */
  snapshot?(): RunnerSnapshot | undefined
  /** Host files the engine announced with `file_produced`: the produced-files route's only allowlist. */
  producedFiles?(): ProducedFile[]
  /** MCP servers as the engine reports them (environment and headers stripped); undefined: no MCP surface. */
  mcpServers?(): Promise<unknown[] | undefined>
  /** reconnect / enable / disable one MCP server; throws the engine's message on failure. */
  mcpServerAction?(name: string, action: 'reconnect' | 'enable' | 'disable'): Promise<void>
  /** A bridged tool call's answer from the attached client (tool_call_result / tool_call_error). */
  resolveToolCall?(executionId: string, answer: ToolCallAnswer): boolean
}

/**
 * A client's answer to a bridged call (commands.1). `value` is what the model receives (the value
 * of protocol 7's `{type, value}` output); `output` keeps the typed form for `execution_result`.
 * A failure's `error` is the bare error `execution_failed` carries; `reason` is the machine-readable
 * cause; `modelText`, when set, is what the model reads instead of `error`.
 */
export type ToolCallAnswer =
  | { ok: true; value: unknown; output: ToolExecutionOutput; logs?: string[] }
  | { ok: false; error: string; reason: string; modelText?: string; logs?: string[] }

export interface ProducedFile {
  fileId: string
  /** Absolute host path. */
  path: string
  mediaType?: string
}

export interface ScratchFiles {
  list(): Array<{ path: string; size: number }>
  /** Throws `ScratchPathError` for a path no file can have (the caller's input is wrong, not absent). */
  read(path: string): Uint8Array | undefined
}

/** A path the scratch store refuses outright: part of the `ScratchFiles` contract, so the route can answer 400. */
export class ScratchPathError extends Error {
  override name = 'ScratchPathError'
}

/** A deferred execution's result, whoever produced it (a POST, the watchdog, an interrupt). */
export type ExecutionOutcome =
  | { status: 'ok'; output: unknown; typed?: ToolExecutionOutput; logs?: string[] }
  | { status: 'failed'; reason: string; error: string; logs?: string[] }

/** The tool bridge handed to provider runners; sandboxed tools are executed by the first attached client. */
export interface ToolBridge {
  /** Number of clients attached to this session right now. */
  attachedCount(): number
  /**
   * Sends a `tool_call_request` to the first attached client; false when none is attached (the
   * call then fails at once, so unattended runs never bridge). The answer arrives through
   * `Runner.resolveToolCall`.
   */
  request?(call: BridgedCall): boolean
  /** Broadcasts `tool_call_canceled` to every attached client. */
  cancel?(executionId: string, reason: string): void
}

export interface BridgedCall {
  executionId: string
  toolName: string
  input: unknown
  vfsSeed?: Record<string, string>
  limits?: { timeoutMs?: number; memoryLimitBytes?: number }
  expiresAt?: number
}

/** What `createEngineRunner` receives (server-configuration: createEngineRunner). */
export interface EngineRunnerContext {
  config: RunnerConfig
  profile: import('../protocol/index.ts').ProfileConfig
  bridge: ToolBridge
  /** Present on a rebuild: the runner must continue from it (embedding-rules.9). */
  restore?: RunnerSnapshot
  /** Session-to-session messaging for this session's peer tools; absent when peers are disabled. */
  peers?: import('./peers.ts').PeerPort
  /**
   * The execution id for a deferred tool call: its own tool-call id unless that id already names
   * an execution the gateway knows (then a suffixed one). Absent: the tool-call id as it is.
   */
  claimExecutionId?(toolCallId: string): Promise<string>
}

export type CreateEngineRunner = (ctx: EngineRunnerContext) => Runner | Promise<Runner>
