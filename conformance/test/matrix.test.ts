/**
 * The engine × state matrix (conformance/matrix): every applicable cell of every testable clause is
 * covered by a case, or listed open with its reason; every cell ruled out cites the spec; the data
 * is well-formed (known clauses, engines, states; each case's declared cells are matrix cells).
 */
import { describe, expect, it } from 'vitest'
import { ALL_CASES } from '../cases/index.ts'
import { CLAUSES } from '../coverage.ts'
import { cellStatuses, matrixGaps } from '../matrix/check.ts'
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
})
