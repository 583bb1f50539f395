import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { playLeg } from './play.ts'

describe('playLeg sleeps', () => {
  it('leave no abort listener behind on the request signal, however many a paced stream takes', async () => {
    const abort = new AbortController()
    const steps = Array.from({ length: 40 }, (_, i) => (i % 2 ? { type: 'sleep' as const, ms: 1 } : { type: 'text' as const, text: 'x' }))
    const texts: string[] = []
    for await (const out of playLeg(steps, 1, abort.signal, 'c')) if (out.kind === 'text') texts.push(out.text)
    expect(texts).toHaveLength(20)
    expect(getEventListeners(abort.signal, 'abort')).toHaveLength(0)
  })

  it('end at once when the request is aborted mid-sleep', async () => {
    const abort = new AbortController()
    const leg = playLeg([{ type: 'text', text: 'a' }, { type: 'sleep', ms: 60_000 }, { type: 'text', text: 'b' }], 1, abort.signal, 'c')
    expect((await leg.next()).value).toMatchObject({ kind: 'text', text: 'a' })
    const next = leg.next()
    abort.abort()
    expect((await next).done).toBe(true)
  })
})
