/**
 * Clause traceability: the spec's clause list (copied into conformance/spec), the exclusions
 * (clauses not observable on the wire, each with its reason) and coverage per section.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { Case, Report } from './types.ts'

export interface Clause { id: string; section: string; kind: string; text: string; testable: boolean }

const CLAUSES_URL = new URL('./spec/clauses.json', import.meta.url)
const EXCLUSIONS_URL = new URL('./exclusions.json', import.meta.url)

export const CLAUSES: Clause[] = JSON.parse(readFileSync(CLAUSES_URL, 'utf8'))
export const CLAUSE_LIST_HASH = createHash('sha256').update(readFileSync(CLAUSES_URL)).digest('hex').slice(0, 16)
export const EXCLUSIONS: Record<string, string> = JSON.parse(readFileSync(EXCLUSIONS_URL, 'utf8'))

export function coverageOf(cases: Case[]): Report['coverage'] {
  const cited = new Set(cases.flatMap((c) => c.clauses))
  const testable = CLAUSES.filter((c) => c.testable && !(c.id in EXCLUSIONS))
  const bySection: Record<string, { testable: number; covered: number }> = {}
  for (const clause of testable) {
    const row = (bySection[clause.section] ??= { testable: 0, covered: 0 })
    row.testable++
    if (cited.has(clause.id)) row.covered++
  }
  const uncovered = testable.filter((c) => !cited.has(c.id)).map((c) => c.id)
  return { testable: testable.length, covered: testable.length - uncovered.length, excluded: Object.keys(EXCLUSIONS).length, uncovered, bySection }
}

/** Matches --filter: a clause id, a section name, or a substring of the case id or title. */
export function matchesFilter(c: Case, filter: string): boolean {
  return c.clauses.includes(filter) || c.section === filter || c.id.includes(filter) || c.title.toLowerCase().includes(filter.toLowerCase())
}
