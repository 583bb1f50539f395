/** The npm test column's test choice: the nearest importers, plus the tests that reach a module through a spawned gateway. */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { loadSpawnedTests } from './npm-test-run.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

describe('spawned-tests.json', () => {
  it('names existing sources and test files that run the gateway command as a child', () => {
    const map = JSON.parse(readFileSync(join(ROOT, 'scripts/mutation/spawned-tests.json'), 'utf8')) as Record<string, string[]>
    for (const [source, tests] of Object.entries(map)) {
      if (!source.includes('*')) expect(existsSync(join(ROOT, source)), source).toBe(true)
      for (const test of tests) {
        expect(test.endsWith('.test.ts'), test).toBe(true)
        expect(readFileSync(join(ROOT, test), 'utf8'), test).toMatch(/gateway-command\.ts/)
      }
    }
  })

  it('gives the health routes their readiness test and leaves a route module to the import graph', async () => {
    const spawned = await loadSpawnedTests(ROOT)
    expect(spawned('gateway/server/health.ts')).toEqual(['gateway/test/readiness.test.ts'])
    expect(spawned('gateway/server/routes/sessions.ts')).toEqual([])
  })
})
