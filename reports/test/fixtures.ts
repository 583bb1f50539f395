/** Report fixtures for the report tests: a passing run and a failing one, built like runSuite builds them. */
import { ALL_CASES } from '../../conformance/cases/index.ts'
import { coverageOf } from '../../conformance/coverage.ts'
import type { CaseResult, Report } from '../../conformance/types.ts'
import { summarise } from '../summary.ts'

const WIDE_JSON = JSON.stringify({ session: { id: 'x'.repeat(40), capabilities: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`capability_${i}`, i % 2 === 0])) } })

export function fixtureReport(kind: 'passing' | 'failing'): Report {
  const cases: CaseResult[] = ALL_CASES.slice(0, 60).map((c, i) => ({
    id: c.id, title: c.title, section: c.section, clauses: c.clauses, outcome: i % 9 === 4 ? 'unsupported' : 'pass', durationMs: 10 + i,
    message: i % 9 === 4 ? 'needs feature queue' : undefined, wireLog: [],
  }))
  cases[7] = { ...cases[7], outcome: 'non-strict', message: 'HTTP 404 without a protocol-7 {error: string} body' }
  if (kind === 'failing') {
    // The failure sits deep in the case list: the report must still show it first.
    cases[50] = {
      ...cases[50], outcome: 'fail', message: 'errors.1: expected HTTP 404, got HTTP 403 {"error":"forbidden"}',
      failure: { clause: 'errors.1', expected: 'HTTP 404', actual: 'HTTP 403 {"error":"forbidden"}' },
      wireLog: [
        { at: 0, who: 'tenantA', kind: 'request', summary: 'POST http://127.0.0.1:1/v1/sessions', body: '{}' },
        { at: 12, who: 'tenantA', kind: 'response', summary: '201 POST /v1/sessions', body: WIDE_JSON },
        { at: 15, who: 'tenantB', kind: 'request', summary: 'GET http://127.0.0.1:1/v1/sessions/abc' },
        { at: 17, who: 'tenantB', kind: 'response', summary: '403 GET /v1/sessions/abc', body: '{"error":"forbidden"}' },
      ],
    }
    cases[55] = { ...cases[55], outcome: 'error', message: 'ECONNRESET', wireLog: [{ at: 3, who: 'operator', kind: 'request', summary: 'GET http://127.0.0.1:1/v1/queue' }] }
    cases[56] = { ...cases[56], outcome: 'fail', message: 'x.1: expected a, got b', baselined: 'known bug #12', failure: { clause: 'x.1', expected: 'a', actual: 'b' } }
  }
  return {
    kit: { name: 'gateway-conformance', version: '0.1.0' },
    target: { baseUrl: 'http://127.0.0.1:1/v1', features: ['provider'] },
    manifest: { baseUrl: 'http://127.0.0.1:1/v1', tokens: { operator: '<redacted>' }, profiles: {}, features: ['provider'], absent: [] },
    startedAt: '2026-11-23T10:00:00.000Z', durationMs: 1234, seed: 42, clauseListHash: '0123456789abcdef',
    summary: summarise(cases), coverage: coverageOf(ALL_CASES, cases), staleBaseline: [], cases,
  }
}
