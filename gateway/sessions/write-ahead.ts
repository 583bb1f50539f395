/**
 * Write-ahead for `persistLive`: what a client has been told is durable before it is
 * told. Two rules, both enforced by holding a client's frames (in order) until a store write lands:
 *
 * - a `turn_result` is delivered only once a record whose snapshot contains it is durable, so a
 *   turn a client saw complete survives kill -9;
 * - a seq is delivered only once a durable record reserves it (`seqReserved`), and a rebuild
 *   numbers on after the reservation, so no seq a client saw is ever given to another event. The
 *   reservation runs SEQ_RESERVATION ahead, so streaming pays one small write per block, not per
 *   event. The cost is a gap in numbering after a crash: continuing right after the snapshot
 *   would hand the seqs of the lost, partly-seen turn to new events, and a client reconnecting
 *   with its own `afterSeq` would silently skip them.
 *
 * The ledger only tracks what is durable and who waits; the parking manager does the writes.
 */
import type { SessionEvent } from '../protocol/index.ts'

export const SEQ_RESERVATION = 1000

interface Durable {
  /** Snapshot seq of the newest durable record. */
  seq: number
  /** Highest seq a durable record reserves. */
  reserved: number
}

interface Waiter {
  seq: number
  kind: 'turn' | 'seq'
  resolve: () => void
}

export class WriteAheadLedger {
  #durable = new Map<string, Durable>()
  #waiters = new Map<string, Waiter[]>()
  #reserving = new Map<string, number>()
  #reserve: (id: string, upTo: number) => void

  /** `reserve` starts a write of the session's newest record reserving seqs up to `upTo`. */
  constructor(reserve: (id: string, upTo: number) => void) {
    this.#reserve = reserve
  }

  /** Undefined: deliver `event` now. Otherwise it (and what follows it) waits for the promise. */
  hold(id: string, event: SessionEvent): Promise<void> | undefined {
    const durable = this.#durable.get(id)
    if (event.type === 'turn_result') {
      if (durable && durable.seq >= event.seq) return undefined
      return this.#wait(id, event.seq, 'turn')
    }
    // Nothing durable yet: after a crash the session would not exist, so no seq can be reused.
    if (!durable || event.seq <= durable.reserved) return undefined
    if ((this.#reserving.get(id) ?? 0) < event.seq) {
      const upTo = event.seq + SEQ_RESERVATION
      this.#reserving.set(id, upTo)
      this.#reserve(id, upTo)
    }
    return this.#wait(id, event.seq, 'seq')
  }

  /**
   * A record with snapshot `seq` reserving up to `upTo` is being written: events past `seq` wait
   * for it (and start no write of their own while it covers them).
   */
  writing(id: string, seq: number, upTo: number): void {
    const current = this.#durable.get(id)
    this.#durable.set(id, { seq: Math.max(seq, current?.seq ?? 0), reserved: Math.max(seq, current?.reserved ?? 0) })
    this.#reserving.set(id, Math.max(upTo, this.#reserving.get(id) ?? 0))
  }

  /** A record with snapshot `seq` reserving up to `reserved` is on disk. */
  durable(id: string, seq: number, reserved: number): void {
    const current = this.#durable.get(id)
    const next = { seq: Math.max(seq, current?.seq ?? 0), reserved: Math.max(reserved, seq, current?.reserved ?? 0) }
    this.#durable.set(id, next)
    if ((this.#reserving.get(id) ?? 0) <= next.reserved) this.#reserving.delete(id)
    const waiters = this.#waiters.get(id)
    if (!waiters) return
    const still = waiters.filter((w) => {
      const ready = w.kind === 'turn' ? w.seq <= next.seq : w.seq <= next.reserved
      if (ready) w.resolve()
      return !ready
    })
    if (still.length) this.#waiters.set(id, still)
    else this.#waiters.delete(id)
  }

  /**
   * A write failed or was refused: nothing more will become durable for the current waiters, and
   * holding a client forever is worse than the risk (the failure was reported). Lets them through.
   */
  release(id: string): void {
    this.#reserving.delete(id)
    const waiters = this.#waiters.get(id)
    this.#waiters.delete(id)
    for (const w of waiters ?? []) w.resolve()
  }

  /** The session is gone (deleted, parked, shut down): no state is kept for it. */
  forget(id: string): void {
    this.release(id)
    this.#durable.delete(id)
  }

  releaseAll(): void {
    for (const id of [...this.#waiters.keys()]) this.release(id)
  }

  #wait(id: string, seq: number, kind: Waiter['kind']): Promise<void> {
    return new Promise((resolve) => {
      const list = this.#waiters.get(id)
      if (list) list.push({ seq, kind, resolve })
      else this.#waiters.set(id, [{ seq, kind, resolve }])
    })
  }
}
