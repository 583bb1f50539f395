/**
 * The per-session event log: numbering (seq from 1, `ts` in epoch ms), replay after a seq, and the
 * `conversation_reset` rule (events.20). Each event's wire frame is serialised once, lazily, and
 * shared by every attached client and every replay: serialisation is the cost that scales with
 * clients, so it is paid once per event rather than once per client.
 */
import { isTranscriptContent, type SessionEvent, type SessionEventBody } from '../protocol/index.ts'

/** The second argument gives the event's wire frame, serialised on first use and then shared. */
export type EventListener = (event: SessionEvent, entry: FramedEvent) => void

export interface FramedEvent {
  readonly event: SessionEvent
  frame(): string
}

/** An event's wire frame (websocket-framing: `{type: 'event', event}`), serialised in one step. */
export function eventFrame(event: SessionEvent): string {
  return `{"type":"event","event":${JSON.stringify(event)}}`
}

/** One logged event. A class, not a closure per event: the live path allocates per event. */
class Entry implements FramedEvent {
  #frame: string | undefined
  readonly event: SessionEvent

  constructor(event: SessionEvent) {
    this.event = event
  }

  frame(): string {
    return (this.#frame ??= eventFrame(this.event))
  }
}

export class EventLog {
  #entries: Entry[] = []
  #listeners = new Set<EventListener>()
  #latestResetSeq = 0
  #seq: number
  #offset: number

  /** `events` restores a log (a rebuilt session keeps its transcript and numbering). */
  constructor(events: readonly SessionEvent[] = [], nextSeqAfter = 0) {
    for (const event of events) this.#entries.push(new Entry(event))
    this.#offset = events.length ? events[0].seq : nextSeqAfter + 1
    this.#seq = events.length ? Math.max(nextSeqAfter, events[events.length - 1].seq) : nextSeqAfter
    for (const { event } of this.#entries) if (event.type === 'conversation_reset') this.#latestResetSeq = event.seq
  }

  get lastSeq(): number {
    return this.#seq
  }

  get size(): number {
    return this.#entries.length
  }

  /**
   * Stamps `seq` and `ts` onto `body` itself: callers hand over a fresh object, and the copy showed
   * in profiles. `apply` runs before any listener, so a listener reading the session's state sees
   * it as this event leaves it (a record saved at a status move names the new status).
   */
  append(body: SessionEventBody, now = Date.now(), apply?: (event: SessionEvent) => void): SessionEvent {
    const event = body as SessionEvent
    event.seq = ++this.#seq
    event.ts = now
    const entry = new Entry(event)
    this.#entries.push(entry)
    if (event.type === 'conversation_reset') this.#latestResetSeq = event.seq
    apply?.(event)
    if (this.#listeners.size) {
      for (const listener of this.#listeners) {
        try {
          listener(event, entry)
        } catch {
          // A listener's failure must not break the session or other listeners.
        }
      }
    }
    return event
  }

  /** Events with seq > afterSeq, skipping transcript content strictly below the latest reset. */
  *replay(afterSeq = 0): Generator<FramedEvent> {
    for (let i = this.#replayStart(afterSeq); i < this.#entries.length; i++) {
      if (this.#replays(this.#entries[i].event, afterSeq)) yield this.#entries[i]
    }
  }

  /**
   * Replays synchronously, then joins the live set, so no event is lost or doubled in between.
   * A plain loop rather than `replay()`: a generator step per event showed in the replay profile.
   */
  subscribe(listener: EventListener, afterSeq = 0): () => void {
    const entries = this.#entries
    for (let i = this.#replayStart(afterSeq); i < entries.length; i++) {
      const entry = entries[i]
      if (!this.#replays(entry.event, afterSeq)) continue
      try {
        listener(entry.event, entry)
      } catch {
        break
      }
    }
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /**
   * The first entry with seq > afterSeq. Seqs are contiguous from the offset until a rebuild numbers
   * on after its write-ahead reservation: past that gap the index guess lands too far, and a replay
   * from there skipped the first events after the gap (the lost turn's turn_result; events.10).
   */
  #replayStart(afterSeq: number): number {
    const entries = this.#entries
    const guess = Math.max(0, afterSeq + 1 - this.#offset)
    if (guess >= entries.length ? entries.length === 0 || entries[entries.length - 1].event.seq <= afterSeq : guess === 0 || entries[guess - 1].event.seq <= afterSeq) return Math.min(guess, entries.length)
    let lo = 0
    let hi = Math.min(guess, entries.length)
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (entries[mid].event.seq > afterSeq) hi = mid
      else lo = mid + 1
    }
    return lo
  }

  #replays(event: SessionEvent, afterSeq: number): boolean {
    return event.seq > afterSeq && !(event.seq < this.#latestResetSeq && isTranscriptContent(event))
  }

  /** Every logged event, optionally leaving out some types. */
  events(except?: ReadonlySet<SessionEvent['type']>): SessionEvent[] {
    const out: SessionEvent[] = []
    for (const { event } of this.#entries) if (!except?.has(event.type)) out.push(event)
    return out
  }

  clearListeners(): void {
    this.#listeners.clear()
  }
}

