/**
 * The whole suite against the self target requires 0 fail and 0 error, and the reports it
 * writes are valid: junit.xml against both JUnit schemas (xmllint-wasm). The HTML report is
 * checked in a real browser in reports/test/html.test.ts.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { validateXML } from 'xmllint-wasm'
import { writeReports } from '../../reports/write.ts'
import { exitCodeOf, runSuite } from '../run-suite.ts'
import { startSelfTarget, type SelfTarget } from '../target/self.ts'
import type { Report } from '../types.ts'

let target: SelfTarget
let report: Report
let dir: string
/**
 * A canary in every credential variable the gateway and its engines may read: none may
 * reach a log line or a report. Not ANTHROPIC_API_KEY: a key in the server's environment wins for
 * every Claude profile (authentication.8), which would sign in the kit's logged-out profile.
 */
const CANARIES = Object.fromEntries(['FAKE_MODEL_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN', 'OPENAI_API_KEY', 'CODEX_API_KEY']
  .map((name) => [name, `canary-${name.toLowerCase()}-${Math.random().toString(36).slice(2)}`]))

beforeAll(async () => {
  target = await startSelfTarget({ env: { ...CANARIES, GATEWAY_LOG_LEVEL: 'debug' } })
  report = await runSuite({ manifest: target.manifest, seed: 1234, receiver: target.receiver, restart: target.restart })
  dir = await mkdtemp(join(tmpdir(), 'conformance-report-'))
  await writeReports(report, dir, false)
}, 120_000)
afterAll(async () => {
  await target?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('the suite against the self target', () => {
  it('has no fail and no error', () => {
    const bad = report.cases.filter((c) => c.outcome === 'fail' || c.outcome === 'error').map((c) => `${c.id}: ${c.message}`)
    expect(bad).toEqual([])
    expect(report.summary.pass).toBeGreaterThan(50)
    expect(exitCodeOf(report)).toBe(0)
  })

  it('logs JSON access and lifecycle lines with no canary credential in any of them, nor in the reports', async () => {
    const lines = target.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l))
    expect(lines.filter((l) => l.kind === 'http').length).toBeGreaterThan(100)
    expect(lines.filter((l) => l.kind === 'ws').length).toBeGreaterThan(10)
    expect(lines.some((l) => l.kind === 'session' && l.msg === 'session parked')).toBe(true)
    const everything = `${target.output()}\n${await readFile(join(dir, 'report.json'), 'utf8')}\n${await readFile(join(dir, 'junit.xml'), 'utf8')}`
    for (const [name, canary] of Object.entries(CANARIES)) expect(everything.includes(canary), name).toBe(false)
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
