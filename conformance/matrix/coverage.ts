/**
 * What a run showed per cell of the matrix: a cell is failing when a case covering it failed,
 * satisfied when one passed (or departed only where the spec is open) and none failed, unsupported when its cases
 * did not run on this target, uncovered when no case of the run covers it.
 */
import type { Case, CaseResult, CellCounts, CellCoverage } from '../types.ts'
import { cellStatuses } from './check.ts'
import { MATRIX } from './index.ts'
import { OPEN_CELLS } from './open-cells.ts'

const SHOWS = new Set(['pass', 'non-strict'])
const FAILS = new Set(['fail', 'error', 'flaky'])

export function cellCoverageOf(allCases: readonly Case[], results: readonly CaseResult[]): CellCoverage {
  const outcome = new Map(results.map((r) => [r.id, r.outcome]))
  const zero = (): CellCounts => ({ applicable: 0, satisfied: 0, failing: 0, unsupported: 0, uncovered: 0, notApplicable: 0 })
  const total = zero()
  const bySection: Record<string, CellCounts> = {}
  const sectionOf = new Map(MATRIX.map((row) => [row.clause, row.section]))
  let open = 0
  for (const cell of cellStatuses(MATRIX, allCases, OPEN_CELLS)) {
    const row = (bySection[sectionOf.get(cell.clause)!] ??= zero())
    const counts = [row, total]
    if (cell.na) {
      for (const c of counts) c.notApplicable++
      continue
    }
    if (cell.open) open++
    const ran = cell.cases.map((id) => outcome.get(id)).filter((o) => o !== undefined)
    // A failing case in a cell outweighs a passing one: the cell does not hold.
    const state = ran.some((o) => FAILS.has(o)) ? 'failing' : ran.some((o) => SHOWS.has(o)) ? 'satisfied' : ran.length ? 'unsupported' : 'uncovered'
    for (const c of counts) {
      c.applicable++
      c[state]++
    }
  }
  return { ...total, clauses: MATRIX.length, open, bySection }
}
