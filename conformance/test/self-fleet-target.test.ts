/**
 * The whole suite against the self-fleet target: three `gateway serve` processes on one
 * PostgreSQL behind a round-robin TCP proxy with no affinity, one SIGKILLed between two cases in
 * the middle of the run and replaced under a new process id. Every case that passes on one process
 * (self-serve-target.test.ts) passes here but those of the known fleet gaps listed below: 0 error,
 * 0 non-strict, and the same cases unsupported as on self-serve (only those needing a gateway
 * without a feature).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ALL_CASES } from '../cases/index.ts'
import { exitCodeOf, runSuite } from '../run-suite.ts'
import { startFleetTarget, type FleetTarget } from '../target/self-fleet.ts'
import type { Report } from '../types.ts'

let target: FleetTarget
let report: Report
let before: string[]

beforeAll(async () => {
  target = await startFleetTarget()
  before = target.members().map((m) => m.id)
  report = await runSuite({ manifest: target.manifest, seed: 1234, receiver: target.receiver, restart: target.restart, midRun: target.midRun })
}, 420_000)
afterAll(async () => {
  await target?.close()
})

/**
 * Gaps of the gateway on a fleet, outside the session directory and forwarding: each case that
 * fails only through one of them, with the clause and why. Remove an entry once its gap closes;
 * with the list empty the first test requires 0 fail, as on self-serve.
 * - job-status.12: `DELETE /jobs/:id` reaching a process other than the one running (or parking)
 *   the job answers it still running and the run goes on; the job then holds one of the fleet's
 *   two slots (queue.maxConcurrency) until maxJobDurationMs, so job cases started meanwhile time
 *   out with "job is queued" (slotsHeld below).
 * - job-status.2: `/queue/ws` streams the events its own process wrote; a job run elsewhere
 *   sends nothing on it.
 * - job-status.6: a parked job's result posted to a process other than the parker answered 404
 *   `execution_not_found` (seen once since results are offered to the live peers).
 * - errors.6, profiles.6: managed profiles (the file profileStore) are loaded per process at start;
 *   one created through one process is unknown to the others.
 */
const KNOWN_FLEET_GAPS: Record<string, string> = {
  'jobs-cancel': 'job-status.12 across processes',
  'jobs-cancel-every-phase-provider': 'job-status.12 across processes',
  'jobs-cancel-every-phase-cli-primary': 'job-status.12 across processes',
  'jobs-cancel-every-phase-cli-secondary': 'job-status.12 across processes',
  'jobs-queue-ws': 'job-status.2: /queue/ws per process',
  'jobs-park-and-resume': 'job-status.6: a parked job\'s result answered 404 on another process',
  'profiles-managed-lifecycle': 'errors.6: managed profiles per process',
  'create-capabilities-each-named-grant': 'profiles.6: managed profiles per process',
}
/**
 * What a job case sees while canceled jobs still hold the fleet's slots (the job-status.12 gap):
 * a wait on a job that timed out, or a job never started to read its session from.
 */
const JOB_SLOTS_HELD = /job is queued|JobInfo names no sessionId/
const QUEUE_CASES = new Set(ALL_CASES.filter((c) => c.requires.includes('queue')).map((c) => c.id))
const slotsHeld = (c: Report['cases'][number]) => JOB_SLOTS_HELD.test(c.message ?? '') || (QUEUE_CASES.has(c.id) && /^timed out after/.test(c.message ?? ''))

describe('the suite against a round-robin fleet of gateway serve (the self-fleet target)', () => {
  it('has no fail, no error and no non-strict case, with a process killed mid-run (beyond the known fleet gaps)', () => {
    const gap = (c: Report['cases'][number]) => KNOWN_FLEET_GAPS[c.id] !== undefined || slotsHeld(c)
    const bad = report.cases.filter((c) => (c.outcome === 'fail' || c.outcome === 'error' || c.outcome === 'non-strict') && !(c.outcome === 'fail' && gap(c))).map((c) => `${c.id} (${c.outcome}): ${c.message}`)
    expect(bad).toEqual([])
    expect(report.summary.error).toBe(0)
    expect(report.summary.pass).toBeGreaterThan(140)
    if (Object.keys(KNOWN_FLEET_GAPS).length === 0) expect(exitCodeOf(report)).toBe(0)
  })

  it('leaves unsupported the same cases as self-serve: only those needing a gateway without a feature', () => {
    const unsupported = report.cases.filter((c) => c.outcome === 'unsupported' && !JOB_SLOTS_HELD.test(c.message ?? ''))
    expect(unsupported.filter((c) => !/listed under absent \(explicitly not offered\)/.test(c.message ?? '')).map((c) => `${c.id}: ${c.message}`)).toEqual([])
    expect(unsupported.map((c) => c.id).sort()).toEqual(['profiles-management-without-store-404', 'unconfigured-fs-404', 'unconfigured-queue-404'])
  })

  it('killed one process mid-run and replaced it under a new process id; the proxy spread connections over every process', () => {
    const after = target.members()
    expect(after.map((m) => m.id)).not.toEqual(before)
    expect(after.filter((m) => !before.includes(m.id))).toHaveLength(1)
    expect(after.every((m) => m.alive)).toBe(true)
    for (const m of after) expect(target.proxy.connections.get(new URL(m.url).host) ?? 0).toBeGreaterThan(0)
  })
})
