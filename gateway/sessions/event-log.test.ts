import { describe, expect, it } from 'vitest'
import { EventLog } from './event-log.ts'

const text = (t: string) => ({ type: 'assistant_message' as const, message: { role: 'assistant' as const, content: t } })

describe('EventLog', () => {
  it('numbers events from 1 and stamps ts', () => {
    const log = new EventLog()
    const a = log.append({ type: 'status_changed', status: 'idle' }, 1000)
    const b = log.append(text('x'), 1001)
    expect([a.seq, b.seq]).toEqual([1, 2])
    expect(a.ts).toBe(1000)
    expect(log.lastSeq).toBe(2)
  })

  it('replays strictly after afterSeq, then delivers live events once', () => {
    const log = new EventLog()
    for (let i = 0; i < 5; i++) log.append(text(`m${i}`))
    const seen: number[] = []
    log.subscribe((e) => seen.push(e.seq), 3)
    log.append(text('live'))
    expect(seen).toEqual([4, 5, 6])
  })

  it('skips content strictly below the latest reset but replays state-bearing events', () => {
    const log = new EventLog()
    log.append(text('old'))                                   // 1 content
    log.append({ type: 'model_changed', model: 'm2' })        // 2 state
    log.append({ type: 'conversation_reset' })                // 3 reset
    log.append(text('new'))                                   // 4 content
    const replayed = [...log.replay(0)].map(({ event }) => `${event.seq}:${event.type}`)
    expect(replayed).toEqual(['2:model_changed', '3:conversation_reset', '4:assistant_message'])
  })

  it('serialises a frame once and shares it', () => {
    const log = new EventLog()
    log.append(text('x'))
    const [first] = [...log.replay(0)]
    expect(first.frame()).toBe(first.frame())
    expect(JSON.parse(first.frame())).toEqual({ type: 'event', event: first.event })
  })

  it('lists events leaving out the given types', () => {
    const log = new EventLog()
    log.append({ type: 'stream_delta', event: { type: 'x' }, parentToolUseId: null } as never)
    log.append(text('a'))
    for (const entry of log.replay(0)) entry.frame()
    expect(log.events(new Set(['stream_delta'])).map((e) => `${e.seq}:${e.type}`)).toEqual(['2:assistant_message'])
    expect(log.events()).toHaveLength(2)
  })

  it('restores a log and continues its numbering', () => {
    const log = new EventLog()
    log.append(text('a'))
    log.append(text('b'))
    const restored = new EventLog(log.events(), log.lastSeq)
    expect(restored.append(text('c')).seq).toBe(3)
    expect([...restored.replay(1)].map(({ event }) => event.seq)).toEqual([2, 3])
  })

  it('replays every event after afterSeq across a rebuild numbering on after its reservation (events.10)', () => {
    const log = new EventLog()
    for (const t of ['a', 'b', 'c']) log.append(text(t))
    // A rebuild continues after the write-ahead reservation: seqs 4..1003 were never logged here.
    const rebuilt = new EventLog(log.events(), 1003)
    for (const t of ['lost turn ended', 'd', 'e', 'f', 'g', 'h']) rebuilt.append(text(t))
    for (const afterSeq of [0, 2, 3, 5, 6, 1003, 1004, 1006, 1009]) {
      const seen: number[] = []
      rebuilt.subscribe((event) => seen.push(event.seq), afterSeq)()
      const expected = [1, 2, 3, 1004, 1005, 1006, 1007, 1008, 1009].filter((seq) => seq > afterSeq)
      expect(seen).toEqual(expected)
      expect([...rebuilt.replay(afterSeq)].map(({ event }) => event.seq)).toEqual(expected)
    }
  })

  it('keeps delivering to other listeners when one throws', () => {
    const log = new EventLog()
    const seen: number[] = []
    log.subscribe(() => { throw new Error('bad listener') })
    log.subscribe((e) => seen.push(e.seq))
    log.append(text('x'))
    expect(seen).toEqual([1])
  })
})
