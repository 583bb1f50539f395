/**
 * Clause traceability. Every cited clause exists; ids are unique; and every testable clause of the
 * sections the foundation implements is cited by a case, excluded as not observable, or pending
 * on the issue that implements it — so coverage can only grow.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ALL_CASES } from '../cases/index.ts'
import { CLAUSES, EXCLUSIONS } from '../coverage.ts'

const PENDING: Record<string, string> = JSON.parse(readFileSync(new URL('../pending.json', import.meta.url), 'utf8'))
const FOUNDATION_SECTIONS = [
  'sessions', 'websocket-framing', 'commands', 'authentication', 'scope', 'session', 'createsessionrequest', 'updatesessionrequest',
  'event-and-command-envelope', 'engine-capability-record', 'profile', 'profiles', 'principal', 'errors', 'limits', 'versioning',
  'session-status-values', 'events', 'embedding-rules', 'what-the-service-does', 'permission-request', 'server-configuration',
  'endpoints', 'messages-and-attachments', 'job-status', 'queue-options', 'jobs-and-queue', 'other-shapes',
]

describe('clause traceability', () => {
  const ids = new Set(CLAUSES.map((c) => c.id))

  it('cites only clauses that exist, and case ids are unique', () => {
    const unknown = ALL_CASES.flatMap((c) => c.clauses.filter((id) => !ids.has(id)).map((id) => `${c.id} → ${id}`))
    expect(unknown).toEqual([])
    const caseIds = ALL_CASES.map((c) => c.id)
    expect(new Set(caseIds).size).toBe(caseIds.length)
  })

  it('excludes and defers only clauses that exist, each with a reason', () => {
    for (const [id, reason] of Object.entries({ ...EXCLUSIONS, ...PENDING })) {
      expect(ids.has(id), id).toBe(true)
      expect(reason.length, id).toBeGreaterThan(10)
    }
  })

  it('covers every testable clause of the foundation sections (cited, excluded, or pending on a named issue)', () => {
    const cited = new Set(ALL_CASES.flatMap((c) => c.clauses))
    const missing = CLAUSES.filter((c) => c.testable && FOUNDATION_SECTIONS.includes(c.section))
      .filter((c) => !cited.has(c.id) && !(c.id in EXCLUSIONS) && !(c.id in PENDING))
      .map((c) => c.id)
    expect(missing).toEqual([])
  })

  it('keeps the pending list honest: a clause a case now cites is no longer pending', () => {
    const cited = new Set(ALL_CASES.flatMap((c) => c.clauses))
    expect(Object.keys(PENDING).filter((id) => cited.has(id))).toEqual([])
  })
})
