import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../protocol/index.ts'
import { SEQ_RESERVATION, WriteAheadLedger } from './write-ahead.ts'

const event = (seq: number, type = 'assistant_message') => ({ type, seq, ts: 0 }) as unknown as SessionEvent

function ledger() {
  const reservations: Array<[string, number]> = []
  return { reservations, ledger: new WriteAheadLedger((id, upTo) => void reservations.push([id, upTo])) }
}

describe('WriteAheadLedger', () => {
  it('holds a turn_result until a record containing it is durable, and lets other events through before any record exists', async () => {
    const { ledger: l } = ledger()
    expect(l.hold('s', event(1))).toBeUndefined()
    let delivered = false
    void l.hold('s', event(5, 'turn_result'))!.then(() => { delivered = true })
    l.durable('s', 4, 4 + SEQ_RESERVATION)
    await Promise.resolve()
    expect(delivered).toBe(false)
    l.durable('s', 6, 6 + SEQ_RESERVATION)
    await Promise.resolve()
    expect(delivered).toBe(true)
    expect(l.hold('s', event(5, 'turn_result'))).toBeUndefined()
  })

  it('a record being written (a woken park kept as live) holds the seqs past it without asking for another write', async () => {
    const { ledger: l, reservations } = ledger()
    l.writing('s', 10, 10 + SEQ_RESERVATION)
    expect(l.hold('s', event(10))).toBeUndefined()
    let delivered = false
    void l.hold('s', event(11))!.then(() => { delivered = true })
    expect(reservations).toEqual([])
    await Promise.resolve()
    expect(delivered).toBe(false)
    l.durable('s', 10, 10 + SEQ_RESERVATION)
    await Promise.resolve()
    expect(delivered).toBe(true)
    expect(l.hold('s', event(12))).toBeUndefined()
  })

  it('holds a seq past the durable reservation and asks for one larger reservation, once', async () => {
    const { ledger: l, reservations } = ledger()
    l.durable('s', 10, 20)
    expect(l.hold('s', event(20))).toBeUndefined()
    const first = l.hold('s', event(21))
    const second = l.hold('s', event(22))
    expect(first).toBeDefined()
    expect(second).toBeDefined()
    expect(reservations).toEqual([['s', 21 + SEQ_RESERVATION]])
    l.durable('s', 10, 21 + SEQ_RESERVATION)
    await expect(Promise.all([first, second])).resolves.toBeDefined()
    expect(l.hold('s', event(22))).toBeUndefined()
  })

  it('releases every waiter when a write fails, and forgets a session entirely', async () => {
    const { ledger: l } = ledger()
    const waiting = l.hold('s', event(3, 'turn_result'))!
    l.release('s')
    await expect(waiting).resolves.toBeUndefined()
    l.durable('s', 3, 10)
    l.forget('s')
    // Forgotten: nothing durable is known, so a turn_result waits again for a new record.
    expect(l.hold('s', event(3, 'turn_result'))).toBeDefined()
    l.releaseAll()
  })
})
