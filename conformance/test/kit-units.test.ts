import { execFile } from 'node:child_process'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { applyBaseline, loadBaseline } from '../baseline.ts'
import { readFile } from 'node:fs/promises'
import { checkManifest, ManifestError } from '../manifest.ts'
import { manifestJsonSchema } from '../target/manifest-schema.ts'
import { missingRequirement } from '../runner.ts'
import { selectCases } from '../run-suite.ts'
import { compareReports } from '../../reports/compare.ts'
import { renderJunit } from '../../reports/junit.ts'
import type { Case, CaseResult, Report } from '../types.ts'

const CLI = fileURLToPath(new URL('../cli.ts', import.meta.url))
const result = (id: string, outcome: CaseResult['outcome']): CaseResult => ({ id, title: id, section: 's', clauses: [], outcome, durationMs: 1, wireLog: [] })

function runCli(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', CLI, ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, output: stdout + stderr })
    })
  })
}

describe('baselines', () => {
  it('accepts listed failures and reports listed passes as stale', () => {
    const results = [result('a', 'fail'), result('b', 'pass'), result('c', 'fail')]
    const stale = applyBaseline(results, { a: 'known bug #12', b: 'was broken' })
    expect(results[0].baselined).toBe('known bug #12')
    expect(results[2].baselined).toBeUndefined()
    expect(stale).toEqual(['b'])
  })

  it('refuses a baseline entry without a reason', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'baseline-'))
    await writeFile(join(dir, 'b.json'), JSON.stringify({ knownFailures: { a: '' } }))
    await expect(loadBaseline(join(dir, 'b.json'))).rejects.toThrow(/needs a reason/)
  })
})

describe('manifests and requirements', () => {
  it('refuses a manifest without a baseUrl or with bad tokens', () => {
    expect(() => checkManifest({ tokens: {} }, 'm')).toThrow(ManifestError)
    expect(() => checkManifest({ baseUrl: 'http://x/v1', tokens: { operator: 5 } }, 'm')).toThrow(/tokens.operator/)
  })

  it('refuses unknown fields, principals, timers and feature names with a did-you-mean', () => {
    const refusal = (value: unknown) => { try { checkManifest(value, 'm.json'); return '' } catch (err) { return (err as Error).message } }
    expect(refusal({ baseUrl: 'http://x/v1', tokens: { operater: 't' } })).toBe("m.json: unknown field tokens.operater (did you mean 'operator'?)")
    expect(refusal({ baseUrl: 'http://x/v1', tokens: {}, featurs: [] })).toBe("m.json: unknown field featurs (did you mean 'features'?)")
    expect(refusal({ baseUrl: 'http://x/v1', tokens: {}, features: ['queu'] })).toBe('m.json: features.0: unknown value "queu" (did you mean \'queue\'?)')
    expect(refusal({ baseUrl: 'http://x/v1', tokens: {}, timers: { parkDelay: 1 } })).toBe("m.json: unknown field timers.parkDelay (did you mean 'parkDelayMs'?)")
    expect(refusal({ baseUrl: 'http://x/v1', tokens: {}, features: ['queue'], absent: ['queue'] })).toBe('m.json: queue listed in both features and absent')
  })

  it('publishes a JSON Schema generated from the zod schema', async () => {
    const published = JSON.parse(await readFile(new URL('../target/manifest.schema.json', import.meta.url), 'utf8'))
    expect(published).toEqual(JSON.parse(JSON.stringify(manifestJsonSchema())))
    expect(published.additionalProperties).toBe(false)
    expect(published.properties.features.items.enum).toContain('queue')
  })

  it('marks a case unsupported when a feature or principal is missing, and runs an absent-feature case only on an explicit absent', () => {
    const manifest = checkManifest({ baseUrl: 'http://x/v1', tokens: { operator: 't' }, features: ['provider'], absent: ['queue'] }, 'm')
    const c = (requires: string[]) => ({ requires }) as unknown as Case
    expect(missingRequirement(c(['provider']), manifest)).toBeUndefined()
    expect(missingRequirement(c(['queue']), manifest)).toBe('needs feature queue')
    expect(missingRequirement(c(['principal:tenantA']), manifest)).toBe('needs a token for principal tenantA')
    expect(missingRequirement(c(['absent:queue']), manifest)).toBeUndefined()
    expect(missingRequirement(c(['absent:hostFiles']), manifest)).toBe('needs feature hostFiles listed under absent (explicitly not offered)')
    expect(missingRequirement(c(['absent:provider']), manifest)).toMatch(/listed under absent/)
  })
})

const report = (cases: CaseResult[]) => ({ target: { baseUrl: 'http://t/v1', features: [] }, startedAt: '2026-11-22T00:00:00.000Z', durationMs: 5, cases }) as unknown as Report

describe('case selection', () => {
  it('--filter id:<case id> selects exactly that case, where the bare id also matches longer ids; repeated filters add up', () => {
    expect(selectCases(['jobs-cancel']).length).toBeGreaterThan(1)
    expect(selectCases(['id:jobs-cancel']).map((c) => c.id)).toEqual(['jobs-cancel'])
    expect(selectCases(['id:jobs-cancel', 'id:create-bypass-disabled-403']).map((c) => c.id).sort()).toEqual(['create-bypass-disabled-403', 'jobs-cancel'])
    expect(selectCases(['id:jobs-cance'])).toEqual([])
  })
})

describe('reports', () => {
  it('compares two reports case by case, regressions first', () => {
    const diffs = compareReports(report([result('z', 'fail'), result('a', 'pass'), result('b', 'fail')]), report([result('z', 'pass'), result('a', 'fail'), result('b', 'fail'), result('c', 'pass')]))
    expect(diffs).toEqual([
      { id: 'a', a: 'pass', b: 'fail', message: undefined, regression: true },
      { id: 'z', a: 'fail', b: 'pass', message: undefined, regression: false },
      { id: 'c', a: 'absent', b: 'pass', regression: false },
    ])
  })

  it('writes unsupported cases as skipped and failures with their message in JUnit XML', () => {
    const xml = renderJunit({ ...report([{ ...result('x', 'fail'), message: 'errors.1: expected 404 <got> 403' }, result('y', 'unsupported')]), seed: 1, clauseListHash: 'h' } as Report)
    expect(xml).toContain('<failure message="errors.1: expected 404 &lt;got&gt; 403"')
    expect(xml).toContain('<skipped')
    expect(xml).toMatch(/tests="2" failures="1" errors="0" skipped="1"/)
  })
})

describe('the command', () => {
  it('exits 2 for bad arguments and for a bad manifest', async () => {
    expect((await runCli(['--concurrency', 'many'])).code).toBe(2)
    const dir = await mkdtemp(join(tmpdir(), 'manifest-'))
    await writeFile(join(dir, 'm.json'), '{"baseUrl": 3}')
    const bad = await runCli(['--target', join(dir, 'm.json')])
    expect(bad.code).toBe(2)
    expect(bad.output).toContain('baseUrl: Invalid input: expected string, received number')
  })

  it('exits 2 with a did-you-mean for an unknown manifest field', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'manifest-'))
    await writeFile(join(dir, 'm.json'), JSON.stringify({ baseUrl: 'http://127.0.0.1:9/v1', tokens: { operator: 't' }, featurs: ['queue'] }))
    const res = await runCli(['--target', join(dir, 'm.json')])
    expect(res.code).toBe(2)
    expect(res.output).toContain("unknown field featurs (did you mean 'features'?)")
  })

  it('exits 2 in the preflight when the target is unreachable', async () => {
    const res = await runCli(['--url', 'http://127.0.0.1:9/v1', '--token', 't'])
    expect(res.code).toBe(2)
    expect(res.output).toContain('preflight: target unreachable: http://127.0.0.1:9/v1')
  })

  it('exits 2 when no token is given at all', async () => {
    const res = await runCli(['--url', 'http://127.0.0.1:9/v1'])
    expect(res.code).toBe(2)
    expect(res.output).toContain('preflight: no token')
  })

  it('exits 2 when --filter matches no case', async () => {
    const res = await runCli(['--url', 'http://127.0.0.1:9/v1', '--token', 't', '--filter', 'no-such-case-anywhere'])
    expect(res.code).toBe(2)
    expect(res.output).toContain('--filter "no-such-case-anywhere" matches no case')
  })

  it('compare: exits 2 for a wrong argument count, an unreadable file and a file that is not a report', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'compare-'))
    await writeFile(join(dir, 'x.json'), '{"not": "a report"}')
    const one = await runCli(['compare', join(dir, 'x.json')])
    expect(one.code).toBe(2)
    expect(one.output).toContain('compare needs two report.json files')
    const missing = await runCli(['compare', join(dir, 'none.json'), join(dir, 'x.json')])
    expect(missing.code).toBe(2)
    expect(missing.output).toContain(`cannot read report ${join(dir, 'none.json')}`)
    const notReport = await runCli(['compare', join(dir, 'x.json'), join(dir, 'x.json')])
    expect(notReport.code).toBe(2)
    expect(notReport.output).toContain('is not a gateway-conformance report.json')
    const badFlag = await runCli(['compare', '--bogus'])
    expect(badFlag.code).toBe(2)
  })

  it('compare: exits 1 when a case passing in the first report does not pass in the second, printing it first; 0 otherwise', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'compare-'))
    const write = async (name: string, cases: CaseResult[]) => writeFile(join(dir, name), JSON.stringify(report(cases)))
    await write('a.json', [result('fixed', 'fail'), result('broke', 'pass')])
    await write('b.json', [result('fixed', 'pass'), result('broke', 'fail')])
    const worse = await runCli(['compare', join(dir, 'a.json'), join(dir, 'b.json'), '--out', join(dir, 'c.html')])
    expect(worse.code).toBe(1)
    expect(worse.output.indexOf('broke: pass → fail')).toBeLessThan(worse.output.indexOf('fixed: fail → pass'))
    expect(worse.output).toContain('1 regression(s)')
    const better = await runCli(['compare', join(dir, 'b.json'), join(dir, 'a.json'), '--out', join(dir, 'c.html')])
    expect(better.code).toBe(1)
    const same = await runCli(['compare', join(dir, 'a.json'), join(dir, 'a.json'), '--out', join(dir, 'c.html')])
    expect(same.code).toBe(0)
    const unwritable = await runCli(['compare', join(dir, 'a.json'), join(dir, 'a.json'), '--out', join(dir, 'no/such/dir/c.html')])
    expect(unwritable.code).toBe(2)
    expect(unwritable.output).toContain('cannot write')
  })

  it('lists cases with their clauses and what the target must offer, without running them', async () => {
    const res = await runCli(['--list', '--filter', 'authentication.3'])
    expect(res.code).toBe(0)
    expect(res.output).toContain('auth-scope-miss-identical-404')
    expect(res.output).toContain('target must offer: feature provider; a token for principal tenantA; a token for principal tenantB')
    expect(res.output).not.toContain('ws-set-model')
  })
})
