/** Two reports side by side: which cases differ and how (console and HTML). */
import type { Report } from '../conformance/types.ts'

/** One case whose outcome differs; a regression passed in A and does not pass in B. */
export interface Difference { id: string; a: string; b: string; message?: string; regression: boolean }

const PASSING = new Set(['pass', 'non-strict'])

export function compareReports(a: Report, b: Report): Difference[] {
  const byId = new Map(b.cases.map((c) => [c.id, c]))
  const diffs: Difference[] = []
  for (const ca of a.cases) {
    const cb = byId.get(ca.id)
    const passedBefore = PASSING.has(ca.outcome)
    if (!cb) diffs.push({ id: ca.id, a: ca.outcome, b: 'absent', regression: passedBefore })
    else if (cb.outcome !== ca.outcome) diffs.push({ id: ca.id, a: ca.outcome, b: cb.outcome, message: cb.message ?? ca.message, regression: passedBefore && !PASSING.has(cb.outcome) })
    byId.delete(ca.id)
  }
  for (const cb of byId.values()) diffs.push({ id: cb.id, a: 'absent', b: cb.outcome, regression: false })
  // Regressions first: they are what decides the exit code and what a reader must see.
  return [...diffs.filter((d) => d.regression), ...diffs.filter((d) => !d.regression)]
}

export function renderCompareText(a: Report, b: Report, diffs: Difference[]): string {
  const head = `A: ${a.target.baseUrl} (${a.startedAt})\nB: ${b.target.baseUrl} (${b.startedAt})\n`
  if (!diffs.length) return `${head}no differences in ${a.cases.length} cases\n`
  const line = (d: Difference) => `  ${d.id}: ${d.a} → ${d.b}${d.message ? ` (${d.message})` : ''}`
  const regressions = diffs.filter((d) => d.regression)
  const others = diffs.filter((d) => !d.regression)
  const parts = [head]
  if (regressions.length) parts.push(`${regressions.length} regression(s): passing in A, not passing in B:\n${regressions.map(line).join('\n')}\n`)
  if (others.length) parts.push(`${others.length} other difference(s):\n${others.map(line).join('\n')}\n`)
  return parts.join('')
}

export function renderCompareHtml(a: Report, b: Report, diffs: Difference[]): string {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;')
  const rows = diffs.map((d) => `<tr><td>${d.regression ? '<b>regression</b> ' : ''}${esc(d.id)}</td><td class="${d.a}">${d.a}</td><td class="${d.b}">${d.b}</td><td>${esc(d.message ?? '')}</td></tr>`).join('\n')
  return `<!doctype html><html><head><meta charset="utf-8"><title>Conformance comparison</title><style>body{font:14px system-ui;margin:24px}td,th{border-bottom:1px solid #ddd;padding:4px 8px}.fail,.error{color:#b00020}.pass{color:#176b2c}</style></head>
<body><h1>Conformance comparison</h1><p>A: ${esc(a.target.baseUrl)} · B: ${esc(b.target.baseUrl)} · ${diffs.length} case(s) differ</p>
<table><thead><tr><th>case</th><th>A</th><th>B</th><th>message</th></tr></thead><tbody>${rows}</tbody></table></body></html>`
}
