/**
 * The whole suite against the self target requires 0 fail and 0 error, and the reports it
 * writes are valid: junit.xml against both JUnit schemas (xmllint-wasm). The HTML report is
 * checked in a real browser in reports/test/html.test.ts.
 */
import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { validateXML } from 'xmllint-wasm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeReports } from '../../reports/write.ts'
import { exitCodeOf, runSuite } from '../run-suite.ts'
import { startSelfTarget, type SelfTarget } from '../target/self.ts'
import type { Report } from '../types.ts'

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

  it('writes junit.xml that validates against the Jenkins and Ant JUnit schemas', async () => {
    const xml = await readFile(join(dir, 'junit.xml'), 'utf8')
    for (const schema of ['junit-jenkins.xsd', 'junit-ant.xsd']) {
      const contents = await readFile(new URL(`../../reports/${schema}`, import.meta.url), 'utf8')
      const result = await validateXML({ xml: [{ fileName: 'junit.xml', contents: xml }], schema: [{ fileName: schema, contents }] })
      expect(result.errors.map((e) => e.rawMessage), schema).toEqual([])
    }
  })

  it('reports clauses satisfied by passing cases, and every testable clause is cited', () => {
    expect(report.coverage.cited).toBe(report.coverage.testable)
    expect(report.coverage.satisfied).toBeGreaterThan(report.coverage.testable / 2)
    expect(report.coverage.failing).toBe(0)
  })
})
