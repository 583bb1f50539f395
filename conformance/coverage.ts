/**
 * Clause traceability: the spec's clause list (copied into conformance/spec), the exclusions
 * (clauses not observable on the wire, each with its reason) and what a run showed per clause and
 * per cell of the engine × state matrix (conformance/matrix).
 */
import { cellCoverageOf } from './matrix/coverage.ts'
import { CLAUSES, EXCLUSIONS } from './clause-list.ts'
import type { Case, CaseResult, Coverage, CoverageCounts } from './types.ts'

export { CLAUSES, CLAUSE_LIST_HASH, EXCLUSIONS, type Clause } from './clause-list.ts'

/** Outcomes that show a clause holds: `non-strict` departs only where the spec is open. */
const SHOWS = new Set(['pass', 'non-strict'])
const FAILS = new Set(['fail', 'error', 'flaky'])

/**
 * What a run showed per testable clause: satisfied (a passing case cites it), failing (not
 * satisfied, a failing case cites it), unsupported (cited only by cases that did not run), or
 * uncovered (no case of the run cites it). A baselined failure still counts as failing.
 */
export function coverageOf(allCases: Case[], results: CaseResult[]): Coverage {
  const testable = CLAUSES.filter((c) => c.testable && !(c.id in EXCLUSIONS))
  const allCited = new Set(allCases.flatMap((c) => c.clauses))
  const state = new Map<string, 'satisfied' | 'failing' | 'unsupported'>()
  const rank = { unsupported: 0, failing: 1, satisfied: 2 }
  for (const r of results) {
    const s = SHOWS.has(r.outcome) ? 'satisfied' : FAILS.has(r.outcome) ? 'failing' : 'unsupported'
    for (const id of r.clauses) if (!state.has(id) || rank[s] > rank[state.get(id)!]) state.set(id, s)
  }
  const zero = (): CoverageCounts => ({ testable: 0, satisfied: 0, failing: 0, unsupported: 0, uncovered: 0 })
  const total = zero()
  const bySection: Record<string, CoverageCounts> = {}
  const ids = { failing: [] as string[], unsupported: [] as string[], uncovered: [] as string[] }
  for (const clause of testable) {
    const row = (bySection[clause.section] ??= zero())
    const s = state.get(clause.id) ?? 'uncovered'
    for (const counts of [row, total]) {
      counts.testable++
      counts[s]++
    }
    if (s !== 'satisfied') ids[s].push(clause.id)
  }
  return {
    ...total,
    excluded: Object.keys(EXCLUSIONS).length,
    cited: testable.filter((c) => allCited.has(c.id)).length,
    failingIds: ids.failing,
    unsupportedIds: ids.unsupported,
    uncoveredIds: ids.uncovered,
    bySection,
    cells: cellCoverageOf(allCases, results),
  }
}

/**
 * Matches --filter: `id:<case id>` exactly that case (repeated, a list of cases: the mutation
 * tool runs only the cases that reach a mutant), else a clause id, a section name, or a substring
 * of the case id or title.
 */
export function matchesFilter(c: Case, filter: string): boolean {
  if (filter.startsWith('id:')) return c.id === filter.slice(3)
  return c.clauses.includes(filter) || c.section === filter || c.id.includes(filter) || c.title.toLowerCase().includes(filter.toLowerCase())
}
