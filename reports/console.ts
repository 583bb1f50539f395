/** Console progress while cases finish, and the closing summary. */
import type { Case, CaseResult, Report } from '../conformance/types.ts'
import { verdictOf } from './verdict.ts'

const MARK: Record<string, string> = { pass: '✓', fail: '✗', 'non-strict': '~', unsupported: '-', error: '!', flaky: '?' }

export function createProgress(total: number, out: NodeJS.WriteStream = process.stdout) {
  const started = Date.now()
  const counts: Record<string, number> = {}
  let done = 0
  const tty = out.isTTY === true
  return {
    start(c: Case) {
      if (tty) out.write(`\r\x1b[2K[${done}/${total}] ${elapsed(started)} running ${c.id}`)
    },
    finish(r: CaseResult) {
      done++
      counts[r.outcome] = (counts[r.outcome] ?? 0) + 1
      const tally = Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(', ')
      const line = `${MARK[r.outcome] ?? ' '} ${r.id} (${r.durationMs} ms)${r.outcome !== 'pass' && r.message ? ` — ${r.message}` : ''}`
      if (tty) out.write(`\r\x1b[2K${line}\n[${done}/${total}] ${elapsed(started)} ${tally}`)
      else out.write(`[${done}/${total} ${elapsed(started)} | ${tally}] ${line}\n`)
    },
    end() {
      if (tty) out.write('\n')
    },
  }
}

export function printSummary(report: Report, reportDir: string, out: NodeJS.WriteStream = process.stdout): void {
  const { summary: s, coverage: c } = report
  out.write(`\n${report.cases.length} cases in ${(report.durationMs / 1000).toFixed(1)} s against ${report.target.baseUrl}\n`)
  out.write(`  pass ${s.pass}  fail ${s.fail}  non-strict ${s.nonStrict}  unsupported ${s.unsupported}  error ${s.error}  flaky ${s.flaky}`)
  const baselined = report.cases.filter((r) => r.baselined).length
  out.write(baselined ? `  baselined ${baselined}\n` : '\n')
  if (c.cells) out.write(`  ${cellLine(c.cells)}\n`)
  out.write(`  clauses satisfied: ${c.satisfied}/${c.testable} testable (shown by a passing case); cited but failing ${c.failing}, cited but unsupported ${c.unsupported}, uncovered ${c.uncovered}; ${c.excluded} excluded as not observable\n`)
  for (const r of report.cases.filter((x) => ['fail', 'error', 'flaky'].includes(x.outcome) && !x.baselined)) out.write(`  ${MARK[r.outcome]} ${r.id}: ${r.message}\n`)
  for (const id of report.staleBaseline) out.write(`  stale baseline entry (now passes): ${id}\n`)
  out.write(`reports: ${reportDir}\n`)
  // The last line is the verdict, for a person and for a CI log's tail.
  out.write(`${(report.verdict ?? verdictOf(report)).line}\n`)
}

/** The coverage line: cells of the engine × state matrix (conformance/matrix), not clauses. */
export function cellLine(x: NonNullable<Report['coverage']['cells']>): string {
  return `cells covered: ${x.satisfied}/${x.applicable} applicable (a clause on one engine in one state, shown by a passing case; ${x.clauses} clauses); failing ${x.failing}, unsupported ${x.unsupported}, uncovered ${x.uncovered} (${x.open} open in the kit); ${x.notApplicable} N/A by the spec`
}

function elapsed(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)}s`
}
