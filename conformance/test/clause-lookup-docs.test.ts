/**
 * docs/conformance.md § "From a clause to its cases, and back", followed literally: each command
 * of its code block is run as written, and what it prints must take a reader from a clause to
 * every case citing it (and the file each is in), and from a case to its clauses.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ALL_CASES } from '../cases/index.ts'
import { matchesFilter } from '../coverage.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const run = promisify(execFile)

function documentedCommands(): string[] {
  const doc = readFileSync(join(ROOT, 'docs/conformance.md'), 'utf8')
  const start = doc.indexOf('## From a clause to its cases, and back')
  expect(start, 'the section exists').toBeGreaterThan(-1)
  const block = /```sh\n([\s\S]*?)```/.exec(doc.slice(start))
  expect(block, 'the section shows its commands').not.toBeNull()
  return block![1].split('\n').map((l) => l.trim()).filter(Boolean)
}

/** The listed entries: id, clauses and the file each is in. */
function parseList(stdout: string): Array<{ id: string; clauses: string[]; file: string }> {
  const entries = [...stdout.matchAll(/^(\S+) {2}\[[^\]]+\] {2}(.*)\n(?: {4}.*\n)*? {4}in (\S+)/gm)]
  return entries.map(([, id, clauses, file]) => ({ id, clauses: clauses.split(', '), file }))
}

describe('docs/conformance.md: from a clause to its cases and back, in one step', () => {
  it('runs each documented command and gets what the page promises', { timeout: 60_000 }, async () => {
    const commands = documentedCommands()
    expect(commands.length).toBeGreaterThanOrEqual(2)
    for (const command of commands) {
      const [npm, ...args] = command.split(/\s+/)
      expect(npm).toBe('npm')
      const filter = args[args.indexOf('--filter') + 1]
      const { stdout } = await run('npm', args, { cwd: ROOT, env: { ...process.env, FORCE_COLOR: '0' } })
      const listed = parseList(stdout)
      const expected = ALL_CASES.filter((c) => matchesFilter(c, filter))
      expect(listed.map((e) => e.id).sort(), command).toEqual(expected.map((c) => c.id).sort())
      for (const entry of listed) {
        const c = ALL_CASES.find((x) => x.id === entry.id)!
        expect(entry.clauses, entry.id).toEqual(c.clauses)
        // The file named is where the case is written.
        expect(readFileSync(join(ROOT, entry.file), 'utf8'), `${entry.id} in ${entry.file}`).toContain(`'${entry.id}'`)
      }
    }
  })
})
