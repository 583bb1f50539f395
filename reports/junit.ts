/** JUnit XML: one testcase per case, failures with messages, unsupported as skipped. */
import type { Report } from '../conformance/types.ts'

export function renderJunit(report: Report): string {
  const failures = report.cases.filter((c) => c.outcome === 'fail' || c.outcome === 'flaky').length
  const errors = report.cases.filter((c) => c.outcome === 'error').length
  const skipped = report.cases.filter((c) => c.outcome === 'unsupported').length
  const bySection = new Map<string, typeof report.cases>()
  for (const c of report.cases) bySection.set(c.section, [...(bySection.get(c.section) ?? []), c])
  const suites = [...bySection].map(([section, cases]) => {
    const body = cases.map((c) => {
      const open = `    <testcase name="${esc(`${c.id}: ${c.title}`)}" classname="conformance.${esc(section)}" time="${(c.durationMs / 1000).toFixed(3)}"`
      const clauses = `<system-out>${esc(`clauses: ${c.clauses.join(', ')}${c.baselined ? `\nbaselined: ${c.baselined}` : ''}`)}</system-out>`
      switch (c.outcome) {
        case 'pass':
        case 'non-strict':
          return `${open}>${clauses}</testcase>`
        case 'unsupported':
          return `${open}><skipped message="${esc(c.message ?? 'unsupported')}"/>${clauses}</testcase>`
        case 'error':
          return `${open}><error message="${esc(c.message ?? '')}" type="error">${esc(c.message ?? '')}</error>${clauses}</testcase>`
        default:
          return `${open}><failure message="${esc(c.message ?? '')}" type="${c.outcome}">${esc(c.message ?? '')}</failure>${clauses}</testcase>`
      }
    })
    const count = (o: string) => cases.filter((c) => c.outcome === o).length
    return `  <testsuite name="${esc(section)}" tests="${cases.length}" failures="${count('fail') + count('flaky')}" errors="${count('error')}" skipped="${count('unsupported')}" time="${(cases.reduce((t, c) => t + c.durationMs, 0) / 1000).toFixed(3)}" timestamp="${report.startedAt.slice(0, 19)}">\n${body.join('\n')}\n  </testsuite>`
  })
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="gateway-conformance" tests="${report.cases.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${(report.durationMs / 1000).toFixed(3)}">\n${suites.join('\n')}\n</testsuites>\n`
}

function esc(text: string): string {
  // Control characters are not allowed in XML 1.0 at all, escaped or not.
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}
