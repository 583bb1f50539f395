/**
 * The kit through the variation proxy (conformance/variants) with every variation on: a gateway
 * taking each open choice the other way must come out as our gateway does without the proxy —
 * no fail, no non-strict, no case unsupported that runs without it.
 */
import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NO_SYSTEM_INIT } from '../harness/case-helpers/index.ts'
import { runSuite } from '../run-suite.ts'
import { startSelfTarget } from '../target/self.ts'
import type { Report } from '../types.ts'
import { EventNumbering } from '../variants/event-numbering.ts'
import { README, renderTable, withTable } from '../variants/render-table.ts'
import { startVariantTarget, type VariantTarget } from '../variants/variant-target.ts'
import { ALL_VARIATIONS, parseVariations } from '../variants/variations.ts'

/** Of the cases unsupported through the proxy, those unsupported without it too. */
let directUnsupported: string[] = []
let proxied: Report
let target: VariantTarget | undefined

const outcomes = (r: Report, outcome: string) => r.cases.filter((c) => c.outcome === outcome).map((c) => `${c.id}: ${c.message}`)

beforeAll(async () => {
  target = await startVariantTarget()
  proxied = await runSuite({ manifest: target.manifest, seed: 20, receiver: target.receiver, restart: target.restart })
  // Without the proxy only the cases unsupported through it need running again (the whole kit
  // against the self target is self-target.test.ts), on a gateway of its own: the kit spends a
  // gateway's daily token budget.
  const unsupported = proxied.cases.filter((c) => c.outcome === 'unsupported').map((c) => c.id)
  if (!unsupported.length) return
  const plain = await startSelfTarget()
  try {
    directUnsupported = (await runSuite({ manifest: plain.manifest, seed: 20, receiver: plain.receiver, restart: plain.restart, filters: unsupported }))
      .cases.filter((c) => c.outcome === 'unsupported').map((c) => c.id)
  } finally {
    await plain.close()
  }
}, 180_000)
afterAll(async () => {
  await target?.close()
})

describe('the kit through the variation proxy, every variation on', () => {
  it('ran every case through the proxy', () => {
    expect(proxied.target.baseUrl).toBe(target!.proxy.baseUrl)
    expect(proxied.cases.length).toBeGreaterThan(100)
    expect(new Set(proxied.cases.map((c) => c.id)).size).toBe(proxied.cases.length)
  })
  it('has no fail and no error', () => {
    expect([...outcomes(proxied, 'fail'), ...outcomes(proxied, 'error'), ...outcomes(proxied, 'flaky')]).toEqual([])
  })
  it('has no non-strict case', () => {
    expect(outcomes(proxied, 'non-strict')).toEqual([])
  })
  it('leaves no case unsupported that runs without the proxy', () => {
    const before = new Set(directUnsupported)
    expect(proxied.cases.filter((c) => c.outcome === 'unsupported').length).toBeLessThan(10)
    // provider-events-dropped takes system_init away, legally: a case reading the offered tools
    // from it can only say so (NO_SYSTEM_INIT), and is held to run wherever system_init comes.
    expect(proxied.cases.filter((c) => c.outcome === 'unsupported' && !before.has(c.id) && c.message !== NO_SYSTEM_INIT).map((c) => `${c.id}: ${c.message}`)).toEqual([])
  })
  it('judges a provider search without system_init: the call is made and its answer read', () => {
    expect(proxied.cases.find((c) => c.id === 'provider-web-search-answered')?.outcome).toBe('pass')
  })
  it('shows the variations took effect: the open choices are observed on the cases', () => {
    const observed = proxied.cases.flatMap((c) => c.observations ?? []).join('\n')
    expect(observed).toMatch(/without protocol 7's \{error: string\} body/)
    expect(observed).toMatch(/answered 200 where protocol 7 answers 201/)
    expect(observed).toMatch(/terminal status 'completed'/)
  })
  it('shows the tool variations took effect: the model bound the reshaped tools', () => {
    const wire = proxied.cases.flatMap((c) => c.wireLog.map((w) => w.body ?? '')).join('\n')
    // tool_use blocks as the other implementation names them, with the arguments the model chose.
    expect(wire).toMatch(/"name":"ext_deferred_task"/)
    expect(wire).toMatch(/"name":"eval_script","input":\{"source":/)
    expect(wire).toMatch(/"name":"peers_send","input":\{"recipient":/)
    expect(wire).toMatch(/"name":"deliver_file","input":\{"file_path":"[^"]+"\}/)
    expect(wire).not.toMatch(/"name":"mcp__/)
    // Tool results the model read as {"output": …} (echoed into its text), execution outputs wrapped.
    expect(wire).toContain('{\\"output\\":')
    expect(wire).toContain('"output":{"type":"json","value"')
  })
  it('shows the scope refusal took the other status', () => {
    const observed = proxied.cases.flatMap((c) => c.observations ?? []).join('\n')
    expect(observed).toMatch(/refused to a scoped principal with 403/)
  })
})

describe('the variation table', () => {
  it('is rendered into conformance/variants/README.md unchanged', async () => {
    const readme = await readFile(README, 'utf8')
    expect(readme).toContain(renderTable())
    expect(withTable(readme)).toBe(readme)
  })
  it('cites a clause and the spec\'s words for every variation, and parses switch lists', () => {
    expect(renderTable().split('\n').length).toBe(ALL_VARIATIONS.length + 2)
    expect([...parseVariations('all')]).toEqual([...ALL_VARIATIONS])
    expect([...parseVariations('job-terminal-renamed, error-body-reshaped')]).toEqual(['job-terminal-renamed', 'error-body-reshaped'])
    expect(() => parseVariations('no-such-variation')).toThrow(/unknown variation/)
  })
})

describe('event renumbering', () => {
  it('numbers the kept events 1, 2, 3 whatever was dropped below them', () => {
    const n = new EventNumbering()
    expect(n.drop('s', 'provider', { type: 'system_init', seq: 1 })).toBe(true)
    expect(n.drop('s', 'provider', { type: 'capabilities', seq: 2 })).toBe(true)
    expect(n.drop('s', 'cli_primary', { type: 'system_init', seq: 3 })).toBe(false)
    expect(n.drop('s', 'provider', { type: 'status_changed', seq: 3 })).toBe(false)
    expect([3, 4, 5].map((s) => n.map('s', s))).toEqual([1, 2, 3])
    expect(n.map('other', 7)).toBe(7)
    // The way back, for a route naming an event by the proxy's seq: dropped seqs 1, 2 and 5.
    n.drop('s', 'provider', { type: 'context_usage', seq: 5 })
    expect([1, 2, 3, 4].map((s) => n.unmap('s', s))).toEqual([3, 4, 6, 7])
    expect([3, 4, 6, 7].map((s) => n.unmap('s', n.map('s', s)))).toEqual([3, 4, 6, 7])
    expect(n.unmap('other', 7)).toBe(7)
  })
})
