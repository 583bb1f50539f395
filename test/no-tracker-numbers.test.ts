/**
 * Sources, tests and docs explain themselves with the spec's clause ids and the reason, never with
 * a tracker number a reader of the code or of the npm package cannot look up. Commit messages keep
 * the history; `bench/notes/` (not shipped) keeps the lab journal.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const SELF = fileURLToPath(import.meta.url)
const SHIPPED = ['gateway', 'conformance', 'client', 'fake-engines', 'reports', 'scripts', 'docs', 'examples', 'packages', 'test', 'scenarios', 'bench', 'README.md']
const SKIP_DIRS = new Set(['node_modules', 'dist', 'out', 'notes', '.git'])
const TEXT = /\.(ts|mts|mjs|js|json|md|txt|html|yaml|yml|toml|css)$/
// A number may follow on the next line of a wrapped comment: "(issue\n * 25, …)".
const TRACKER_NUMBER = /\b[Ii]ssues?[ \t]*(?:\n[ \t]*(?:\*|\/\/|#)?)?[ \t]*#?\d+/

function* files(path: string): Generator<string> {
  if (statSync(path).isFile()) {
    if (TEXT.test(path)) yield path
    return
  }
  for (const entry of readdirSync(path)) if (!SKIP_DIRS.has(entry)) yield* files(join(path, entry))
}

function trackerMentions(): string[] {
  const found: string[] = []
  for (const top of SHIPPED) {
    for (const file of files(join(ROOT, top))) {
      if (file === SELF) continue // its own examples of the pattern
      const text = readFileSync(file, 'utf8')
      for (const match of text.matchAll(new RegExp(TRACKER_NUMBER, 'g'))) {
        const line = text.slice(0, match.index).split('\n').length
        found.push(`${relative(ROOT, file)}:${line}: ${match[0].replace(/\s+/g, ' ')}`)
      }
    }
  }
  return found
}

describe('no tracker numbers in what ships', () => {
  it('the pattern catches the forms a tracker number takes', () => {
    for (const text of ['(issue 22)', 'until Issue 24 Deliver 3', 'issues 14 and 15', 'see issue #7', '(issue\n * 25, bench)']) expect(text).toMatch(TRACKER_NUMBER)
    for (const text of ['job-status.12', 'an issue with 3 retries', 'tissue 5']) expect(text).not.toMatch(TRACKER_NUMBER)
  })

  it('no source, test or doc cites one', () => {
    expect(trackerMentions()).toEqual([])
  })
})
