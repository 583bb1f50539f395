/**
 * The whole suite against the self-serve target (`gateway serve --config` on a generated file, the
 * fake engines, a principals file, queue and parking on embedded PostgreSQL): 0 fail, 0 error,
 * 0 non-strict, and no case unsupported for any reason but a feature the manifest explicitly does
 * not offer (those cases need a gateway *without* the feature; the self target skips them too).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { exitCodeOf, runSuite } from '../run-suite.ts'
import { startServeTarget } from '../target/self-serve.ts'
import type { SelfTarget } from '../target/self.ts'
import type { Report } from '../types.ts'

let target: SelfTarget
let report: Report

beforeAll(async () => {
  target = await startServeTarget()
  report = await runSuite({ manifest: target.manifest, seed: 1234, receiver: target.receiver, restart: target.restart })
}, 180_000)
afterAll(async () => {
  await target?.close()
})

describe('the suite against gateway serve (the self-serve target)', () => {
  it('has no fail, no error and no non-strict case', () => {
    const bad = report.cases.filter((c) => c.outcome === 'fail' || c.outcome === 'error' || c.outcome === 'non-strict').map((c) => `${c.id} (${c.outcome}): ${c.message}`)
    expect(bad).toEqual([])
    expect(exitCodeOf(report)).toBe(0)
    expect(report.summary.pass).toBeGreaterThan(140)
  })

  it('leaves unsupported only the cases that need a gateway without a feature', () => {
    const unsupported = report.cases.filter((c) => c.outcome === 'unsupported').map((c) => `${c.id}: ${c.message}`)
    // Today: profiles-management-without-store-404, unconfigured-queue-404, unconfigured-fs-404.
    expect(unsupported.filter((line) => !/listed under absent \(explicitly not offered\)/.test(line))).toEqual([])
    expect(unsupported.length).toBeLessThanOrEqual(3)
  })

  it('ran on gateway serve: its own health route answers, and the hooks module\'s fallback has the host route', async () => {
    const health = await fetch(new URL('/healthz', target.manifest.baseUrl))
    expect(health.status).toBe(200)
    expect(target.output()).toMatch(/"msg":"gateway listening"/)
    const fallback = await fetch(new URL(target.manifest.fallback!.path, target.manifest.baseUrl))
    expect(await fallback.json()).toEqual({ ok: true, fallback: true })
  })
})
