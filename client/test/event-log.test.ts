/**
 * The handle's event log on its own: each seq once (a replay's overlap dropped), waits that start
 * after a seq whether the event is already held or still to come, a stream from any seq, and the
 * end of the log ending waits and streams.
 */
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../index.ts'
import { EventLog } from '../event-log.ts'

const event = (seq: number, type = 'status_changed'): SessionEvent => ({ type, status: 'idle', seq, ts: seq }) as SessionEvent

describe('EventLog', () => {
  it('keeps each seq once, in order; an overlap at or below the last seq is dropped', () => {
    const log = new EventLog(2)
    expect([1, 2, 3, 4, 3, 5, 4].map((seq) => log.add(event(seq)))).toEqual([false, false, true, true, false, true, false])
    expect(log.events.map((e) => e.seq)).toEqual([3, 4, 5])
    expect(log.lastSeq).toBe(5)
  })

  it('a wait matches only after its seq: from what is held, else when it arrives', async () => {
    const log = new EventLog(0)
    for (const seq of [1, 2, 3]) log.add(event(seq, seq === 2 ? 'turn_result' : 'status_changed'))
    const isTurn = (e: SessionEvent) => e.type === 'turn_result'
    expect((await log.waitFor(isTurn, 0, 'turn', {})).seq).toBe(2)
    const later = log.waitFor(isTurn, 2, 'turn', {})
    log.add(event(4))
    log.add(event(5, 'turn_result'))
    expect((await later).seq).toBe(5)
  })

  it('streams from a seq, live, until the log ends; the end rejects pending and later waits', async () => {
    const log = new EventLog(0)
    for (const seq of [1, 2, 3]) log.add(event(seq))
    const seen: number[] = []
    const streaming = (async () => { for await (const e of log.stream(1)) seen.push(e.seq) })()
    const pending = log.waitFor(() => false, 0, 'nothing', {})
    log.add(event(4))
    await new Promise((r) => setTimeout(r, 0))
    log.end(new Error('closed'))
    await streaming
    expect(seen).toEqual([2, 3, 4])
    await expect(pending).rejects.toThrow('closed')
    await expect(log.waitFor(() => true, 9, 'any', {})).rejects.toThrow('closed')
  })
})
