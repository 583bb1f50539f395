/**
 * Session-to-session messaging (Peers, limits.4-6). A session sees the sessions its own scope
 * sees under the default rule (every key it pins must match; `authorizeSession` is not
 * consulted). A message arrives as a `user_message` with `origin: {kind: 'peer', ...}`, queued
 * behind any running turn; relays are bounded by `maxHops`, senders by `perMinute`.
 */
import type { MessageOrigin, SessionInfo } from '../protocol/index.ts'
import type { SessionRegistry } from './registry.ts'

export interface PeerOptions {
  enabled?: boolean
  maxMessageChars?: number
  perMinute?: number
  maxHops?: number
}

export const PEER_DEFAULTS = { enabled: true, maxMessageChars: 16_000, perMinute: 10, maxHops: 12 } as const

/** What a session's peer tools may do, bound to that session. */
export interface PeerPort {
  list(): Array<{ sessionId: string; name?: string; engine: string; status: string }>
  peek(sessionId: string, limit?: number): { ok: true; messages: Array<{ role: string; text: string; origin?: MessageOrigin }> } | { ok: false; error: string }
  /** `hops` is how many relays brought the message the sender is answering (0 for a human's). */
  send(sessionId: string, text: string, hops: number): { ok: true } | { ok: false; error: string }
}

export class PeerService {
  readonly enabled: boolean
  #options: Required<PeerOptions>
  #registry: SessionRegistry
  #sent = new Map<string, number[]>()

  constructor(options: PeerOptions = {}, registry: SessionRegistry) {
    this.#options = { ...PEER_DEFAULTS, ...options }
    this.enabled = this.#options.enabled
    this.#registry = registry
  }

  /** One small object per session (methods on the prototype): every session gets a port. */
  portFor(sessionId: string): PeerPort {
    return new SessionPort(this, sessionId)
  }

  list(sessionId: string): ReturnType<PeerPort['list']> {
    return this.#visible(sessionId).map((info) => ({
      sessionId: info.id, ...(info.title ? { name: info.title } : {}), engine: info.engine, status: info.status,
    }))
  }

  peek(sessionId: string, target: string, limit = 20): ReturnType<PeerPort['peek']> {
    const runner = this.#target(sessionId, target)
    if (!runner) return { ok: false, error: `no such peer: ${target}` }
    const messages: Array<{ role: string; text: string; origin?: MessageOrigin }> = []
    runner.subscribe((event) => {
      if (event.type !== 'user_message' && event.type !== 'assistant_message') return
      const text = textOf(event.message.content)
      if (!text) return
      messages.push({ role: event.message.role, text, ...(event.type === 'user_message' && event.origin ? { origin: event.origin } : {}) })
    })() // replay only: subscribe, collect synchronously, unsubscribe
    return { ok: true, messages: messages.slice(-Math.max(1, Math.min(limit, 100))) }
  }

  send(from: string, target: string, text: string, hops: number): { ok: true } | { ok: false; error: string } {
    if (typeof text !== 'string' || !text.trim()) return { ok: false, error: 'text is required' }
    if (text.length > this.#options.maxMessageChars) return { ok: false, error: `message is longer than ${this.#options.maxMessageChars} characters` }
    if (hops + 1 > this.#options.maxHops) return { ok: false, error: `relay depth would exceed ${this.#options.maxHops} hops` }
    const runner = this.#target(from, target)
    if (!runner) return { ok: false, error: `no such peer: ${target}` }
    const now = Date.now()
    const recent = (this.#sent.get(from) ?? []).filter((t) => now - t < 60_000)
    if (recent.length >= this.#options.perMinute) return { ok: false, error: `rate limit: at most ${this.#options.perMinute} peer messages per minute` }
    const sender = this.#registry.info(from)
    const origin: MessageOrigin = { kind: 'peer', sessionId: from, ...(sender?.title ? { name: sender.title } : {}), ...(sender ? { engine: sender.engine } : {}), hops: hops + 1 }
    try {
      runner.sendMessage(text, [], origin)
    } catch (err) {
      return { ok: false, error: (err as Error).message }
    }
    recent.push(now)
    this.#sent.set(from, recent)
    return { ok: true }
  }

  #visible(from: string): SessionInfo[] {
    const scope = this.#registry.info(from)?.scope
    const seen: SessionInfo[] = []
    for (const id of this.#registry.ids()) {
      if (id === from) continue
      const info = this.#registry.info(id)
      if (!info || info.status === 'closed' || info.status === 'failed') continue
      if (scope && !Object.entries(scope).every(([k, v]) => info.scope?.[k] === v)) continue
      seen.push(info)
    }
    return seen
  }

  #target(from: string, target: string) {
    return this.#visible(from).some((info) => info.id === target) ? this.#registry.get(target) : undefined
  }
}

class SessionPort implements PeerPort {
  private readonly service: PeerService
  private readonly sessionId: string

  constructor(service: PeerService, sessionId: string) {
    this.service = service
    this.sessionId = sessionId
  }
  list() { return this.service.list(this.sessionId) }
  peek(target: string, limit?: number) { return this.service.peek(this.sessionId, target, limit) }
  send(target: string, text: string, hops: number) { return this.service.send(this.sessionId, target, text, hops) }
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content.map((b) => (b && typeof b === 'object' && (b as { type?: unknown }).type === 'text' ? String((b as { text?: unknown }).text ?? '') : '')).join('')
}
