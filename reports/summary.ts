/** Counts outcomes; the one place that knows which outcomes fail a run. */
import type { CaseResult, Summary } from '../conformance/types.ts'

export function summarise(results: CaseResult[]): Summary {
  const s: Summary = { pass: 0, fail: 0, nonStrict: 0, unsupported: 0, error: 0, flaky: 0 }
  for (const r of results) {
    if (r.baselined) continue
    if (r.outcome === 'non-strict') s.nonStrict++
    else s[r.outcome]++
  }
  return s
}

/** Cases whose failure a baseline accepted, counted apart from the summary. */
export function baselinedCount(results: CaseResult[]): number {
  return results.filter((r) => r.baselined).length
}
