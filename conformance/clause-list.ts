/**
 * The spec's clause list (copied into conformance/spec) and the exclusions (clauses not observable
 * on the wire, each with its reason): what clause coverage and the matrix are counted against.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'

export interface Clause { id: string; section: string; kind: string; text: string; testable: boolean }

const CLAUSES_URL = new URL('./spec/clauses.json', import.meta.url)
const EXCLUSIONS_URL = new URL('./exclusions.json', import.meta.url)

export const CLAUSES: Clause[] = JSON.parse(readFileSync(CLAUSES_URL, 'utf8'))
export const CLAUSE_LIST_HASH = createHash('sha256').update(readFileSync(CLAUSES_URL)).digest('hex').slice(0, 16)
export const EXCLUSIONS: Record<string, string> = JSON.parse(readFileSync(EXCLUSIONS_URL, 'utf8'))
