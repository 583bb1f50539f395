/**
 * The whole suite against the self target requires 0 fail and 0 error, and the reports it
 * writes are valid: junit.xml against the JUnit schema (xmllint), index.html in headless Chromium.
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeReports } from '../../reports/write.ts'
import { exitCodeOf, runSuite } from '../run-suite.ts'
import { startSelfTarget, type SelfTarget } from '../target/self.ts'
import type { Report } from '../types.ts'

const XSD = fileURLToPath(new URL('../../reports/junit.xsd', import.meta.url))
let target: SelfTarget
let report: Report
let dir: string

beforeAll(async () => {
  target = await startSelfTarget()
  report = await runSuite({ manifest: target.manifest, seed: 1234, receiver: target.receiver, restart: target.restart })
  dir = await mkdtemp(join(tmpdir(), 'conformance-report-'))
  await writeReports(report, dir, false)
}, 120_000)
afterAll(async () => { await target?.close() })

describe('the suite against the self target', () => {
  it('has no fail and no error', () => {
    const bad = report.cases.filter((c) => c.outcome === 'fail' || c.outcome === 'error').map((c) => `${c.id}: ${c.message}`)
    expect(bad).toEqual([])
    expect(report.summary.pass).toBeGreaterThan(50)
    expect(exitCodeOf(report)).toBe(0)
  })

  it('records the seed, the clause list hash and redacted tokens in report.json', async () => {
    const json = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report
    expect(json.seed).toBe(1234)
    expect(json.clauseListHash).toMatch(/^[0-9a-f]{16}$/)
    expect(Object.values(json.manifest.tokens).every((t) => t === '<redacted>')).toBe(true)
    for (const token of Object.values(target.manifest.tokens)) expect(JSON.stringify(json)).not.toContain(token)
    expect(json.coverage.satisfied).toBeGreaterThan(0)
  })

  it('writes junit.xml that validates against the JUnit schema', () => {
    const out = execFileSync('xmllint', ['--noout', '--schema', XSD, join(dir, 'junit.xml')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
    expect(out).toBe('')
  })

  it('writes index.html that renders in headless Chromium without script errors and shows the summary', () => {
    const dom = execFileSync('chromium', [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--no-first-run', '--disable-sync', '--disable-quic', `--user-data-dir=${join(dir, 'chromium')}`, '--dump-dom', `file://${join(dir, 'index.html')}`,
    ], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 60_000, maxBuffer: 64 * 1024 * 1024 })
    expect(dom).toContain('data-rendered="ok"')
    expect(dom).not.toContain('data-script-error')
    expect(dom).toContain(`pass <b>${report.summary.pass}</b>`)
    expect(dom).toContain(`fail <b>${report.summary.fail}</b>`)
  }, 60_000)
})
