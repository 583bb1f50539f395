/**
 * The engine × state matrix (conformance/matrix): every applicable cell of every testable clause is
 * covered by a case, or listed open with its reason; every cell ruled out cites the spec; the data
 * is well-formed (known clauses, engines, states; each case's declared cells are matrix cells).
 */
import { describe, expect, it } from 'vitest'
import { ALL_CASES } from '../cases/index.ts'
import { CLAUSES } from '../coverage.ts'
import { cellStatuses, matrixGaps } from '../matrix/check.ts'
import { cellCoverageOf } from '../matrix/coverage.ts'
import type { CaseResult } from '../types.ts'
import { ENGINES, STATES } from '../matrix/dimensions.ts'
import { MATRIX, PARTS } from '../matrix/index.ts'
import { OPEN_CELLS } from '../matrix/open-cells.ts'

describe('the engine × state matrix', () => {
  it('covers every applicable cell of every testable clause with a case, or lists it open with a reason', () => {
    expect(matrixGaps(MATRIX, ALL_CASES, OPEN_CELLS)).toEqual([])
  })

  it('fails naming the clause and the cell when a case is taken out of a cell', () => {
    // interrupt on a cli_secondary session waiting on a permission: one generated case covers it.
    const without = ALL_CASES.filter((c) => c.id !== 'commands-in-state-cli-secondary-awaiting-approval')
    expect(without.length).toBe(ALL_CASES.length - 1)
    expect(matrixGaps(MATRIX, without, OPEN_CELLS)).toContain('commands.3 cli_secondary/awaiting_approval: no case covers this cell and no reason says why it is open')
  })

  it('lists open only cells that apply and that no case covers, each with a reason', () => {
    const statuses = new Map(cellStatuses(MATRIX, ALL_CASES).map((s) => [`${s.clause} ${s.key}`, s]))
    for (const [cell, reason] of Object.entries(OPEN_CELLS)) {
      const status = statuses.get(cell)
      expect(status, `${cell} is a cell of the matrix`).toBeDefined()
      expect(status!.na, `${cell} applies`).toBeUndefined()
      expect(status!.cases, `${cell} is covered now: take it off the open list`).toEqual([])
      expect(reason.length, cell).toBeGreaterThan(20)
    }
  })

  it('gives every cell ruled out a reason citing the spec', () => {
    for (const row of MATRIX) for (const cell of row.cells.filter((c) => c.na)) expect(cell.na, `${row.clause} ${cell.key}`).toMatch(/[a-z-]+\.\d+/)
  })

  it('names only clauses, engines and states that exist, and each part module only its own sections', () => {
    const ids = new Set(CLAUSES.map((c) => c.id))
    const sections = new Set(CLAUSES.map((c) => c.section))
    for (const part of PARTS) {
      for (const [clause, applies] of [...Object.entries(part.clauses), ...Object.entries(part.sections)]) {
        expect(ids.has(clause) || sections.has(clause), clause).toBe(true)
        for (const e of applies.engines ?? []) expect(ENGINES, clause).toContain(e)
        for (const s of applies.states ?? []) expect(STATES, clause).toContain(s)
        for (const key of Object.keys(applies.na ?? {})) {
          const [e, s] = key.split('/')
          expect(e === '*' || (applies.engines ?? []).includes(e as never), `${clause}: ${key}`).toBe(true)
          expect(s === '*' || (applies.states ?? []).includes(s as never), `${clause}: ${key}`).toBe(true)
        }
      }
    }
  })

  it('has each case declare only engines and states of the matrix', () => {
    for (const c of ALL_CASES) {
      for (const e of c.cells?.engines ?? []) expect(ENGINES, c.id).toContain(e)
      for (const s of c.cells?.states ?? []) expect(STATES, c.id).toContain(s)
    }
  })

  it('counts cells in a run: every case passing covers all but the open cells; one failing case fails its cells, outweighing a pass', () => {
    const result = (id: string, outcome: CaseResult['outcome']): CaseResult => ({ id, title: id, section: 's', clauses: [], outcome, durationMs: 1, wireLog: [] })
    const all = cellCoverageOf(ALL_CASES, ALL_CASES.map((c) => result(c.id, 'pass')))
    expect(all.failing).toBe(0)
    expect(all.uncovered).toBe(Object.keys(OPEN_CELLS).length)
    expect(all.satisfied + all.uncovered).toBe(all.applicable)
    expect(all.notApplicable).toBe(MATRIX.flatMap((r) => r.cells).filter((c) => c.na).length)
    const failing = 'commands-in-state-cli-secondary-awaiting-approval'
    const one = cellCoverageOf(ALL_CASES, ALL_CASES.map((c) => result(c.id, c.id === failing ? 'fail' : 'pass')))
    // Its commands.* cells on cli_secondary awaiting_approval fail, even where another case passes there.
    expect(one.failing).toBeGreaterThan(5)
    expect(one.satisfied + one.failing).toBe(all.satisfied)
    const none = cellCoverageOf(ALL_CASES, [])
    expect(none.uncovered).toBe(none.applicable)
  })
})
