/**
 * The engine-neutral half of a session: its event log and the SessionInfo fields that events
 * drive (status, seq, counters, title, model, mode). Engine adapters compose one and emit into it,
 * so every engine numbers, counts and titles the same way.
 */
import {
  ENGINE_CAPABILITIES, transcriptActivity,
  type PermissionMode, type SessionClosedReason, type SessionEvent, type SessionEventBody, type SessionInfo, type SessionStatus,
} from '../protocol/index.ts'
import { EventLog, type EventListener } from './event-log.ts'
import type { RunnerConfig } from './runner.ts'

const TITLE_MAX_CHARS = 80

export interface SessionCoreRestore {
  events: SessionEvent[]
  seq: number
  createdAt: number
}

export class SessionCore {
  readonly log: EventLog
  readonly config: RunnerConfig
  #status: SessionStatus = 'starting'
  #model: string | undefined
  #permissionMode: PermissionMode
  #sdkSessionId: string | undefined
  #apiKeySource = 'none'
  #pending = new Set<string>()
  #totalCostUsd = 0
  #numTurns = 0
  #activityCount = 0
  #lastActivityAt: number | undefined
  #derivedTitle: string | undefined
  #meta: Record<string, unknown> | undefined
  #createdAt: number

  constructor(config: RunnerConfig, restore?: SessionCoreRestore) {
    this.config = config
    this.#model = config.model
    this.#permissionMode = config.permissionMode
    this.#meta = config.meta ? { ...config.meta } : undefined
    this.#createdAt = restore?.createdAt ?? config.createdAt
    this.log = new EventLog(restore?.events ?? [], restore?.seq ?? 0)
    for (const event of this.log.events()) this.#apply(event)
    // The create response already carries the title the first prompt will give (session.2).
    if (!restore && typeof config.prompt === 'string') this.#derivedTitle = deriveTitle(config.prompt)
  }

  get status(): SessionStatus {
    return this.#status
  }

  get closed(): boolean {
    return this.#status === 'closed'
  }

  get model(): string | undefined {
    return this.#model
  }

  get permissionMode(): PermissionMode {
    return this.#permissionMode
  }

  set apiKeySource(source: string) {
    this.#apiKeySource = source
  }

  readonly #applyEvent = (event: SessionEvent) => this.#apply(event)

  emit(body: SessionEventBody): SessionEvent {
    return this.log.append(body, Date.now(), this.#applyEvent)
  }

  /** Emits `status_changed` only on a real move; a closed session never moves again. */
  setStatus(status: SessionStatus, detail?: string): void {
    if (this.#status === status || this.#status === 'closed') return
    this.emit(detail === undefined ? { type: 'status_changed', status } : { type: 'status_changed', status, detail })
  }

  subscribe(listener: EventListener, afterSeq = 0): () => void {
    return this.log.subscribe(listener, afterSeq)
  }

  /** The terminal-error pair every engine emits before closing with reason `error` (events.21). */
  reportError(message: string): void {
    this.emit({ type: 'session_error', message })
    this.setStatus('failed')
  }

  /** `session_closed {reason}` then status `closed`; the runner releases its own resources. */
  reportClosed(reason: SessionClosedReason): void {
    this.emit({ type: 'session_closed', reason })
    this.setStatus('closed')
  }

  setTitle(title: string | undefined): void {
    if (title === undefined) {
      if (this.#meta) delete this.#meta.title
    } else {
      this.#meta = { ...this.#meta, title }
    }
  }

  #apply(event: SessionEvent): void {
    const rows = transcriptActivity(event)
    if (rows > 0) {
      this.#activityCount += rows
      this.#lastActivityAt = event.ts
    }
    switch (event.type) {
      case 'status_changed':
        this.#status = event.status
        break
      case 'system_init':
        if (event.sdkSessionId) this.#sdkSessionId = event.sdkSessionId
        this.#apiKeySource = event.apiKeySource
        break
      case 'model_changed':
        this.#model = event.model
        break
      case 'permission_mode_changed':
        this.#permissionMode = event.mode
        break
      case 'turn_result':
        this.#numTurns = event.numTurns
        this.#totalCostUsd = event.totalCostUsd
        break
      case 'permission_requested':
        this.#pending.add(event.request.id)
        break
      case 'permission_resolved':
        this.#pending.delete(event.requestId)
        break
      case 'conversation_reset':
        if (event.sdkSessionId) this.#sdkSessionId = event.sdkSessionId
        break
      case 'user_message':
        if (this.#derivedTitle === undefined && !event.synthetic && !event.origin && !event.parentToolUseId) {
          this.#derivedTitle = deriveTitle(event.message.content)
        }
        break
      case 'session_closed':
        this.#pending.clear()
        break
    }
  }

  info(): SessionInfo {
    const { config } = this
    const title = typeof this.#meta?.title === 'string' ? this.#meta.title : this.#derivedTitle
    const info: SessionInfo = {
      id: config.id,
      status: this.#status,
      profile: config.profile,
      engine: config.engine,
      capabilities: ENGINE_CAPABILITIES[config.engine],
      permissionMode: this.#permissionMode,
      canBypassPermissions: config.canBypassPermissions,
      apiKeySource: this.#apiKeySource,
      lastSeq: this.log.lastSeq,
      pendingPermissionCount: this.#pending.size,
      totalCostUsd: this.#totalCostUsd,
      numTurns: this.#numTurns,
      activityCount: this.#activityCount,
      createdAt: this.#createdAt,
      subagents: [],
    }
    if (this.#sdkSessionId !== undefined) info.sdkSessionId = this.#sdkSessionId
    // Protocol 7 always sends cwd: '' for an engine without a host filesystem (hostCwd false).
    info.cwd = config.cwd ?? ''
    if (config.project !== undefined) info.project = config.project as SessionInfo['project']
    if (this.#model !== undefined) info.model = this.#model
    if (title !== undefined) info.title = title
    if (this.#lastActivityAt !== undefined) info.lastActivityAt = this.#lastActivityAt
    if (config.scope !== undefined) info.scope = { ...config.scope }
    if (this.#meta !== undefined) info.meta = { ...this.#meta }
    return info
  }
}

/** The first prompt's first line, trimmed to a readable length (session.2). */
export function deriveTitle(content: unknown): string | undefined {
  let text = ''
  if (typeof content === 'string') text = content
  else if (Array.isArray(content)) {
    const block = content.find((b) => b && typeof b === 'object' && (b as { type?: unknown }).type === 'text')
    text = block ? String((block as { text?: unknown }).text ?? '') : ''
  }
  const line = text.trim().split('\n', 1)[0].trim()
  if (!line) return undefined
  return line.length > TITLE_MAX_CHARS ? `${line.slice(0, TITLE_MAX_CHARS - 1)}…` : line
}
