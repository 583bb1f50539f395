import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['{gateway,client,fake-engines,conformance,reports,bench,test,scripts,examples}/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Most files wait on child processes (gateways, engines, PostgreSQL) far more than they
    // compute: two at a time keep two cores busy where one left them half idle.
    maxWorkers: 2,
    // One TMPDIR per run, removed at its end (test/tmpdir.ts).
    globalSetup: ['test/tmpdir.ts'],
  },
})
