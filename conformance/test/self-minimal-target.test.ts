/**
 * The whole suite against the self-minimal target (our gateway embedded as a library with every
 * optional feature left out): 0 fail, 0 error, 0 non-strict, and the three cases that need a
 * gateway *without* a feature, unsupported on the other two self targets, pass here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { exitCodeOf, runSuite } from '../run-suite.ts'
import { startMinimalTarget } from '../target/self-minimal.ts'
import type { SelfTarget } from '../target/self.ts'
import type { Report } from '../types.ts'

let target: SelfTarget
let report: Report

beforeAll(async () => {
  target = await startMinimalTarget()
  report = await runSuite({ manifest: target.manifest, seed: 1234, receiver: target.receiver, restart: target.restart })
}, 120_000)
afterAll(async () => {
  await target?.close()
})

describe('the suite against the library embedding without optional features (the self-minimal target)', () => {
  it('has no fail, no error and no non-strict case', () => {
    const bad = report.cases.filter((c) => c.outcome === 'fail' || c.outcome === 'error' || c.outcome === 'non-strict').map((c) => `${c.id} (${c.outcome}): ${c.message}`)
    expect(bad).toEqual([])
    expect(exitCodeOf(report)).toBe(0)
    expect(report.summary.pass).toBeGreaterThan(50)
  })

  it('passes the cases about a gateway without a queue, a profileStore or host files', () => {
    const outcomes = Object.fromEntries(report.cases.map((c) => [c.id, c.outcome]))
    expect({
      'unconfigured-queue-404': outcomes['unconfigured-queue-404'],
      'unconfigured-fs-404': outcomes['unconfigured-fs-404'],
      'profiles-management-without-store-404': outcomes['profiles-management-without-store-404'],
    }).toEqual({ 'unconfigured-queue-404': 'pass', 'unconfigured-fs-404': 'pass', 'profiles-management-without-store-404': 'pass' })
  })

  it('ran on a gateway that really lacks those features: the job, /fs and profile-management routes answer 404', async () => {
    const auth = { authorization: `Bearer ${target.manifest.tokens.operator}` }
    const manager = { authorization: `Bearer ${target.manifest.tokens.manager}`, 'content-type': 'application/json' }
    const base = target.manifest.baseUrl
    expect((await fetch(`${base}/jobs`, { headers: auth })).status).toBe(404)
    expect((await fetch(`${base}/fs/roots`, { headers: auth })).status).toBe(404)
    expect((await fetch(`${base}/profiles`, { method: 'POST', headers: manager, body: JSON.stringify({ name: 'new-one', engine: 'provider' }) })).status).toBe(404)
    // And the features it offers do work: its provider profiles are listed.
    const profiles = (await (await fetch(`${base}/profiles`, { headers: auth })).json()) as { profiles: Array<{ name: string }> }
    expect(profiles.profiles.map((p) => p.name).sort()).toEqual(['alt', 'default', 'mcp-unwired'])
  })
})
