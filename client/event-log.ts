/**
 * The events a session handle received: in seq order, each exactly once (an event at or below the
 * highest seq held is a replay's overlap and is dropped), with waits that start after a given seq
 * and a live stream. Found by seq with a binary search, since the list only grows at its end.
 */
import type { SessionEvent } from '../gateway/protocol/index.ts'
import type { SignalLike } from './transport.ts'
import { Waiters, type WaitOptions } from './waits.ts'

export class EventLog {
  readonly events: SessionEvent[] = []
  #waits = new Waiters<SessionEvent>()
  #lastSeq: number

  constructor(afterSeq: number) {
    this.#lastSeq = afterSeq
  }

  get lastSeq(): number {
    return this.#lastSeq
  }

  /** Adds an event above the highest seq held; false (and nothing kept) for a duplicate or a malformed one. */
  add(event: SessionEvent): boolean {
    if (typeof event?.seq !== 'number' || event.seq <= this.#lastSeq) return false
    this.#lastSeq = event.seq
    this.events.push(event)
    this.#waits.offer(event)
    return true
  }

  /** Ends every pending and later wait with `error`. */
  end(error: Error): void {
    this.#waits.end(error)
  }

  /** The first event after `afterSeq` that `match` accepts: from the log, else when it arrives. */
  waitFor(match: (event: SessionEvent) => boolean, afterSeq: number, what: string, options: WaitOptions): Promise<SessionEvent> {
    const accept = (event: SessionEvent) => event.seq > afterSeq && match(event)
    for (let i = this.#indexAfter(afterSeq); i < this.events.length; i++) {
      if (accept(this.events[i])) return Promise.resolve(this.events[i])
    }
    return this.#waits.wait(accept, what, options)
  }

  /** Events after `afterSeq`, then live ones, until the log ends or `signal` aborts. */
  async *stream(afterSeq: number, signal?: SignalLike): AsyncGenerator<SessionEvent, void, undefined> {
    let index = this.#indexAfter(afterSeq)
    for (;;) {
      if (index < this.events.length) {
        yield this.events[index++]
        continue
      }
      if (signal?.aborted) return
      try {
        await this.#waits.wait(() => true, 'event', { signal })
      } catch {
        return
      }
    }
  }

  /** The index of the first event with a seq above `seq`. */
  #indexAfter(seq: number): number {
    let low = 0
    let high = this.events.length
    while (low < high) {
      const mid = (low + high) >>> 1
      if (this.events[mid].seq <= seq) low = mid + 1
      else high = mid
    }
    return low
  }
}
