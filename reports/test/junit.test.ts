/**
 * JUnit by convention, validated with xmllint (WebAssembly, from npm) against both the Jenkins
 * (Surefire) model and the Ant schema written in reports/.
 */
import { readFile } from 'node:fs/promises'
import { validateXML } from 'xmllint-wasm'
import { describe, expect, it } from 'vitest'
import { renderJunit } from '../junit.ts'
import { fixtureReport } from './fixtures.ts'

const SCHEMAS = ['junit-jenkins.xsd', 'junit-ant.xsd']

async function validate(xml: string, schema: string) {
  const contents = await readFile(new URL(`../${schema}`, import.meta.url), 'utf8')
  return validateXML({ xml: [{ fileName: 'junit.xml', contents: xml }], schema: [{ fileName: schema, contents }] })
}

describe('JUnit XML', () => {
  for (const kind of ['passing', 'failing'] as const) {
    for (const schema of SCHEMAS) {
      it(`a ${kind} run validates against ${schema}`, async () => {
        const result = await validate(renderJunit(fixtureReport(kind)), schema)
        expect(result.errors.map((e) => e.rawMessage)).toEqual([])
        expect(result.valid).toBe(true)
      })
    }
  }

  it('the schemas can fail: a testcase without a name, and skipped counted on testsuites, are refused', async () => {
    const xml = renderJunit(fixtureReport('passing'))
    for (const schema of SCHEMAS) expect((await validate(xml.replace(/<testcase name="[^"]*"/, '<testcase'), schema)).valid).toBe(false)
    expect((await validate(xml.replace('<testsuites>', '<testsuites skipped="1">'), 'junit-jenkins.xsd')).valid).toBe(false)
  })

  it('names each testcase by case id with the spec section as classname, and maps outcomes by convention', () => {
    const report = fixtureReport('failing')
    const xml = renderJunit(report)
    expect(xml.match(/<testcase /g)).toHaveLength(report.cases.length)
    const failed = report.cases.find((c) => c.outcome === 'fail' && !c.baselined)!
    expect(xml).toContain(`<testcase name="${failed.id}" classname="${failed.section}"`)
    const failure = xml.slice(xml.indexOf(`<testcase name="${failed.id}"`)).split('</testcase>')[0]
    expect(failure).toContain('<failure message="errors.1: expected HTTP 404, got HTTP 403')
    expect(failure).toContain('[tenantB] request GET http://127.0.0.1:1/v1/sessions/abc')
    const errored = report.cases.find((c) => c.outcome === 'error')!
    expect(xml.slice(xml.indexOf(`<testcase name="${errored.id}"`)).split('</testcase>')[0]).toContain('<error message="ECONNRESET" type="error">')
    const baselined = report.cases.find((c) => c.baselined)!
    expect(xml.slice(xml.indexOf(`<testcase name="${baselined.id}"`)).split('</testcase>')[0]).toContain('<skipped message="known failure (baseline): known bug #12"/>')
    const unsupported = report.cases.find((c) => c.outcome === 'unsupported')!
    expect(xml.slice(xml.indexOf(`<testcase name="${unsupported.id}"`)).split('</testcase>')[0]).toContain('<skipped message="unsupported: needs feature queue"/>')
    const nonStrict = report.cases.find((c) => c.outcome === 'non-strict')!
    expect(xml).toMatch(new RegExp(`<testcase name="${nonStrict.id}"[^>]*/>`))
    expect(xml).toContain(`${nonStrict.id}: non-strict (passed;`)
  })
})
