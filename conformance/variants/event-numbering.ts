/**
 * Dropping events a provider engine is not obliged to emit while keeping seq legal: seq must
 * start at 1 and increase (event-and-command-envelope.1), so the remaining events are renumbered.
 * The proxy learns which upstream seqs it dropped from every stream it relays (each attach
 * replays from the start upstream, and the dropped events are state-bearing, so they are never
 * skipped by a reset), and a seq maps to itself minus the dropped seqs below it.
 */

/** Events the spec's Events table lists without obliging an engine to emit them. */
export const OPTIONAL_PROVIDER_EVENTS = new Set(['system_init', 'capabilities', 'skills', 'tool_titles', 'context_usage', 'rate_limit', 'plan_info'])

export class EventNumbering {
  /** Upstream seqs dropped, per session, ascending. */
  readonly #dropped = new Map<string, number[]>()
  /** Per session, the upstream seq up to which every event has passed the proxy (so every drop below it is known). */
  readonly #seenThrough = new Map<string, number>()

  /**
   * Records an upstream event relayed on a stream that started after upstream seq `from`: the
   * known prefix grows only when that stream started inside it.
   */
  relayed(sessionId: string, from: number, seq: number): void {
    const through = this.#seenThrough.get(sessionId) ?? 0
    if (from <= through && seq > through) this.#seenThrough.set(sessionId, seq)
  }

  /** The upstream seq up to which the proxy knows every dropped seq of the session. */
  seenThrough(sessionId: string): number {
    return this.#seenThrough.get(sessionId) ?? 0
  }

  /** Whether to drop this upstream event of a session on `engine`; a dropped seq is remembered. */
  drop(sessionId: string, engine: unknown, event: { type?: unknown; seq?: unknown }): boolean {
    if (engine !== 'provider' || !OPTIONAL_PROVIDER_EVENTS.has(String(event.type)) || typeof event.seq !== 'number') return false
    const list = this.#dropped.get(sessionId) ?? []
    if (!list.includes(event.seq)) {
      list.push(event.seq)
      list.sort((a, b) => a - b)
    }
    this.#dropped.set(sessionId, list)
    return true
  }

  /** The proxy's number for an upstream seq (or `lastSeq`): itself minus the dropped seqs at or below it. */
  map(sessionId: string, seq: number): number {
    const list = this.#dropped.get(sessionId)
    if (!list) return seq
    let below = 0
    for (const s of list) if (s <= seq) below++
    return seq - below
  }

  /** The upstream seq the proxy numbers `seq` (the inverse of `map` on the events it did not drop). */
  unmap(sessionId: string, seq: number): number {
    let upstream = seq
    // Ascending: each dropped seq at or below the candidate pushes it one further.
    for (const s of this.#dropped.get(sessionId) ?? []) if (s <= upstream) upstream++
    return upstream
  }
}

/** `afterSeq` as the gateway reads it: a non-negative integer, anything else replays from the start. */
export function parseAfterSeq(value: string | null): number {
  return value !== null && /^\d{1,15}$/.test(value) ? Number(value) : 0
}
