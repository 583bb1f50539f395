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

/**
 * One logged event. A class, not a closure per event: the live path allocates per event. Once its
 * frame is built, the entry keeps only the frame (and the seq and type that replay filters on):
 * the event object graph would otherwise stay alive beside its own serialisation, and on a
 * stream every scavenge copied and promoted both (profile in bench/README, issue 14). Readers of
 * an old entry's event get a copy parsed from the frame.
 */
class Entry implements FramedEvent {
  readonly seq: number
  readonly type: SessionEvent['type']
  #event: SessionEvent | undefined
  #frame: string | undefined

  constructor(event: SessionEvent) {
    this.seq = event.seq
    this.type = event.type
    this.#event = event
  }

  get event(): SessionEvent {
    return this.#event ?? (JSON.parse(this.#frame!) as { event: SessionEvent }).event
  }

  frame(): string {
    if (this.#frame === undefined) {
      this.#frame = `{"type":"event","event":${JSON.stringify(this.#event)}}`
      this.#event = undefined
    }
    return this.#frame
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
    for (const entry of this.#entries) if (entry.type === 'conversation_reset') this.#latestResetSeq = entry.seq
  }

  get lastSeq(): number {
    return this.#seq
  }

  get size(): number {
    return this.#entries.length
  }

  /** Stamps `seq` and `ts` onto `body` itself: callers hand over a fresh object, and the copy showed in profiles. */
  append(body: SessionEventBody, now = Date.now()): SessionEvent {
    const event = body as SessionEvent
    event.seq = ++this.#seq
    event.ts = now
    const entry = new Entry(event)
    this.#entries.push(entry)
    if (event.type === 'conversation_reset') this.#latestResetSeq = event.seq
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
    const start = Math.max(0, afterSeq + 1 - this.#offset)
    const reset = this.#latestResetSeq
    for (let i = start; i < this.#entries.length; i++) {
      const entry = this.#entries[i]
      if (entry.seq <= afterSeq) continue
      if (entry.seq < reset && isTranscriptContent(entry)) continue
      yield entry
    }
  }

  /** Replays synchronously, then joins the live set, so no event is lost or doubled in between. */
  subscribe(listener: EventListener, afterSeq = 0): () => void {
    for (const entry of this.replay(afterSeq)) {
      try {
        listener(entry.event, entry)
      } catch {
        break
      }
    }
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** Every logged event, optionally leaving out some types (without parsing their frames). */
  events(except?: ReadonlySet<SessionEvent['type']>): SessionEvent[] {
    const out: SessionEvent[] = []
    for (const entry of this.#entries) if (!except?.has(entry.type)) out.push(entry.event)
    return out
  }

  clearListeners(): void {
    this.#listeners.clear()
  }
}

