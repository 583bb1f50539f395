/**
 * The full multi-process run (issue 15): `npm run fleet -- [jobs] [runs]` (defaults 500 jobs, 1 run).
 * Prints each run's figures and exits non-zero on any violation.
 */
import { runFleet } from '../gateway/test/fleet/run-fleet.ts'

const jobs = Number(process.argv[2] ?? 500)
const runs = Number(process.argv[3] ?? 1)
const timeoutMs = Number(process.argv[4] ?? 300_000)
let failed = false
for (let run = 1; run <= runs; run++) {
  const report = await runFleet({ jobs, timeoutMs, log: (line) => console.log(`  [run ${run}] ${line}`) })
  console.log(JSON.stringify({ run, ...report, violations: report.violations.slice(0, 20), violationCount: report.violations.length }))
  if (report.violations.length) failed = true
}
process.exit(failed ? 1 : 0)
