/**
 * Caps on open WebSockets per principal and per session (`webSockets.maxPerPrincipal`,
 * `maxPerSession`). A slot is reserved when the upgrade is authorized, before any await that
 * could let a burst of upgrades past the cap, and released when the upgrade fails or the socket
 * closes. Operator principals are not capped per principal: they are the gateway's own
 * operators (the queue socket, the host's backend), not tenants.
 */
import type { Principal } from '../principal.ts'
import { refuse, type Refusal } from '../refusal.ts'
import type { WebSocketLimits } from './socket-limits.ts'

export type CapReason = 'per_principal' | 'per_session'

/** A reserved slot; `release` is idempotent. */
export interface SocketSlot {
  release(): void
}

/**
 * A stable key for "the same caller": the principal's `id` (principals file entries have one;
 * the access log names it too), else its `name`, else its pinned scope. Principals with none of
 * these share one key.
 */
export function principalKey(principal: Principal): string {
  if (typeof principal.id === 'string') return `id:${principal.id}`
  if (typeof principal.name === 'string') return `name:${principal.name}`
  const scope = principal.scope ?? {}
  const keys = Object.keys(scope).sort()
  return `scope:${JSON.stringify(keys.map((key) => [key, scope[key]]))}`
}

export class SocketCaps {
  readonly #limits: WebSocketLimits
  readonly #perPrincipal = new Map<string, number>()
  readonly #perSession = new Map<string, number>()
  readonly #onRefused: (reason: CapReason) => void

  constructor(limits: WebSocketLimits, onRefused: (reason: CapReason) => void = () => {}) {
    this.#limits = limits
    this.#onRefused = onRefused
  }

  /** Reserves a slot for `principal` (uncapped when `operator`) and, for a session socket, its session. */
  reserve(principal: Principal, operator: boolean, sessionId?: string): SocketSlot | Refusal {
    const key = operator ? undefined : principalKey(principal)
    if (key !== undefined && (this.#perPrincipal.get(key) ?? 0) >= this.#limits.maxPerPrincipal) {
      return this.#refuse('per_principal', `too many WebSockets for this principal (at most ${this.#limits.maxPerPrincipal}); close one first`)
    }
    if (sessionId !== undefined && (this.#perSession.get(sessionId) ?? 0) >= this.#limits.maxPerSession) {
      return this.#refuse('per_session', `too many WebSockets on this session (at most ${this.#limits.maxPerSession}); close one first`)
    }
    if (key !== undefined) increment(this.#perPrincipal, key, 1)
    if (sessionId !== undefined) increment(this.#perSession, sessionId, 1)
    let held = true
    return {
      release: () => {
        if (!held) return
        held = false
        if (key !== undefined) increment(this.#perPrincipal, key, -1)
        if (sessionId !== undefined) increment(this.#perSession, sessionId, -1)
      },
    }
  }

  #refuse(reason: CapReason, message: string): Refusal {
    this.#onRefused(reason)
    return refuse('too_many_sockets', message)
  }
}

/** Adds `by`; a count that reaches 0 is removed, so the maps hold only callers with open sockets. */
function increment(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by
  if (next > 0) counts.set(key, next)
  else counts.delete(key)
}
