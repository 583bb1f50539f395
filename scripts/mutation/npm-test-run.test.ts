/** The npm test column's test choice: the nearest importers, plus the tests that reach a module through a spawned gateway or the server's wiring. */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { loadSpawnedTests, testTiers } from './npm-test-run.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

describe('spawned-tests.json', () => {
  it('names existing sources and test files', () => {
    const map = JSON.parse(readFileSync(join(ROOT, 'scripts/mutation/spawned-tests.json'), 'utf8')) as Record<string, string[]>
    for (const [source, tests] of Object.entries(map)) {
      if (!source.includes('*')) expect(existsSync(join(ROOT, source)), source).toBe(true)
      for (const test of tests) {
        expect(test.endsWith('.test.ts'), test).toBe(true)
        expect(existsSync(join(ROOT, test)), test).toBe(true)
      }
    }
  })

  it('gives the health routes their readiness test and leaves a route module to the import graph', async () => {
    const spawned = await loadSpawnedTests(ROOT)
    expect(spawned('gateway/server/health.ts')).toEqual(['gateway/test/readiness.test.ts'])
    expect(spawned('gateway/server/routes/sessions.ts')).toEqual([])
  })
})

describe('testTiers', () => {
  it('runs the unit tests beside the sources before the tests in a test/ folder, and drops an empty tier', () => {
    expect(testTiers(['gateway/test/serve-command.test.ts', 'gateway/config/config.test.ts', 'conformance/test/kit-units.test.ts', 'gateway/protocol/closest-name.test.ts']))
      .toEqual([['gateway/config/config.test.ts', 'gateway/protocol/closest-name.test.ts'], ['gateway/test/serve-command.test.ts', 'conformance/test/kit-units.test.ts']])
    expect(testTiers(['gateway/test/fleet/timers.test.ts'])).toEqual([['gateway/test/fleet/timers.test.ts']])
    expect(testTiers([])).toEqual([])
  })
})
