/**
 * JUnit XML by convention, valid against both the Jenkins (Surefire) model and the Ant schema
 * (reports/junit-jenkins.xsd, reports/junit-ant.xsd): one testsuite per spec section, one testcase
 * per case with `name` = case id (a title edit never renames a test in CI history) and
 * `classname` = section. fail/flaky → failure, error → error, each with the message and a wire
 * log excerpt; unsupported and baselined known failures → skipped with the reason; non-strict
 * passes, with its note in the suite's system-out (Ant allows no output inside a testcase).
 */
import type { CaseResult, Report } from '../conformance/types.ts'

const EXCERPT_ENTRIES = 30

type Kind = 'passed' | 'failure' | 'error' | 'skipped'

function kindOf(c: CaseResult): Kind {
  if (c.baselined || c.outcome === 'unsupported') return 'skipped'
  if (c.outcome === 'fail' || c.outcome === 'flaky') return 'failure'
  if (c.outcome === 'error') return 'error'
  return 'passed'
}

export function wireExcerpt(c: CaseResult, max = EXCERPT_ENTRIES): string {
  const entries = c.wireLog.slice(-max)
  const skipped = c.wireLog.length - entries.length
  const lines = entries.map((w) => `+${w.at}ms ${w.who ? `[${w.who}] ` : ''}${w.kind} ${w.summary}${w.body ? `\n    ${w.body.slice(0, 400)}` : ''}`)
  return `${skipped ? `(${skipped} earlier entries omitted)\n` : ''}${lines.join('\n')}`
}

function testcase(c: CaseResult, section: string): string {
  const open = `    <testcase name="${esc(c.id)}" classname="${esc(section)}" time="${(c.durationMs / 1000).toFixed(3)}"`
  const message = c.message ?? c.outcome
  switch (kindOf(c)) {
    case 'passed':
      return `${open}/>`
    case 'skipped':
      return `${open}>\n      <skipped message="${esc(c.baselined ? `known failure (baseline): ${c.baselined}` : `unsupported: ${message}`)}"/>\n    </testcase>`
    case 'error':
      return `${open}>\n      <error message="${esc(message)}" type="error">${esc(`${message}\n\nwire log:\n${wireExcerpt(c)}`)}</error>\n    </testcase>`
    case 'failure':
      return `${open}>\n      <failure message="${esc(message)}" type="${c.outcome}">${esc(`${message}\n\nwire log:\n${wireExcerpt(c)}`)}</failure>\n    </testcase>`
  }
}

export function renderJunit(report: Report, hostname = 'localhost'): string {
  const bySection = new Map<string, CaseResult[]>()
  for (const c of report.cases) bySection.set(c.section, [...(bySection.get(c.section) ?? []), c])
  const timestamp = report.startedAt.slice(0, 19)
  const suites = [...bySection].map(([section, cases], id) => {
    const count = (k: Kind) => cases.filter((c) => kindOf(c) === k).length
    const notes = cases.filter((c) => c.outcome === 'non-strict').map((c) => `${c.id}: non-strict (passed; the spec is open here and the target departs from protocol 7): ${c.message ?? ''}`)
    const props = [['baseUrl', report.target.baseUrl], ['seed', String(report.seed)], ['clauseListHash', report.clauseListHash]]
      .map(([n, v]) => `      <property name="${n}" value="${esc(v ?? '')}"/>`).join('\n')
    return [
      `  <testsuite name="${esc(section)}" package="gateway-conformance" id="${id}" timestamp="${timestamp}" hostname="${esc(hostname)}" tests="${cases.length}" failures="${count('failure')}" errors="${count('error')}" skipped="${count('skipped')}" time="${(cases.reduce((t, c) => t + c.durationMs, 0) / 1000).toFixed(3)}">`,
      `    <properties>\n${props}\n    </properties>`,
      ...cases.map((c) => testcase(c, section)),
      `    <system-out>${esc(notes.join('\n'))}</system-out>`,
      '    <system-err></system-err>',
      '  </testsuite>',
    ].join('\n')
  })
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n${suites.join('\n')}\n</testsuites>\n`
}

function esc(text: string | undefined): string {
  // Control characters are not allowed in XML 1.0 at all, escaped or not.
  return String(text ?? '').replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}
