/**
 * The cases are laid out as the spec is: the file of a section (cases/layout.ts) holds exactly the
 * cases of that section, each with a clause of its section first; case files hold cases only, and
 * take their helpers from the one harness module, never from another case file.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { ALL_CASES } from '../cases/index.ts'
import { MORE_SECTION_FILES, SECTION_FILES, sectionFiles } from '../cases/layout.ts'
import type { Case } from '../types.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const CLAUSES = JSON.parse(readFileSync(join(ROOT, 'conformance/spec/clauses.json'), 'utf8')) as Array<{ id: string; section: string }>
const sectionOf = (clause: string) => CLAUSES.find((c) => c.id === clause)?.section

/** A spec heading's slug, as clauses.json names sections. */
const slug = (heading: string) => heading.replace(/\(.*?\)/g, '').replace(/`/g, '').trim().toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')

/** Each section's part (its `##` heading), from the spec itself. */
function partsOfSections(): Map<string, string> {
  const parts = new Map<string, string>()
  let part = ''
  for (const [, level, heading] of readFileSync(join(ROOT, 'conformance/spec/gateway-spec.md'), 'utf8').matchAll(/^(##+) (.*)$/gm)) {
    if (level === '##') part = slug(heading)
    parts.set(slug(heading), part)
  }
  return parts
}

/** The sections a case breaks the layout rule in, with why (empty when it sits right). */
export function layoutProblems(c: Case, fileSection: string): string[] {
  const problems: string[] = []
  if (c.section !== fileSection) problems.push(`${c.id}: section '${c.section}' in the file of '${fileSection}'`)
  if (sectionOf(c.clauses[0]) !== fileSection) problems.push(`${c.id}: first clause ${c.clauses[0]} is not of '${fileSection}'`)
  if (!c.clauses.some((clause) => sectionOf(clause) === fileSection)) problems.push(`${c.id}: none of its clauses is of '${fileSection}'`)
  return problems
}

describe('conformance cases laid out by the spec', () => {
  it('each section file is named as the spec names the section, under its part', () => {
    const parts = partsOfSections()
    for (const [section, file] of Object.entries(SECTION_FILES)) {
      const part = parts.get(section)
      expect(part, `${section} is a section of the spec`).toBeDefined()
      expect(file).toBe(part === section ? `conformance/cases/${section}.ts` : `conformance/cases/${part}/${section}.ts`)
      for (const more of MORE_SECTION_FILES[section] ?? []) expect(more).toMatch(new RegExp(`^${file.replace(/\.ts$/, '')}/[a-z0-9-]+\\.ts$`))
    }
  })

  it('every case sits in the file of its section, with a clause of that section first', async () => {
    const problems: string[] = []
    const seen = new Set<string>()
    for (const section of Object.keys(SECTION_FILES)) {
      for (const file of sectionFiles(section)) {
        const module = await import(join(ROOT, file)) as Record<string, unknown>
        const cases = Object.values(module).filter(Array.isArray).flat() as Case[]
        expect(cases.length, `${file} holds cases`).toBeGreaterThan(0)
        for (const c of cases) {
          seen.add(c.id)
          problems.push(...layoutProblems(c, section))
        }
      }
    }
    expect(problems).toEqual([])
    expect(ALL_CASES.filter((c) => !seen.has(c.id)).map((c) => c.id)).toEqual([])
  })

  it('the rule catches a case in a section none of its clauses belongs to', () => {
    const misplaced = { ...ALL_CASES[0], section: 'peers', clauses: ['sessions.2', 'errors.4'] } as Case
    expect(layoutProblems(misplaced, 'peers')).toHaveLength(2)
    expect(layoutProblems(ALL_CASES[0], ALL_CASES[0].section)).toEqual([])
  })

  it('case files hold cases only, and import helpers from the harness, never from another case file', () => {
    for (const file of Object.keys(SECTION_FILES).flatMap(sectionFiles)) {
      const text = readFileSync(join(ROOT, file), 'utf8')
      for (const [, spec] of text.matchAll(/^import .* from '([^']+)'$/gm)) {
        if (!spec.startsWith('.')) continue
        const target = join(ROOT, file, '..', spec).slice(ROOT.length)
        expect(target, `${file} imports ${spec}`).toMatch(/^(conformance\/harness\/|conformance\/types\.ts$|gateway\/protocol\/|client\/)/)
      }
      const topLevel = text.split('\n').filter((l) => /^(export )?(async )?(function|const|let|class|type|interface) /.test(l))
      expect(topLevel, file).toEqual([expect.stringMatching(/^export const \w+Cases: Case\[\] = \[$/)])
    }
  })
})
