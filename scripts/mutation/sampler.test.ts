/**
 * The sampler: deterministic per seed, different across seeds, every file (module) represented,
 * the rest in proportion; and the source filter leaves out tests and test support.
 */
import { describe, expect, it } from 'vitest'
import { allocate, chooseSeed, sample } from './sampler.ts'
import { isMutable, moduleOf } from './sources.ts'

const mutants = [
  ...Array.from({ length: 600 }, (_, i) => ({ key: `big-${i}`, file: 'gateway/server/big.ts' })),
  ...Array.from({ length: 300 }, (_, i) => ({ key: `mid-${i}`, file: 'gateway/sessions/mid.ts' })),
  ...Array.from({ length: 3 }, (_, i) => ({ key: `tiny-${i}`, file: 'gateway/protocol/tiny.ts' })),
  { key: 'one', file: 'gateway/bin.ts' },
]

describe('sample', () => {
  it('is the same for the same seed and differs for another', () => {
    const a = sample(mutants, 50, 7).map((m) => m.key)
    expect(sample([...mutants].reverse(), 50, 7).map((m) => m.key)).toEqual(a)
    expect(sample(mutants, 50, 8).map((m) => m.key)).not.toEqual(a)
  })

  it('covers every file with the floor and shares the rest in proportion', () => {
    const picked = sample(mutants, 50, 1)
    const per = (f: string) => picked.filter((m) => m.file === f).length
    expect(picked.length).toBe(50)
    expect(per('gateway/bin.ts')).toBe(1)
    expect(per('gateway/protocol/tiny.ts')).toBeGreaterThanOrEqual(1)
    expect(per('gateway/server/big.ts')).toBeGreaterThan(per('gateway/sessions/mid.ts'))
    expect(Math.abs(per('gateway/server/big.ts') - 2 * per('gateway/sessions/mid.ts'))).toBeLessThanOrEqual(2)
    expect(new Set(picked.map((m) => m.key)).size).toBe(50)
  })

  it('never allocates more than a file holds, and takes everything when asked for more', () => {
    const quota = allocate(new Map([['a', 2], ['b', 100]]), 60, 5)
    expect(quota.get('a')).toBe(2)
    expect(quota.get('b')).toBe(58)
    expect(sample(mutants, 10_000, 3)).toHaveLength(mutants.length)
  })
})

describe('the mutated sources', () => {
  it('are gateway sources without tests, test support or declarations', () => {
    expect(isMutable('gateway/server/http.ts')).toBe(true)
    expect(isMutable('gateway/server/http.test.ts')).toBe(false)
    expect(isMutable('gateway/test/helpers.ts')).toBe(false)
    expect(isMutable('gateway/queue/testing/scripted-runner.ts')).toBe(false)
    expect(isMutable('gateway/types.d.ts')).toBe(false)
    expect(isMutable('gateway/queue/adapter-contract.ts', "import { it } from 'vitest'")).toBe(false)
    expect(moduleOf('gateway/server/routes/jobs.ts')).toBe('gateway/server/routes')
  })
})

describe('the run seed', () => {
  it('is fresh and random when none is given, and replays the given one', () => {
    const drawn = [chooseSeed(undefined), chooseSeed(undefined), chooseSeed(undefined)]
    for (const d of drawn) expect(d.fresh).toBe(true)
    expect(new Set(drawn.map((d) => d.seed)).size).toBeGreaterThan(1)
    expect(chooseSeed('42')).toEqual({ seed: 42, fresh: false })
    expect(() => chooseSeed('x')).toThrow(/--seed/)
  })

  it('draws a different sample on each fresh run, and the same one again from its printed seed', () => {
    const a = chooseSeed(undefined, () => 1523378604)
    const b = chooseSeed(undefined, () => 77)
    const first = sample(mutants, 50, a.seed).map((m) => m.key)
    expect(sample(mutants, 50, b.seed).map((m) => m.key)).not.toEqual(first)
    expect(sample(mutants, 50, chooseSeed(String(a.seed)).seed).map((m) => m.key)).toEqual(first)
  })
})
