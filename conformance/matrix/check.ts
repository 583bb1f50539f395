/**
 * The matrix against the cases: every applicable cell of every clause is covered by a case, or
 * named as an open gap with its reason (matrix/open-cells.ts); anything else is a gap the
 * matrix test reports, naming the clause and the cell.
 */
import type { Case } from '../types.ts'
import { covers } from './cells-of-case.ts'
import type { CellKey, ClauseCells } from './dimensions.ts'

export interface CellStatus { clause: string; key: CellKey; na?: string; open?: string; cases: string[] }

export function cellStatuses(matrix: readonly ClauseCells[], cases: readonly Case[], open: Readonly<Record<string, string>> = {}): CellStatus[] {
  const out: CellStatus[] = []
  for (const row of matrix) {
    const citing = cases.filter((c) => c.clauses.includes(row.clause))
    for (const cell of row.cells) {
      const status: CellStatus = { clause: row.clause, key: cell.key, cases: cell.na ? [] : citing.filter((c) => covers(c, row, cell.key)).map((c) => c.id) }
      if (cell.na) status.na = cell.na
      const gap = open[`${row.clause} ${cell.key}`]
      if (gap && !cell.na && status.cases.length === 0) status.open = gap
      out.push(status)
    }
  }
  return out
}

/** The applicable cells with neither a case nor a stated reason, as messages naming clause and cell. */
export function matrixGaps(matrix: readonly ClauseCells[], cases: readonly Case[], open: Readonly<Record<string, string>> = {}): string[] {
  return cellStatuses(matrix, cases, open)
    .filter((s) => !s.na && !s.open && s.cases.length === 0)
    .map((s) => `${s.clause} ${s.key}: no case covers this cell and no reason says why it is open`)
}
