/**
 * `/metrics` scraped around a conformance kit run against our gateway (the self
 * target: `gateway dev` with the fake engines in its own process), its values checked against what
 * the run and this test did: sessions created and listed per engine, turns completed, and the
 * exact number of 404s and 401s this test then caused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runSuite } from '../../conformance/run-suite.ts'
import { startSelfTarget, type SelfTarget } from '../../conformance/target/self.ts'
import type { Report } from '../../conformance/types.ts'
import { parseExposition, type Exposition } from './prometheus-text.ts'

const CASES = ['cli-primary-turn-events', 'cli-secondary-turn-events', 'sessions-create-201', 'jobs-lifecycle-and-webhook-order', 'jobs-webhook-retries-keep-order']

let target: SelfTarget
let before: Exposition
let after: Exposition
let report: Report

async function scrape(token: string | undefined): Promise<{ status: number; text: string }> {
  const res = await fetch(`${target.manifest.baseUrl}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} })
  return { status: res.status, text: await res.text() }
}

beforeAll(async () => {
  target = await startSelfTarget()
  before = parseExposition((await scrape(target.manifest.tokens.operator)).text)
  report = await runSuite({ manifest: target.manifest, seed: 22, filters: CASES, receiver: target.receiver })
  after = parseExposition((await scrape(target.manifest.tokens.operator)).text)
}, 120_000)
afterAll(async () => {
  await target?.close()
})

const delta = (name: string, labels: Record<string, string> = {}) => after.sum(name, labels) - before.sum(name, labels)

describe('/metrics scraped during a kit run', () => {
  it('ran the selected cases', () => {
    expect(report.cases.map((c) => `${c.id}:${c.outcome}`).sort()).toEqual(CASES.map((id) => `${id}:pass`).sort())
  })

  it('counts the sessions the run created, per engine, and the live ones match the session list', async () => {
    expect(delta('gateway_sessions_created_total', { engine: 'cli_primary' })).toBeGreaterThanOrEqual(1)
    expect(delta('gateway_sessions_created_total', { engine: 'cli_secondary' })).toBeGreaterThanOrEqual(1)
    const res = await fetch(`${target.manifest.baseUrl}/sessions`, { headers: { authorization: `Bearer ${target.manifest.tokens.operator}` } })
    const { sessions } = await res.json() as { sessions: Array<{ engine: string }> }
    const now = parseExposition((await scrape(target.manifest.tokens.operator)).text)
    for (const engine of ['cli_primary', 'cli_secondary', 'provider']) {
      expect(now.sum('gateway_sessions', { engine }), engine).toBe(sessions.filter((s) => s.engine === engine).length)
    }
  })

  it('counts the turns the run completed, per engine, with their durations', () => {
    for (const engine of ['cli_primary', 'cli_secondary']) {
      expect(delta('gateway_turns_total', { engine, outcome: 'completed' }), engine).toBeGreaterThanOrEqual(1)
      expect(delta('gateway_turn_duration_seconds_count', { engine }), engine).toBe(delta('gateway_turns_total', { engine }))
    }
  })

  it('counts the jobs that finished, the webhook attempts the retry case failed and retried, and reads the queue gauges', async () => {
    // jobs-webhook-retries-keep-order: its receiver answers 500 twice, then every attempt succeeds.
    expect(delta('gateway_jobs_finished_total', { status: 'succeeded' })).toBeGreaterThanOrEqual(2)
    expect(delta('gateway_job_duration_seconds_count')).toBe(delta('gateway_jobs_finished_total'))
    expect(delta('gateway_webhook_attempts_total', { outcome: 'failure' })).toBeGreaterThanOrEqual(2)
    expect(delta('gateway_webhook_retries_total')).toBeGreaterThanOrEqual(2)
    expect(delta('gateway_webhook_attempts_total', { outcome: 'success' })).toBeGreaterThanOrEqual(1)
    expect(delta('gateway_webhook_attempt_duration_seconds_count')).toBe(delta('gateway_webhook_attempts_total'))
    const res = await fetch(`${target.manifest.baseUrl}/queue`, { headers: { authorization: `Bearer ${target.manifest.tokens.operator}` } })
    const { stats } = await res.json() as { stats: { queued: number; running: number; parked: number } }
    const now = parseExposition((await scrape(target.manifest.tokens.operator)).text)
    for (const status of ['queued', 'running', 'parked'] as const) expect(now.sum('gateway_queue_jobs', { status }), status).toBe(stats[status])
  })

  it('counts exactly the 404s and 401s caused after the run, and refuses a scoped principal and no credentials', async () => {
    const operator = { authorization: `Bearer ${target.manifest.tokens.operator}` }
    const start = parseExposition((await scrape(target.manifest.tokens.operator)).text)
    for (let i = 0; i < 3; i++) await (await fetch(`${target.manifest.baseUrl}/no-such-route-${i}`, { headers: operator })).text()
    await (await fetch(`${target.manifest.baseUrl}/sessions`)).text()
    expect((await scrape(undefined)).status).toBe(401)
    expect((await scrape(target.manifest.tokens.tenantA)).status).toBe(404)
    const end = parseExposition((await scrape(target.manifest.tokens.operator)).text)
    const grew = (labels: Record<string, string>) => end.sum('gateway_http_requests_total', labels) - start.sum('gateway_http_requests_total', labels)
    expect(grew({ method: 'GET', route: 'other', status_class: '4xx' })).toBe(3)
    expect(grew({ method: 'GET', route: '/sessions', status_class: '4xx' })).toBe(1)
    expect(grew({ method: 'GET', route: '/metrics', status_class: '4xx' })).toBe(2)
    expect(grew({ method: 'GET', route: '/metrics', status_class: '2xx' })).toBe(1) // the first scrape; the last is counted when it ends
  })
})
