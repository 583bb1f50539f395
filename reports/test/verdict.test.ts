/**
 * The run's one verdict line: a `--url` run, a filtered run or one where most
 * cases are unsupported is a smoke test, never "CONFORMANT"; a fail is a fail in any run; the
 * console ends with the line and the HTML page shows it without the green of a pass.
 */
import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { ALL_CASES } from '../../conformance/cases/index.ts'
import type { CaseResult, Report } from '../../conformance/types.ts'
import { printSummary } from '../console.ts'
import { renderHtml } from '../html.ts'
import { summarise } from '../summary.ts'
import { verdictOf } from '../verdict.ts'
import { fixtureReport } from './fixtures.ts'

const SUITE = 135

function report(outcomes: Record<string, number>, run?: Report['run']): Report {
  const cases: CaseResult[] = []
  for (const [outcome, n] of Object.entries(outcomes)) {
    for (let i = 0; i < n; i++) cases.push({ id: `${outcome}-${i}`, title: 't', section: 's', clauses: [], outcome: outcome as CaseResult['outcome'], durationMs: 1, wireLog: [] })
  }
  return { ...fixtureReport('passing'), cases, summary: summarise(cases), staleBaseline: [], run }
}

describe('the verdict line', () => {
  it('labels a --url run a smoke test with how many of the suite\'s cases ran, never conformant', () => {
    const v = verdictOf(report({ pass: 44, unsupported: 91 }, { mode: 'url', suiteCases: SUITE, filters: [] }))
    expect(v.kind).toBe('smoke')
    expect(v.line).toMatch(/^SMOKE TEST: 44 of 135 cases ran, none failed: not a conformance verdict \(--url/)
  })

  it('labels a manifest run where most cases are unsupported a smoke test, and one where most ran conformant', () => {
    expect(verdictOf(report({ pass: 60, unsupported: 75 }, { mode: 'target', suiteCases: SUITE, filters: [] })).line)
      .toBe('SMOKE TEST: 60 of 135 cases ran, none failed: not a conformance verdict (75 cases unsupported where the manifest is silent: it offers too little to judge the gateway)')
    const full = verdictOf(report({ pass: 130, 'non-strict': 1, unsupported: 4 }, { mode: 'target', suiteCases: SUITE, filters: [] }))
    expect(full).toEqual({ kind: 'conformant', line: 'CONFORMANT: 131 of 135 cases ran, none failed (4 unsupported, 1 non-strict)' })
  })

  it('counts a case unsupported only for a feature the manifest lists under absent as judged, not as a thin manifest', () => {
    // Every case needing the queue, with the queue listed absent: the target says it lacks it, which the spec allows.
    const queueCases = ALL_CASES.filter((c) => c.requires.includes('queue') && c.requires.every((r) => r === 'queue' || r === 'provider' || r === 'receiver'))
    expect(queueCases.length).toBeGreaterThan(5)
    const ran = Math.ceil(SUITE / 2) - queueCases.length
    const cases: CaseResult[] = [
      ...queueCases.map((c) => ({ id: c.id, title: c.title, section: c.section, clauses: c.clauses, outcome: 'unsupported' as const, message: 'needs feature queue', durationMs: 0, wireLog: [] })),
      ...Array.from({ length: ran }, (_, i) => ({ id: `ran-${i}`, title: 't', section: 's', clauses: [], outcome: 'pass' as const, durationMs: 1, wireLog: [] })),
      ...Array.from({ length: SUITE - ran - queueCases.length }, (_, i) => ({ id: `silent-${i}`, title: 't', section: 's', clauses: [], outcome: 'unsupported' as const, message: 'needs feature x', durationMs: 0, wireLog: [] })),
    ]
    const base = { ...fixtureReport('passing'), cases, summary: summarise(cases), staleBaseline: [], run: { mode: 'target' as const, suiteCases: SUITE, filters: [] } }
    const declared = verdictOf({ ...base, manifest: { ...base.manifest, features: ['provider'], absent: ['queue'] } })
    expect(declared.kind).toBe('conformant')
    expect(declared.line).toContain(`${queueCases.length} of them for features listed absent`)
    // The same run with the queue merely unmentioned: the manifest is silent, so it is a smoke test.
    expect(verdictOf({ ...base, manifest: { ...base.manifest, features: ['provider'], absent: [] } }).kind).toBe('smoke')
  })

  it('labels a filtered run a smoke test', () => {
    expect(verdictOf(report({ pass: 3 }, { mode: 'self', suiteCases: SUITE, filters: ['jobs'] })).line).toMatch(/^SMOKE TEST: 3 of 135 cases ran.*--filter selected 3/)
  })

  it('says not conformant for a fail even in a smoke run, and harness error before anything else', () => {
    expect(verdictOf(report({ pass: 40, fail: 2, unsupported: 93 }, { mode: 'url', suiteCases: SUITE, filters: [] })).line).toBe('NOT CONFORMANT: 2 failed (42 of 135 cases ran)')
    expect(verdictOf(report({ pass: 40, fail: 2, error: 1 }, { mode: 'target', suiteCases: SUITE, filters: [] })).kind).toBe('error')
  })

  it('is the console\'s last line', () => {
    let text = ''
    const out = new Writable({ write(chunk, _enc, done) { text += String(chunk); done() } }) as unknown as NodeJS.WriteStream
    const r = report({ pass: 44, unsupported: 91 }, { mode: 'url', suiteCases: SUITE, filters: [] })
    printSummary(r, '/tmp/reports', out)
    expect(text.trimEnd().split('\n').at(-1)).toBe(verdictOf(r).line)
  })

  it('shows a smoke run on the HTML page grey, never as a pass', () => {
    const html = renderHtml(report({ pass: 44, unsupported: 91 }, { mode: 'url', suiteCases: SUITE, filters: [] }))
    expect(html).toContain('data-verdict="smoke"')
    expect(html).toContain('SMOKE TEST: 44 of 135 cases ran')
    expect(html).not.toMatch(/class="verdict ok"|CONFORMANT:/)
  })
})
