import { execFile } from 'node:child_process'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { applyBaseline, loadBaseline } from '../baseline.ts'
import { checkManifest, ManifestError } from '../manifest.ts'
import { missingRequirement } from '../runner.ts'
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

  it('marks a case unsupported when a feature or principal is missing', () => {
    const manifest = checkManifest({ baseUrl: 'http://x/v1', tokens: { operator: 't' }, features: ['provider'] }, 'm')
    const c = (requires: string[]) => ({ requires }) as unknown as Case
    expect(missingRequirement(c(['provider']), manifest)).toBeUndefined()
    expect(missingRequirement(c(['queue']), manifest)).toBe('needs feature queue')
    expect(missingRequirement(c(['principal:tenantA']), manifest)).toBe('needs principal tenantA')
    expect(missingRequirement(c(['no:provider']), manifest)).toBe('applies only without feature provider')
  })
})

describe('reports', () => {
  const report = (cases: CaseResult[]) => ({ target: { baseUrl: 'http://t/v1', features: [] }, startedAt: '2026-11-22T00:00:00.000Z', durationMs: 5, cases }) as unknown as Report

  it('compares two reports case by case', () => {
    const diffs = compareReports(report([result('a', 'pass'), result('b', 'fail')]), report([result('a', 'fail'), result('b', 'fail'), result('c', 'pass')]))
    expect(diffs).toEqual([{ id: 'a', a: 'pass', b: 'fail', message: undefined }, { id: 'c', a: 'absent', b: 'pass' }])
  })

  it('writes unsupported cases as skipped and failures with their message in JUnit XML', () => {
    const xml = renderJunit(report([{ ...result('x', 'fail'), message: 'errors.1: expected 404 <got> 403' }, result('y', 'unsupported')]))
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
    expect(bad.output).toContain('baseUrl must be an http(s) URL')
  })

  it('exits 3 when the target is unreachable', async () => {
    const res = await runCli(['--url', 'http://127.0.0.1:9/v1', '--token', 't'])
    expect(res.code).toBe(3)
    expect(res.output).toContain('target unreachable')
  })

  it('lists cases with their clauses without running them', async () => {
    const res = await runCli(['--list', '--filter', 'authentication.3'])
    expect(res.code).toBe(0)
    expect(res.output).toContain('auth-scope-miss-identical-404')
    expect(res.output).not.toContain('ws-set-model')
  })
})
