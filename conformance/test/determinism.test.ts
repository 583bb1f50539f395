/**
 * Determinism at small scale: a slice of the suite run with --repeat 3 against one long-lived
 * self target gives the same outcome in every repeat, and a second run with the same seed against
 * the same target gives the same outcomes again (nothing a run leaves behind changes the next).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runSuite } from '../run-suite.ts'
import { startSelfTarget, type SelfTarget } from '../target/self.ts'

const SLICE = ['sessions-create-201', 'sessions-title', 'ws-replay-after-seq', 'create-generated-hostile-bodies', 'auth-scope-miss-identical-404', 'jobs-lifecycle-and-webhook-order', 'limits-body-over-max-413']
let target: SelfTarget

beforeAll(async () => { target = await startSelfTarget() }, 60_000)
afterAll(async () => { await target?.close() })

describe('determinism', () => {
  it('repeats give identical outcomes, and a second run against the same target matches the first', async () => {
    const run = () => runSuite({ manifest: target.manifest, seed: 4242, filters: SLICE, repeat: 3, receiver: target.receiver })
    const first = await run()
    expect(first.cases.length).toBeGreaterThanOrEqual(SLICE.length)
    for (const c of first.cases) expect(new Set(c.repeats), c.id).toHaveProperty('size', 1)
    expect(first.summary.flaky).toBe(0)
    expect(first.cases.filter((c) => c.outcome !== 'pass' && c.outcome !== 'non-strict').map((c) => `${c.id}: ${c.outcome} ${c.message}`)).toEqual([])
    const second = await run()
    expect(second.cases.map((c) => [c.id, c.outcome])).toEqual(first.cases.map((c) => [c.id, c.outcome]))
  }, 180_000)
})
