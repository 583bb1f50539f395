/**
 * What every engine's runner does the same way around its own protocol:
 * the "session is closed" guard, events dropped once closed, the end of a turn (`turn_result`,
 * the context reading, back to idle unless an approval still stands), approvals denied when the
 * turn ends or the session closes, the model and mode changes, failing and closing. A runner
 * composes one `TurnMachinery` and keeps only its engine's protocol; nothing here knows an engine.
 */
import { stripVTControlCharacters } from 'node:util'
import {
  ENGINE_CAPABILITIES, type EngineName, type PermissionMode, type SessionClosedReason, type SessionEventBody, type SessionInfo,
} from '../protocol/index.ts'
import type { EventListener } from '../sessions/event-log.ts'
import type { SessionCore } from '../sessions/session-core.ts'
import type { Approvals } from './cli-primary/approvals.ts'
import { INTERRUPTED_RESULT } from './interrupted.ts'

/** A `turn_result`'s outcome fields: what the engine decided, before the figures. */
export interface TurnOutcome {
  subtype: string
  isError: boolean
  result?: string
  errors?: string[]
}

/** A `turn_result`'s figures: how long, how many turns so far, what it cost. */
export interface TurnFigures {
  durationMs: number
  numTurns: number
  totalCostUsd: number
  usage?: object
}

/** The one interrupt shape, a fresh copy each time: events are stored, never shared. */
export function interruptedOutcome(): TurnOutcome {
  return { ...INTERRUPTED_RESULT, errors: [...INTERRUPTED_RESULT.errors] }
}

export function errorOutcome(message: string): TurnOutcome {
  return { subtype: 'error_during_execution', isError: true, errors: [message] }
}

export function successOutcome(result: string | undefined): TurnOutcome {
  return { subtype: 'success', isError: false, ...(result !== undefined ? { result } : {}) }
}

export class TurnMachinery {
  readonly core: SessionCore
  /** The CLI engines ask a human; the provider engine has no interactive approvals (embedding-rules.17). */
  readonly approvals: Approvals | undefined
  readonly #engine: EngineName

  constructor(engine: EngineName, core: SessionCore, approvals?: (emit: (body: SessionEventBody) => void) => Approvals) {
    this.#engine = engine
    this.core = core
    this.approvals = approvals?.((body) => this.emit(body))
  }

  get closed(): boolean {
    return this.core.closed
  }

  /** Events after the close are dropped: a late engine message must not follow `session_closed`. */
  emit(body: SessionEventBody): void {
    if (!this.core.closed) this.core.emit(body)
  }

  notice(message: string): void {
    this.emit({ type: 'sdk_event', payload: { type: 'gateway_notice', message: plain(message) } })
  }

  assertOpen(): void {
    if (this.core.closed) throw new Error('session is closed')
  }

  info(): SessionInfo {
    return this.core.info()
  }

  subscribe(listener: EventListener, afterSeq = 0): () => void {
    return this.core.subscribe(listener, afterSeq)
  }

  setTitle(title: string | undefined): void {
    this.core.setTitle(title)
  }

  /** No approval is waiting for an answer. */
  get unasked(): boolean {
    return (this.approvals?.size ?? 0) === 0
  }

  /** Anything still asked is denied: the turn it belonged to is over (engine-facts §2). */
  denyApprovals(reason: string): void {
    this.approvals?.denyAll(reason)
  }

  /**
   * The turn is over: its `turn_result`, the latest context reading when the engine keeps one,
   * then idle unless an approval still stands (its answer settles the status) or `stayBusy`
   * (more queued work starts at once).
   */
  endTurn(outcome: TurnOutcome, figures: TurnFigures, options: { contextUsage?: Record<string, unknown>; stayBusy?: boolean } = {}): void {
    const errors = outcome.errors ? { errors: outcome.errors.map(plain) } : {}
    this.emit({ type: 'turn_result', ...outcome, ...errors, ...figures } as SessionEventBody)
    if (options.contextUsage) this.emit({ type: 'context_usage', usage: options.contextUsage })
    if (!options.stayBusy && this.unasked) this.core.setStatus('idle')
  }

  /** Checked before the engine hears of it; the event is the session's record of the change (events.6). */
  changeMode(mode: PermissionMode): void {
    this.assertOpen()
    if (!ENGINE_CAPABILITIES[this.#engine].permissionModes.includes(mode)) throw new Error(`permission mode '${mode}' is not supported by engine ${this.#engine}`)
  }

  modeChanged(mode: PermissionMode): void {
    this.core.emit({ type: 'permission_mode_changed', mode })
  }

  modelChanged(model: string | undefined): void {
    this.core.emit(model === undefined ? { type: 'model_changed' } : { type: 'model_changed', model })
  }

  /** `session_error` then the close: the spec makes it terminal (events.21). */
  fail(message: string, close: (reason: SessionClosedReason) => void): void {
    if (this.core.closed) return
    this.core.reportError(plain(message))
    close('error')
  }

  /** `session_closed`, every standing approval denied, then the engine's own teardown. False when already closed. */
  close(reason: SessionClosedReason, teardown: () => void): boolean {
    if (this.core.closed) return false
    this.core.reportClosed(reason)
    this.denyApprovals('the session was closed')
    teardown()
    return true
  }
}

/**
 * Engine text as a client reads it: an engine's stderr (real codex colours its log lines; the
 * Agent SDK quotes the CLI's stderr) carries terminal escape codes, which mean nothing in an event.
 */
function plain(text: string): string {
  return stripVTControlCharacters(text)
}
