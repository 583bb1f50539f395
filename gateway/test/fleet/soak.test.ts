/**
 * The lean fleet soak: the full scenario of `npm run fleet` at a smaller size.
 * 3 gateway processes on one PostgreSQL, 60 mixed jobs, every answered result posted to two
 * processes at once (other than the parker when possible), two processes SIGKILLed holding claims
 * and each replaced, one stalled (SIGSTOP) for twice the lease, and parks left to their deadline
 * or to maxParkedDurationMs. Every rule of run-fleet.ts holds (history, webhooks whole and in
 * order per job, /queue/ws, REST), exactly one `applied: true` per execution fleet-wide, and no
 * process exits unless the run killed it.
 * The second run adds 9 interactive sessions (provider with persistLive, the fake Claude CLI, the
 * fake codex) driven through a round-robin proxy with no affinity while two processes are
 * SIGKILLed and replaced (fleet-sessions.ts, fleet-session-checks.ts).
 */
import { describe, expect, it } from 'vitest'
import { runFleet } from './run-fleet.ts'

describe('lean fleet soak', () => {
  it('kills, a stall, duplicate results and fleet-wide timers: no violation, every job and its webhooks whole', async () => {
    const report = await runFleet({ jobs: 60, processes: 3, maxConcurrency: 4, leaseMs: 3000, duplicates: true, restart: true, kills: 2, stallAt: 0.2, timers: true, timeoutMs: 120_000 })
    expect(report.violations).toEqual([])
    expect(report.killedWorkers).toHaveLength(2)
    expect(report.stalledWorker).toBeDefined()
    expect(report.byStatus.succeeded + report.byStatus.failed).toBe(60)
    // One job in 6 ends by its park's deadline, one in 6 by the parked cap (checked per job in
    // run-fleet), unless its last attempt died running in a killed process before it parked.
    expect(report.deadlineJobs + report.cappedJobs + report.lostTimerJobs).toBe(20)
    expect(report.deadlineJobs + report.cappedJobs).toBeGreaterThanOrEqual(12)
    // Answered parks were answered at least twice (two processes at once) and applied at most once each.
    expect(report.appliedTrue).toBeGreaterThan(0)
    expect(report.resultPosts).toBeGreaterThan(report.appliedTrue)
    expect(report.queueWsEvents).toBeGreaterThan(0)
  }, 180_000)
})

describe('lean fleet soak with interactive sessions', () => {
  it('sessions through a round-robin proxy while two processes are killed and replaced: no completed turn lost, no seq reused, no session adopted twice, every reattach resumed or told why', async () => {
    const report = await runFleet({ jobs: 30, processes: 3, maxConcurrency: 4, leaseMs: 3000, restart: true, kills: 2, killAt: 0.3, sessions: 9, timeoutMs: 150_000 })
    expect(report.violations).toEqual([])
    expect(report.killedWorkers).toHaveLength(2)
    expect(report.byStatus.succeeded + report.byStatus.failed).toBe(30)
    const s = report.sessions!
    expect(s.sessions).toBe(9)
    // Every session went on turning: at least a few turns each, kills or not.
    expect(s.completedTurns).toBeGreaterThanOrEqual(27)
    // The kills reached sessions: some socket dropped and was reattached.
    expect(s.reattaches).toBeGreaterThan(0)
    expect(s.adoptions).toBeGreaterThan(0)
  }, 240_000)
})
