import { describe, expect, it } from 'vitest'
import { runCases } from '../runner.ts'
import { ClauseViolation, NonStrict, type Case, type TargetManifest } from '../types.ts'

const manifest: TargetManifest = { baseUrl: 'http://127.0.0.1:9/v1', tokens: { operator: 't' }, profiles: {}, features: [], absent: [] }
const make = (id: string, run: Case['run'], extra: Partial<Case> = {}): Case => ({ id, title: id, section: 's', clauses: ['s.1'], requires: [], run, ...extra })

describe('the case runner', () => {
  it('classifies outcomes: pass, fail with the clause, non-strict, error, unsupported', async () => {
    const results = await runCases({
      manifest, concurrency: 2, timeoutMs: 1000, seed: 1, repeat: 1,
      cases: [
        make('ok', async () => {}),
        make('violated', async () => { throw new ClauseViolation('errors.1', '404', '403') }),
        make('open', async () => { throw new NonStrict('answered 500') }),
        make('broken', async () => { throw new Error('ECONNRESET') }),
        make('needs-queue', async () => {}, { requires: ['queue'] }),
      ],
    })
    expect(results.map((r) => [r.id, r.outcome])).toEqual([['ok', 'pass'], ['violated', 'fail'], ['open', 'non-strict'], ['broken', 'error'], ['needs-queue', 'unsupported']])
    expect(results[1].message).toBe('errors.1: expected 404, got 403')
  })

  it('runs a global case that spends the daily budget after every other global case, whatever the list order', async () => {
    const order: string[] = []
    const spending: TargetManifest = { ...manifest, features: ['spendDailyBudget'] }
    await runCases({
      manifest: spending, concurrency: 2, timeoutMs: 1000, seed: 1, repeat: 1,
      cases: [
        make('spends', async () => { order.push('spends') }, { isolation: 'global', requires: ['spendDailyBudget'] }),
        make('global-after', async () => { order.push('global-after') }, { isolation: 'global' }),
        make('parallel', async () => { order.push('parallel') }),
      ],
    })
    expect(order).toEqual(['parallel', 'global-after', 'spends'])
  })

  it('runs midRun once between two cases: after the first half of the per-session cases ended, before the rest and the global ones start', async () => {
    const events: string[] = []
    let running = 0
    const tracked = (id: string) => make(id, async () => {
      running++
      events.push(`start ${id}`)
      await new Promise((r) => setTimeout(r, 5))
      running--
    })
    await runCases({
      manifest, concurrency: 3, timeoutMs: 1000, seed: 1, repeat: 1,
      cases: [tracked('a'), tracked('b'), tracked('c'), tracked('d'), tracked('e'), make('g', async () => { events.push('start g') }, { isolation: 'global' })],
      midRun: async () => { events.push(`midRun with ${running} running`) },
    })
    expect(events).toEqual(['start a', 'start b', 'start c', 'midRun with 0 running', 'start d', 'start e', 'start g'])
  })

  it('marks a case flaky when repeats disagree, and times out a hanging case as error', async () => {
    let n = 0
    const results = await runCases({
      manifest, concurrency: 1, timeoutMs: 200, seed: 1, repeat: 3,
      cases: [
        make('alternating', async () => { if (n++ % 2) throw new ClauseViolation('x.1', 'a', 'b') }),
        make('hangs', () => new Promise(() => {})),
      ],
    })
    expect(results[0].outcome).toBe('flaky')
    expect(results[0].repeats).toEqual(['pass', 'fail', 'pass'])
    expect(results[1].outcome).toBe('error')
    // A whole case may take three waits (of --timeout-ms) plus its longest declared timer.
    expect(results[1].message).toMatch(/timed out after 600 ms/)
  })

  it('gives each repeat its own reproducible seed, so repeats never share generated names', async () => {
    const draws = async () => {
      const seen: number[] = []
      await runCases({ manifest, concurrency: 1, timeoutMs: 1000, seed: 7, repeat: 3, cases: [make('draw', async (ctx) => { seen.push(ctx.random()) })] })
      return seen
    }
    const first = await draws()
    expect(new Set(first).size).toBe(3)
    expect(await draws()).toEqual(first)
    const single: number[] = []
    await runCases({ manifest, concurrency: 1, timeoutMs: 1000, seed: 7, repeat: 1, cases: [make('draw', async (ctx) => { single.push(ctx.random()) })] })
    expect(single[0]).toBe(first[0]) // the first repeat draws exactly what a single run draws
  })

  it('runs global cases alone, after the per-session ones', async () => {
    const order: string[] = []
    let running = 0
    let overlapped = false
    const track = (id: string) => async () => {
      running++
      if (id === 'global' && running > 1) overlapped = true
      await new Promise((r) => setTimeout(r, 10))
      order.push(id)
      running--
    }
    await runCases({ manifest, concurrency: 4, timeoutMs: 1000, seed: 1, repeat: 1, cases: [make('global', track('global'), { isolation: 'global' }), make('a', track('a')), make('b', track('b'))] })
    expect(order.at(-1)).toBe('global')
    expect(overlapped).toBe(false)
  })

  it('starts the per-session cases expected to take longest first (declared timers, CLI engines), the rest in list order, results in list order', async () => {
    const started: string[] = []
    const timed = { ...manifest, timers: { retentionMaxAgeMs: 3000, parkDelayMs: 100 } }
    const track = (id: string, requires: string[] = []) => make(id, async () => { started.push(id) }, { requires })
    const results = await runCases({
      manifest: { ...timed, features: ['cli_primary', 'queue'] }, concurrency: 1, timeoutMs: 1000, seed: 1, repeat: 1,
      cases: [track('quick'), track('park', ['timer:parkDelayMs']), track('cli', ['cli_primary']), track('quick-2'), track('retention', ['queue', 'timer:retentionMaxAgeMs'])],
    })
    expect(started).toEqual(['retention', 'cli', 'park', 'quick', 'quick-2'])
    expect(results.map((r) => r.id)).toEqual(['quick', 'park', 'cli', 'quick-2', 'retention'])
  })
})
