/**
 * The HTML report: one self-contained page rendered from report.json (summary, coverage by
 * section, a filterable case table, wire logs of failed cases). The data rides in a JSON script
 * element and a small inline script renders it; `<` is escaped so no value can end the element.
 */
import type { Report } from '../conformance/types.ts'

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}h1{font-size:20px}table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}.pass{color:#176b2c}.fail,.error,.flaky{color:#b00020;font-weight:600}
.non-strict{color:#8a5a00}.unsupported{color:#666}#summary span{display:inline-block;margin-right:16px;font-size:16px}pre{white-space:pre-wrap;background:#f6f6f6;padding:8px;font-size:12px}
.bar{background:#eee;width:160px;height:10px;display:inline-block}.bar i{display:block;height:10px;background:#2e7d32}input,select{margin:0 8px 12px 0}`

const SCRIPT = `
const report = JSON.parse(document.getElementById('report-data').textContent)
const el = (tag, attrs = {}, ...kids) => { const e = document.createElement(tag); for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); for (const kid of kids) e.append(kid); return e }
const s = report.summary
document.getElementById('target').textContent = report.target.baseUrl + ' — ' + report.startedAt + ' — ' + (report.durationMs / 1000).toFixed(1) + ' s — seed ' + report.seed
const summary = document.getElementById('summary')
for (const [label, key] of [['pass', 'pass'], ['fail', 'fail'], ['non-strict', 'nonStrict'], ['unsupported', 'unsupported'], ['error', 'error'], ['flaky', 'flaky']]) {
  summary.append(el('span', { class: label, 'data-outcome': label }, label + ' ', el('b', {}, String(s[key]))))
}
const cov = report.coverage
document.getElementById('coverage-total').textContent = cov.covered + ' / ' + cov.testable + ' testable clauses cited (' + cov.excluded + ' excluded as not observable)'
const covBody = document.querySelector('#coverage tbody')
for (const [section, row] of Object.entries(cov.bySection)) {
  const pct = row.testable ? Math.round(100 * row.covered / row.testable) : 100
  const bar = el('span', { class: 'bar' }, el('i', { style: 'width:' + pct + '%' }))
  covBody.append(el('tr', {}, el('td', {}, section), el('td', {}, row.covered + ' / ' + row.testable), el('td', {}, bar)))
}
const filterText = document.getElementById('filter'), filterOutcome = document.getElementById('outcome')
const caseBody = document.querySelector('#cases tbody')
function render() {
  caseBody.textContent = ''
  const q = filterText.value.toLowerCase(), o = filterOutcome.value
  for (const c of report.cases) {
    if (o && c.outcome !== o) continue
    if (q && !(c.id + ' ' + c.title + ' ' + c.clauses.join(' ') + ' ' + c.section).toLowerCase().includes(q)) continue
    const details = el('td', {}, c.message || '')
    if (['fail', 'error', 'flaky'].includes(c.outcome) && c.wireLog.length) {
      const log = c.wireLog.map((w) => '+' + w.at + 'ms ' + w.kind + ' ' + w.summary + (w.body ? '\\n    ' + w.body : '')).join('\\n')
      details.append(el('details', {}, el('summary', {}, 'wire log (' + c.wireLog.length + ')'), el('pre', {}, log)))
    }
    caseBody.append(el('tr', {}, el('td', { class: c.outcome }, c.outcome + (c.baselined ? ' (baselined)' : '')), el('td', {}, c.id), el('td', {}, c.title), el('td', {}, c.clauses.join(', ')), el('td', {}, String(c.durationMs)), details))
  }
}
filterText.addEventListener('input', render)
filterOutcome.addEventListener('change', render)
render()
document.body.dataset.rendered = 'ok'
`

/** The page shows wire logs only for cases that went wrong, so only those are embedded: a passing run's page stays small. */
const SHOWN_LOGS = new Set(['fail', 'error', 'flaky'])

export function renderHtml(report: Report): string {
  const slim = { ...report, cases: report.cases.map((c) => (SHOWN_LOGS.has(c.outcome) ? c : { ...c, wireLog: [] })) }
  const data = JSON.stringify(slim).replace(/</g, '\\u003c')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Gateway conformance report</title><style>${STYLE}</style></head>
<body>
<h1>Gateway conformance report</h1>
<p id="target"></p>
<div id="summary"></div>
<h2>Clause coverage</h2><p id="coverage-total"></p>
<table id="coverage"><thead><tr><th>section</th><th>cited</th><th></th></tr></thead><tbody></tbody></table>
<h2>Cases</h2>
<input id="filter" placeholder="filter by id, title, clause or section"><select id="outcome"><option value="">all outcomes</option><option>pass</option><option>fail</option><option>non-strict</option><option>unsupported</option><option>error</option><option>flaky</option></select>
<table id="cases"><thead><tr><th>outcome</th><th>id</th><th>title</th><th>clauses</th><th>ms</th><th>details</th></tr></thead><tbody></tbody></table>
<script type="application/json" id="report-data">${data}</script>
<script>window.addEventListener('error', (e) => { document.body.dataset.scriptError = String(e.message) })
${SCRIPT}</script>
</body></html>
`
}
