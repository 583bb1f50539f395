/**
 * GatewayMetrics fed events directly, read back through its exposition: the series an operator's
 * dashboards read (labels, outcomes, units), the managed-profile label bound and the option
 * validation messages. metrics.test.ts drives the same class through a running server.
 */
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../protocol/index.ts'
import { parseExposition, type Exposition } from '../test/prometheus-text.ts'
import { GatewayMetrics, routeLabel, validateMetricsOptions } from './metrics.ts'

const NONE = { session: 0, queue: 0 }

function metrics(profiles: Record<string, 'declared' | 'managed'> = {}, managedProfileLabels = 50): GatewayMetrics {
  return new GatewayMetrics({
    basePath: '', healthPaths: [], sessions: () => [],
    webSockets: () => ({ open: NONE, bufferedBytes: NONE, slowReaders: NONE }),
    profileKind: (name) => profiles[name], managedProfileLabels,
  })
}

async function scrape(m: GatewayMetrics): Promise<Exposition> {
  return parseExposition((await m.exposition()).body)
}

function turnResult(fields: { isError?: boolean; durationMs?: number; input?: number; output?: number } = {}): SessionEvent {
  return {
    seq: 1, ts: 0, type: 'turn_result', subtype: fields.isError ? 'error' : 'success', isError: fields.isError ?? false, durationMs: fields.durationMs ?? 0,
    numTurns: 1, totalCostUsd: 0, usage: { input_tokens: fields.input ?? 0, output_tokens: fields.output ?? 0 },
  }
}

describe('GatewayMetrics series', () => {
  it('counts sessions and session errors by engine, "unknown" when the engine is not known', async () => {
    const m = metrics()
    m.sessionRegistered('provider')
    m.sessionRegistered(undefined)
    m.sessionEvent({}, undefined, undefined, { seq: 1, ts: 0, type: 'session_error', message: 'x' })
    m.sessionEvent({}, 'cli_primary', undefined, { seq: 1, ts: 0, type: 'session_error', message: 'y' })
    const s = await scrape(m)
    expect(s.sum('gateway_sessions_created_total', { engine: 'provider' })).toBe(1)
    expect(s.sum('gateway_sessions_created_total', { engine: 'unknown' })).toBe(1)
    expect(s.sum('gateway_session_errors_total', { engine: 'unknown' })).toBe(1)
    expect(s.sum('gateway_session_errors_total', { engine: 'cli_primary' })).toBe(1)
  })

  it('counts turns by outcome, their duration in seconds, and tokens by direction', async () => {
    const m = metrics({ main: 'declared' })
    m.sessionEvent({}, 'provider', 'main', turnResult({ durationMs: 1500, input: 7, output: 11 }))
    m.sessionEvent({}, 'provider', 'main', turnResult({ isError: true, durationMs: 500 }))
    const s = await scrape(m)
    expect(s.sum('gateway_turns_total', { engine: 'provider', outcome: 'completed' })).toBe(1)
    expect(s.sum('gateway_turns_total', { engine: 'provider', outcome: 'failed' })).toBe(1)
    expect(s.sum('gateway_turn_duration_seconds_sum', { engine: 'provider' })).toBeCloseTo(2)
    expect(s.sum('gateway_tokens_total', { profile: 'main', direction: 'input' })).toBe(7)
    expect(s.sum('gateway_tokens_total', { profile: 'main', direction: 'output' })).toBe(11)
  })

  it('gives at most managedProfileLabels managed profiles a label; a removed one frees its slot and loses its series', async () => {
    const m = metrics({ main: 'declared', a: 'managed', b: 'managed', c: 'managed' }, 2)
    for (const profile of ['main', 'a', 'b', 'c', 'a', 'gone']) m.sessionEvent({}, 'provider', profile, turnResult({ input: 1, output: 1 }))
    let s = await scrape(m)
    const byProfile = (p: string) => s.sum('gateway_tokens_total', { profile: p, direction: 'input' })
    expect(['main', 'a', 'b', 'c', '(other)', '(unknown)'].map(byProfile)).toEqual([1, 2, 1, 0, 1, 1])
    m.profileRemoved('a')
    m.sessionEvent({}, 'provider', 'c', turnResult({ input: 1 }))
    s = await scrape(m)
    expect(['a', 'c', '(other)'].map(byProfile)).toEqual([0, 1, 1])
    expect(s.sum('gateway_tokens_total', { profile: 'a', direction: 'output' })).toBe(0)
  })

  it('counts webhook attempts by outcome and the attempts after the first as retries', async () => {
    const m = metrics()
    m.webhookAttempt({ origin: 'http://x', attempt: 1, ok: false, durationMs: 10 })
    m.webhookAttempt({ origin: 'http://x', attempt: 2, ok: true, durationMs: 10 })
    const s = await scrape(m)
    expect(s.sum('gateway_webhook_attempts_total', { outcome: 'failure' })).toBe(1)
    expect(s.sum('gateway_webhook_attempts_total', { outcome: 'success' })).toBe(1)
    expect(s.sum('gateway_webhook_retries_total')).toBe(1)
  })
})

describe('routeLabel of every family', () => {
  it('keeps the family and drops what follows it', () => {
    expect(routeLabel('/sessions', '', [])).toBe('/sessions')
    expect(routeLabel('/fs', '', [])).toBe('/fs')
    expect(routeLabel('/fs/read', '', [])).toBe('/fs/*')
    expect(routeLabel('/sdk-sessions/x', '', [])).toBe('/sdk-sessions/*')
    expect(routeLabel('/', '', [])).toBe('/')
  })
})

describe('validateMetricsOptions', () => {
  it('refuses a managedProfileLabels that is not a non-negative integer, and a port out of range', () => {
    expect(() => validateMetricsOptions({ managedProfileLabels: 1.5 })).toThrow(/managedProfileLabels must be a non-negative integer/)
    expect(() => validateMetricsOptions({ managedProfileLabels: -1 })).toThrow(/managedProfileLabels/)
    expect(() => validateMetricsOptions({ port: 65536 })).toThrow(/metrics.port must be an integer from 0 to 65535/)
    expect(() => validateMetricsOptions({ port: 9 })).not.toThrow()
    expect(() => validateMetricsOptions({ managedProfileLabels: 0, port: 0 })).not.toThrow()
    expect(() => validateMetricsOptions({ managedProfileLabels: 3 })).not.toThrow()
    expect(() => validateMetricsOptions({ host: '127.0.0.1' })).toThrow(/metrics.host needs metrics.port/)
    expect(() => validateMetricsOptions('yes')).toThrow(/metrics must be a boolean/)
  })
})
