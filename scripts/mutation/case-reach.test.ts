/**
 * Which kit cases reach a mutant (case-reach.ts): hits land on the case running, and on the one
 * before it (async work bleeds across a case boundary), with the runner's parallel cases on each
 * running one; a hit at start-up means every case; a probe's write window widens each hit; and
 * the markers and the probes (reach.ts's prelude) write the lines the attribution reads.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { attributeHits, caseMarkers, HIT_WINDOW_MS, readCaseReach, type CaseReach } from './case-reach.ts'
import { generateMutants } from './mutator.ts'
import { instrument, REACH_ENV } from './reach.ts'

const start = (id: string, at: number) => `#case start ${id} ${at}`
const end = (id: string, at: number) => `#case end ${id} ${at}`
const hit = (probe: number, at: number) => `${probe} ${at}`
const ids = (r: CaseReach | undefined) => (r === 'all' || r === undefined ? r : [...r].sort())

describe('case reach: attributing probe hits to kit cases', () => {
  it('one case at a time: a hit belongs to the case running and the one before it, never to a later or an older one', () => {
    const text = [
      start('a', 1000), hit(1, 1100), end('a', 2000),
      start('b', 2000), hit(2, 2500), end('b', 3000),
      start('c', 3000), hit(3, 3500), end('c', 4000),
      start('d', 4000), end('d', 5000),
    ].join('\n')
    const reach = attributeHits(text)
    expect(ids(reach.get(1))).toEqual(['a'])
    // In b: b, and a (a's async work may still be running); not c, which had not started.
    expect(ids(reach.get(2))).toEqual(['a', 'b'])
    // In c: c and b, not a (two boundaries back).
    expect(ids(reach.get(3))).toEqual(['b', 'c'])
    expect(reach.has(4)).toBe(false)
  })

  it('a hit after the last case ended still belongs to that case (its async work), and hits of one probe add up', () => {
    const text = [start('a', 1000), hit(7, 1500), end('a', 2000), start('b', 2000), end('b', 3000), hit(7, 9000)].join('\n')
    expect(ids(attributeHits(text).get(7))).toEqual(['a', 'b'])
  })

  it('a hit before the first case started (the gateway starting) means every case, whatever later hits say', () => {
    const text = [hit(1, 500), start('a', 1000), hit(1, 1200), hit(2, 1200), end('a', 2000)].join('\n')
    const reach = attributeHits(text)
    expect(reach.get(1)).toBe('all')
    expect(ids(reach.get(2))).toEqual(['a'])
  })

  it('no case markers at all, or a hit without a time: every case', () => {
    expect(attributeHits([hit(1, 1000)].join('\n')).get(1)).toBe('all')
    expect(attributeHits([start('a', 1000), '3', end('a', 2000)].join('\n')).get(3)).toBe('all')
  })

  it('parallel cases: a hit belongs to every case running then, and to one that ended until the case started after it ends', () => {
    const text = [
      start('p', 1000), start('q', 1000), start('r', 1000),
      end('p', 1500), start('s', 1500),
      hit(1, 1700),
      end('q', 2000), start('t', 2000),
      end('s', 2600), start('u', 2600),
      hit(2, 2800),
      end('r', 3000), end('t', 3000), end('u', 3000),
    ].join('\n')
    const reach = attributeHits(text)
    // p ended, but s (started after it) has not: p still live.
    expect(ids(reach.get(1))).toEqual(['p', 'q', 'r', 's'])
    // p is over (s ended at 2600); q is live until t ends; s until u ends.
    expect(ids(reach.get(2))).toEqual(['q', 'r', 's', 't', 'u'])
  })

  it('a case unsupported before it sent anything (idle) takes no hit and does not cut the bleed of the case before it', () => {
    const text = [
      start('a', 1000), end('a', 2000),
      start('x', 2000), `${end('x', 2000)} idle`,
      start('b', 2000), hit(1, 2500), end('b', 3000),
    ].join('\n')
    expect(ids(attributeHits(text).get(1))).toEqual(['a', 'b'])
  })

  it('a hit stands for the probe firing again during its write window: a case starting inside the window gets it', () => {
    const text = [
      start('a', 1000), end('a', 2000),
      start('b', 2000), hit(1, 2900), end('b', 3000),
      start('c', 2900 + HIT_WINDOW_MS - 1), end('c', 5000),
      start('d', 6000), end('d', 7000),
    ].join('\n')
    expect(ids(attributeHits(text).get(1))).toEqual(['a', 'b', 'c'])
  })

  describe('the writers', () => {
    let dir: string | undefined
    afterEach(async () => {
      vi.restoreAllMocks()
      delete process.env[REACH_ENV]
      delete (globalThis as { __mutationHits?: unknown }).__mutationHits
      if (dir) await rm(dir, { recursive: true, force: true })
    })

    it('the runner hooks and the probes write lines the attribution reads; a probe writes once per window', async () => {
      dir = await mkdtemp(join(tmpdir(), 'case-reach-'))
      const file = join(dir, 'hits.txt')
      const text = `export function g(x: boolean) {\n  if (x) return 404\n  return 200\n}\n`
      const ms = generateMutants('gateway/r.ts', text)
      const pick = ms.findIndex((m) => m.original === '404')
      const js = instrument(text, [{ id: pick, m: ms[pick] }])
      // The prelude alone (the instrumented file's first line), as the gateway runs it.
      const probe = new Function(`${js.slice(0, js.indexOf('\n'))}; return __mutationProbe`)() as (ids: number[]) => void
      process.env[REACH_ENV] = file
      let now = 9000
      vi.spyOn(Date, 'now').mockImplementation(() => now)
      const hooks = caseMarkers(file)
      probe([pick]) // start-up
      now = 10_000
      hooks.onStart({ id: 'a' })
      probe([pick])
      now += HIT_WINDOW_MS - 1
      probe([pick]) // inside the window: not written again
      now += 1
      probe([pick])
      hooks.onResult({ id: 'a', outcome: 'pass', wireLog: [{}] })
      hooks.onStart({ id: 'x' })
      hooks.onResult({ id: 'x', outcome: 'unsupported', wireLog: [] })
      const lines = (await readFile(file, 'utf8')).trim().split('\n')
      expect(lines).toEqual([`${pick} 9000`, '#case start a 10000', `${pick} 10000`, `${pick} ${10_000 + HIT_WINDOW_MS}`, `#case end a ${10_000 + HIT_WINDOW_MS}`, `#case start x ${10_000 + HIT_WINDOW_MS}`, `#case end x ${10_000 + HIT_WINDOW_MS} idle`])
      expect((await readCaseReach(file)).get(pick)).toBe('all')
      expect((await readCaseReach(join(dir, 'absent.txt'))).size).toBe(0)
    })
  })
})
