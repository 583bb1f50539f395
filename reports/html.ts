/**
 * The HTML report for a person in a hurry: the verdict and the failing cases come first (each
 * with its clause, expected versus actual and its wire log naming the principal and time), then
 * clause coverage by section, then every case. The page is rendered on the server: it reads fully
 * without JavaScript and under `Content-Security-Policy: default-src 'none'; style-src
 * 'unsafe-inline'`; the one inline script only adds filtering.
 */
import type { CaseResult, Report, WireEntry } from '../conformance/types.ts'
import { verdictOf } from './verdict.ts'

const STYLE = `*{box-sizing:border-box}body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;padding:16px 24px;max-width:1400px;color:#1d1d1d}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:20px 0 8px}h3{font-size:15px;margin:0 0 6px}
.verdict{padding:12px 16px;border-radius:6px;border-left:8px solid}.verdict.ok{background:#e8f5e9;border-color:#2e7d32}.verdict.bad{background:#fdecea;border-color:#b00020}.verdict.smoke{background:#f3f3f3;border-color:#8a8a8a}
.counts span{display:inline-block;margin:4px 14px 0 0;font-size:15px;color:#555}.counts b{font-size:17px}
.counts .pass.some{color:#176b2c}.counts .fail.some,.counts .error.some,.counts .flaky.some{color:#b00020}.counts .non-strict.some{color:#8a5a00}
.badge{display:inline-block;padding:0 6px;border-radius:3px;font-size:12px;font-weight:600;color:#fff;background:#777}
.badge.pass{background:#2e7d32}.badge.fail,.badge.error,.badge.flaky{background:#b00020}.badge.non-strict{background:#a86b00}.badge.unsupported{background:#8a8a8a}
.failure{border:1px solid #e3b5b5;border-radius:6px;padding:10px 12px;margin:0 0 10px;background:#fffafa}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0 0 6px}dt{font-weight:600;color:#555}dd{margin:0;min-width:0}
pre,code{white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-word;font:12px/1.35 ui-monospace,monospace}pre{background:#f6f6f6;padding:6px;margin:0;max-height:24em;overflow:auto}
table{border-collapse:collapse;width:100%;table-layout:fixed}td,th{border-bottom:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
.wire th:nth-child(1){width:80px}.wire th:nth-child(2){width:90px}.wire th:nth-child(3){width:90px}
#cases th:nth-child(1){width:130px}#cases th:nth-child(2){width:24%}#cases th:nth-child(4){width:14%}#cases th:nth-child(5){width:60px}
.cov td:not(:first-child),.cov th:not(:first-child){width:11%}.bar{display:flex;height:10px;background:#eee;width:100%}.bar i{display:block;height:10px}
.bar .s{background:#2e7d32}.bar .f{background:#b00020}.bar .u{background:#9e9e9e}
.muted{color:#666}#filters{display:none}.js #filters{display:block}input,select{margin:0 8px 8px 0}`

const FAILING = new Set(['fail', 'error', 'flaky'])

export function renderHtml(report: Report): string {
  const failures = report.cases.filter((c) => FAILING.has(c.outcome) && !c.baselined)
  const ok = failures.length === 0 && report.staleBaseline.length === 0
  const s = report.summary
  const counts: Array<[string, number]> = [['pass', s.pass], ['fail', s.fail], ['non-strict', s.nonStrict], ['unsupported', s.unsupported], ['error', s.error], ['flaky', s.flaky]]
  const baselined = report.cases.filter((c) => c.baselined).length
  const c = report.coverage
  // The same one-line verdict as the console's last line: a smoke run is grey, never green.
  const { kind, line: verdict } = report.verdict ?? verdictOf(report)
  const smoke = ok && kind === 'smoke'
  const look = smoke ? 'smoke' : ok ? 'ok' : 'bad'
  const state = smoke ? 'smoke' : ok ? 'pass' : 'fail'
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${smoke ? 'SMOKE' : ok ? 'PASS' : 'FAIL'} · gateway conformance · ${esc(report.target.baseUrl)}</title><style>${STYLE}</style></head>
<body>
<header id="summary" class="verdict ${look}" data-verdict="${state}">
<h1>${esc(verdict)}</h1>
<div class="counts">${counts.map(([label, n]) => `<span class="${label}${n ? ' some' : ''}" data-outcome="${label}">${label} <b>${n}</b></span>`).join('')}${baselined ? `<span>baselined <b>${baselined}</b></span>` : ''}</div>
<p class="muted">${c.cells ? `Cells covered: <b>${c.cells.satisfied}/${c.cells.applicable}</b> applicable (a clause on one engine in one state; ${c.cells.clauses} clauses) · failing ${c.cells.failing} · unsupported ${c.cells.unsupported} · uncovered ${c.cells.uncovered} (${c.cells.open} open in the kit) · ${c.cells.notApplicable} N/A by the spec<br>` : ''}Clauses satisfied: <b>${c.satisfied}/${c.testable}</b> testable (shown by a passing case) · cited but failing ${c.failing} · cited but unsupported ${c.unsupported} · uncovered ${c.uncovered} · ${c.excluded} excluded as not observable<br>
${esc(report.target.baseUrl)} · ${esc(report.startedAt)} · ${(report.durationMs / 1000).toFixed(1)} s · seed ${report.seed} (<code>--seed ${report.seed}</code> reproduces the inputs) · kit ${esc(report.kit.version)}</p>
</header>
${failures.length ? `<section id="failures"><h2>Failing cases (${failures.length})</h2>\n${failures.map(failureBlock).join('\n')}</section>` : ''}
${report.staleBaseline.length ? `<section id="stale"><h2>Stale baseline entries (now passing)</h2><p>${report.staleBaseline.map(esc).join(', ')}</p></section>` : ''}
<section id="coverage"><h2>Clause coverage by section</h2>
<table class="cov"><thead><tr><th>section</th><th>satisfied</th><th>failing</th><th>unsupported</th><th>uncovered</th><th>testable</th><th></th></tr></thead><tbody>
${Object.entries(c.bySection).map(([section, r]) => `<tr><td>${esc(section)}</td><td>${r.satisfied}</td><td>${r.failing}</td><td>${r.unsupported}</td><td>${r.uncovered}</td><td>${r.testable}</td><td>${bar(r.satisfied, r.failing, r.unsupported, r.testable)}</td></tr>`).join('\n')}
</tbody></table></section>
${c.cells ? `<section id="cell-coverage"><h2>Cell coverage by section (engine × state)</h2>
<table class="cov"><thead><tr><th>section</th><th>satisfied</th><th>failing</th><th>unsupported</th><th>uncovered</th><th>applicable</th><th>N/A</th></tr></thead><tbody>
${Object.entries(c.cells.bySection).map(([section, r]) => `<tr><td>${esc(section)}</td><td>${r.satisfied}</td><td>${r.failing}</td><td>${r.unsupported}</td><td>${r.uncovered}</td><td>${r.applicable}</td><td>${r.notApplicable}</td></tr>`).join('\n')}
</tbody></table></section>` : ''}
<section><h2>All cases (${report.cases.length})</h2>
<div id="filters"><input id="filter" placeholder="filter by id, title, clause or section"><select id="outcome"><option value="">all outcomes</option>${['pass', 'fail', 'non-strict', 'unsupported', 'error', 'flaky'].map((o) => `<option>${o}</option>`).join('')}</select></div>
<table id="cases"><thead><tr><th>outcome</th><th>case</th><th>title and message</th><th>clauses</th><th>ms</th></tr></thead><tbody>
${report.cases.map(caseRow).join('\n')}
</tbody></table></section>
<script>${SCRIPT}</script>
</body></html>
`
}

function failureBlock(c: CaseResult): string {
  const rows = c.failure
    ? `<dt>clause</dt><dd><code>${esc(c.failure.clause)}</code></dd><dt>expected</dt><dd><pre>${esc(c.failure.expected)}</pre></dd><dt>actual</dt><dd><pre>${esc(c.failure.actual)}</pre></dd>`
    : `<dt>message</dt><dd><pre>${esc(c.message ?? '')}</pre></dd>`
  return `<article class="failure" id="case-${esc(c.id)}" data-case="${esc(c.id)}">
<h3><span class="badge ${c.outcome}">${c.outcome}</span> <code>${esc(c.id)}</code> ${esc(c.title)}</h3>
<dl>${rows}<dt>cites</dt><dd>${c.clauses.map((id) => `<code>${esc(id)}</code>`).join(', ')}</dd></dl>
<details${c.wireLog.length <= 12 ? ' open' : ''}><summary>wire log (${c.wireLog.length} entries)</summary>${wireTable(c.wireLog)}</details>
</article>`
}

function wireTable(entries: WireEntry[]): string {
  return `<table class="wire"><thead><tr><th>time</th><th>principal</th><th>kind</th><th>what</th></tr></thead><tbody>${entries.map((w) =>
    `<tr><td>+${w.at} ms</td><td>${esc(w.who ?? '—')}</td><td>${esc(w.kind)}</td><td>${esc(w.summary)}${w.body ? `<pre>${esc(w.body)}</pre>` : ''}</td></tr>`).join('')}</tbody></table>`
}

function caseRow(c: CaseResult): string {
  const label = c.baselined ? `${c.outcome} (baselined)` : c.outcome
  const search = `${c.id} ${c.title} ${c.clauses.join(' ')} ${c.section}`.toLowerCase()
  return `<tr data-outcome="${c.outcome}" data-search="${esc(search)}"><td><span class="badge ${c.outcome}">${esc(label)}</span></td><td>${FAILING.has(c.outcome) && !c.baselined ? `<a href="#case-${esc(c.id)}">${esc(c.id)}</a>` : esc(c.id)}</td><td>${esc(c.title)}${c.message ? `<div class="muted">${esc(c.message)}</div>` : ''}${c.observations?.length ? `<div class="muted">observed (open in the spec, not an outcome): ${esc(c.observations.join('; '))}</div>` : ''}</td><td>${esc(c.clauses.join(', '))}</td><td>${c.durationMs}</td></tr>`
}

function bar(satisfied: number, failing: number, unsupported: number, total: number): string {
  const pct = (n: number) => (total ? (100 * n) / total : 0).toFixed(1)
  return `<span class="bar" title="${satisfied} satisfied, ${failing} failing, ${unsupported} unsupported of ${total}"><i class="s" style="width:${pct(satisfied)}%"></i><i class="f" style="width:${pct(failing)}%"></i><i class="u" style="width:${pct(unsupported)}%"></i></span>`
}

/** Enhancement only: the table filter. Everything it touches is already on the page. */
const SCRIPT = `document.documentElement.classList.add('js')
const text = document.getElementById('filter'), outcome = document.getElementById('outcome')
function apply() {
  const q = text.value.toLowerCase(), o = outcome.value
  for (const row of document.querySelectorAll('#cases tbody tr')) row.hidden = (o && row.dataset.outcome !== o) || (q && !row.dataset.search.includes(q))
}
text.addEventListener('input', apply)
outcome.addEventListener('change', apply)`

function esc(text: string | undefined): string {
  return String(text ?? '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}
