/**
 * The per-session event log: numbering (seq from 1, `ts` in epoch ms), replay after a seq, and the
 * `conversation_reset` rule (events.20). Each event's wire frame is serialised once, lazily, and
 * shared by every attached client and every replay: serialisation is the cost that scales with
 * clients, so it is paid once per event rather than once per client.
 */
import { isTranscriptContent, type SessionEvent, type SessionEventBody } from '../protocol/index.ts'

export type EventListener = (event: SessionEvent, frame: () => string) => void

interface Entry {
  event: SessionEvent
  frame?: string
}

export class EventLog {
  #entries: Entry[] = []
  #listeners = new Set<EventListener>()
  #latestResetSeq = 0
  #seq: number
  #offset: number

  /** `events` restores a log (a rebuilt session keeps its transcript and numbering). */
  constructor(events: readonly SessionEvent[] = [], nextSeqAfter = 0) {
    for (const event of events) this.#entries.push({ event })
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

  append(body: SessionEventBody, now = Date.now()): SessionEvent {
    const event = { ...body, seq: ++this.#seq, ts: now } as SessionEvent
    const entry: Entry = { event }
    this.#entries.push(entry)
    if (event.type === 'conversation_reset') this.#latestResetSeq = event.seq
    if (this.#listeners.size) {
      const frame = () => frameOf(entry)
      for (const listener of this.#listeners) {
        try {
          listener(event, frame)
        } catch {
          // A listener's failure must not break the session or other listeners.
        }
      }
    }
    return event
  }

  /** Events with seq > afterSeq, skipping transcript content strictly below the latest reset. */
  *replay(afterSeq = 0): Generator<{ event: SessionEvent; frame: () => string }> {
    const start = Math.max(0, afterSeq + 1 - this.#offset)
    const reset = this.#latestResetSeq
    for (let i = start; i < this.#entries.length; i++) {
      const entry = this.#entries[i]
      const { event } = entry
      if (event.seq <= afterSeq) continue
      if (event.seq < reset && isTranscriptContent(event)) continue
      yield { event, frame: () => frameOf(entry) }
    }
  }

  /** Replays synchronously, then joins the live set, so no event is lost or doubled in between. */
  subscribe(listener: EventListener, afterSeq = 0): () => void {
    for (const { event, frame } of this.replay(afterSeq)) {
      try {
        listener(event, frame)
      } catch {
        break
      }
    }
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  events(): SessionEvent[] {
    return this.#entries.map((entry) => entry.event)
  }

  clearListeners(): void {
    this.#listeners.clear()
  }
}

function frameOf(entry: Entry): string {
  return (entry.frame ??= `{"type":"event","event":${JSON.stringify(entry.event)}}`)
}
