/**
 * The lean soak of issue 21 (item 7, in part): 3 gateway processes on one PostgreSQL, 60 mixed
 * jobs, every result posted to two processes at once (other than the parker when possible), one
 * process SIGKILLed holding claims and replaced. Every rule of run-fleet.ts holds, exactly one
 * `applied: true` per execution fleet-wide, and no process exits unless the run killed it. The
 * full run is `npm run fleet -- 500 5 --duplicates --restart --processes=3`.
 */
import { describe, expect, it } from 'vitest'
import { runFleet } from './run-fleet.ts'

describe('lean fleet soak (issue 21)', () => {
  it('duplicate results to two processes, a kill and a restart: no violation, one applied: true per parked execution', async () => {
    const report = await runFleet({ jobs: 60, processes: 3, maxConcurrency: 4, leaseMs: 3000, duplicates: true, restart: true, timeoutMs: 90_000 })
    expect(report.violations).toEqual([])
    expect(report.killedWorker).toBeDefined()
    expect(report.byStatus.succeeded + report.byStatus.failed).toBe(60)
    expect(report.parked).toBeGreaterThanOrEqual(20)
    // Each parked execution was answered at least twice (two processes at once) and applied at
    // most once (a violation otherwise); only a park adopted by the process the run killed, before
    // it applied the result, goes unapplied (its attempt is retried): at most its 4 slots.
    expect(report.appliedTrue).toBeLessThanOrEqual(report.parked)
    expect(report.appliedTrue).toBeGreaterThanOrEqual(report.parked - 4)
    expect(report.resultPosts).toBeGreaterThan(report.appliedTrue)
  }, 150_000)
})
