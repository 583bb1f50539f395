import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { kitScope } from './kit-scope.ts'
import { dutyRates, kitRates, tabulate, writeReport, type MutantResult, type MutationReport } from './report.ts'
import { combine, rescore } from './rescore.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

const result = (key: string, status: 'killed' | 'survived' | 'unreached', extra: Partial<MutantResult> = {}): MutantResult => ({
  mutant: { key, file: key.split('|')[0], line: 1, operator: 'literal', fn: 'f', original: '1', replacement: '2' },
  diff: '', kit: { status, killedBy: status === 'killed' ? ['case-a (fail)'] : [], ms: 1, ran: 1 }, ...extra,
})

const report = (results: MutantResult[], sampledKeys?: string[]): MutationReport => ({
  seed: 1, startedAt: '2026-11-25T00:00:00.000Z', wallMs: 0, jobs: 1, loadAverage: [0, 0, 0], generated: 10, sampled: results.length, sampledKeys,
  judged: results.length, npmTestColumn: '', ...tabulate([], [], results), results,
})

describe('the kit scope (outside-kit.json)', () => {
  it('matches a file, a glob and a single key, and nothing else', () => {
    const scope = kitScope({ 'gateway/cli.ts': 'cli', 'gateway/server/metrics*.ts': 'metrics', 'gateway/commands/dev.ts|devCommand|literal|x|0': 'one' })
    expect(scope('gateway/cli.ts|main|literal|a|0', 'gateway/cli.ts')).toBe('cli')
    expect(scope('k', 'gateway/server/metrics-wiring.ts')).toBe('metrics')
    expect(scope('gateway/commands/dev.ts|devCommand|literal|x|0', 'gateway/commands/dev.ts')).toBe('one')
    expect(scope('gateway/commands/dev.ts|devCommand|literal|y|0', 'gateway/commands/dev.ts')).toBeUndefined()
    expect(scope('k', 'gateway/server/routes/metrics.ts')).toBeUndefined()
  })

  it('names only files that exist, each with a reason', () => {
    const entries = JSON.parse(readFileSync(join(ROOT, 'scripts/mutation/outside-kit.json'), 'utf8')) as Record<string, string>
    for (const [pattern, reason] of Object.entries(entries)) {
      expect(reason.length, pattern).toBeGreaterThan(20)
      if (!pattern.split('#')[0].includes('*')) expect(existsSync(join(ROOT, pattern.split(/[|#]/)[0])), pattern).toBe(true)
    }
  })

  it('leaves outside mutants out of the in-reach rate only', () => {
    const rows = tabulate([], [], [
      result('gateway/a.ts|f|literal|1|0', 'killed'),
      result('gateway/a.ts|f|literal|2|0', 'survived'),
      result('gateway/a.ts|f|literal|3|0', 'unreached', { outsideKit: 'cli' }),
      result('gateway/a.ts|f|literal|4|0', 'survived', { equivalent: 'same bytes' }),
    ])
    expect(kitRates(rows.totals)).toEqual({ inReach: [1, 2], all: [1, 3] })
  })
})

describe('rescore over several runs', () => {
  it('takes the newest verdict per key and keeps an older npm test verdict only for an unchanged kit verdict', () => {
    const old = report([
      result('gateway/a.ts|f|literal|1|0', 'survived', { npmTest: { killed: true, via: 'related tests' } }),
      result('gateway/a.ts|f|literal|2|0', 'survived', { npmTest: { killed: false, via: 'related tests' } }),
    ])
    const later = report([result('gateway/a.ts|f|literal|1|0', 'survived'), result('gateway/a.ts|f|literal|2|0', 'killed')])
    const merged = new Map(combine([old, later]).map((r) => [r.mutant.key, r]))
    expect(merged.get('gateway/a.ts|f|literal|1|0')?.npmTest?.killed).toBe(true)
    expect(merged.get('gateway/a.ts|f|literal|2|0')?.kit?.status).toBe('killed')
    expect(merged.get('gateway/a.ts|f|literal|2|0')?.npmTest).toBeUndefined()
  })

  it('scores the kit on the spec-observable mutants and npm test on the rest, leaving an unjudged one pending', () => {
    const suite = (key: string, npm?: boolean): MutantResult => {
      const { kit: _k, ...r } = result(key, 'survived')
      return { ...r, outsideKit: 'operator surface: x', ...(npm === undefined ? {} : { npmTest: { killed: npm, via: 'related tests' as const } }) }
    }
    const { totals } = tabulate([], [], [
      result('gateway/a.ts|f|literal|1|0', 'killed'), result('gateway/a.ts|f|literal|2|0', 'survived', { npmTest: { killed: true, via: 'related tests' } }),
      result('gateway/a.ts|f|literal|3|0', 'survived', { equivalent: 'equivalent: x' }),
      suite('gateway/cli.ts|m|literal|4|0', true), suite('gateway/cli.ts|m|literal|5|0', false), suite('gateway/cli.ts|m|literal|6|0'),
    ])
    expect(dutyRates(totals)).toEqual({ kit: [1, 2], npmRest: [1, 2], npmKitSurvivors: [1, 1] })
    expect(totals.pending).toBe(1)
    expect(totals.judged).toBe(5)
  })

  it('keeps the earlier kit verdict when a later --npm-only run judged the npm test column alone', () => {
    const old = report([result('gateway/a.ts|f|literal|1|0', 'survived', { reachedOn: ['serve'], npmTest: { killed: false, via: 'related tests' } })])
    const { kit: _k, ...npmOnly } = result('gateway/a.ts|f|literal|1|0', 'survived', { npmTest: { killed: true, via: 'related tests' } })
    const [merged] = combine([old, report([npmOnly])])
    expect(merged.kit?.status).toBe('survived')
    expect(merged.reachedOn).toEqual(['serve'])
    expect(merged.npmTest?.killed).toBe(true)
  })

  it('restricts the report to the sample of record and applies the current outside-kit file', async () => {
    const a = await mkdtemp(join(tmpdir(), 'rescore-a-'))
    const b = await mkdtemp(join(tmpdir(), 'rescore-b-'))
    try {
      await writeReport(a, report([result('gateway/cli.ts|main|literal|1|0', 'survived'), result('gateway/x.ts|f|literal|1|0', 'survived')]))
      await writeReport(b, report([result('gateway/x.ts|f|literal|1|0', 'killed'), result('gateway/y.ts|f|literal|1|0', 'killed')]))
      const reviewed = Object.keys(JSON.parse(readFileSync(join(ROOT, 'scripts/mutation/equivalents.json'), 'utf8')))[0]
      const out = await rescore(ROOT, [a, b], { out: b, keys: ['gateway/cli.ts|main|literal|1|0', 'gateway/x.ts|f|literal|1|0', reviewed] })
      expect(out.results.map((r) => r.mutant.key)).toEqual(['gateway/cli.ts|main|literal|1|0', 'gateway/x.ts|f|literal|1|0', reviewed].sort())
      // A reviewed equivalent joins the report without a run, and leaves every rate's denominator.
      expect(out.results.find((r) => r.mutant.key === reviewed)?.equivalent).toBeTruthy()
      expect(out.results[0].outsideKit).toMatch(/command/)
      expect(kitRates(out.totals)).toEqual({ inReach: [1, 1], all: [1, 2] })
      expect(await readFile(join(b, 'summary.txt'), 'utf8')).toContain('1/1 non-equivalent mutants in the kit\'s reach killed (100.0%)')
    } finally {
      await rm(a, { recursive: true, force: true })
      await rm(b, { recursive: true, force: true })
    }
  })
})
