/**
 * The fleet soak: `npm run fleet -- [jobs] [runs] [timeoutMs] [flags]`. By default
 * the full scenario, 330 jobs, 1 run: 3 gateway processes on one PostgreSQL (lease 6 s, fleet
 * maxConcurrency 4), jobs that succeed, fail and retry, or park with their results posted to two
 * processes at once other than the parker; 2 processes SIGKILLed holding claims (preferably
 * parks of unanswered jobs too), each restarted; one stalled (SIGSTOP) for twice the lease; one
 * park in 6 left to its 2.5 s deadline and one in 6 to maxParkedDurationMs (6 s). Checked
 * black-box through webhooks, /queue/ws and REST, and through the transition history
 * (run-fleet.ts). Flags: `--processes=N`, `--kills=N`, `--lease=MS`, `--no-duplicates`,
 * `--no-restart`, `--no-stall`, `--no-timers`. Prints each run's figures (jobs, parks, kills,
 * stalls, duplicates, violations) and exits non-zero on any violation.
 */
import { runFleet } from '../gateway/test/fleet/run-fleet.ts'

const args = process.argv.slice(2)
const flags = args.filter((a) => a.startsWith('--'))
const valueOf = (name: string): number | undefined => {
  const flag = flags.find((f) => f.startsWith(`--${name}=`))
  return flag ? Number(flag.split('=')[1]) : undefined
}
const [jobsArg, runsArg, timeoutArg] = args.filter((a) => !a.startsWith('--'))
const jobs = Number(jobsArg ?? 330)
const runs = Number(runsArg ?? 1)
const timeoutMs = Number(timeoutArg ?? 300_000)
let failed = false
for (let run = 1; run <= runs; run++) {
  const report = await runFleet({
    jobs, timeoutMs, log: (line) => console.log(`  [run ${run}] ${line}`),
    processes: valueOf('processes') ?? 3, maxConcurrency: 4, leaseMs: valueOf('lease') ?? 6000, kills: valueOf('kills') ?? 2,
    duplicates: !flags.includes('--no-duplicates'), restart: !flags.includes('--no-restart'), timers: !flags.includes('--no-timers'),
    ...(flags.includes('--no-stall') ? {} : { stallAt: 0.2 }),
  })
  console.log(`run ${run}: jobs ${report.jobs}, parks ${report.parked}, kills ${report.killedWorkers.length}, stalls ${report.stalledWorker ? 1 : 0}, ` +
    `duplicates ${report.resultPosts - report.appliedTrue} result posts answered applied: false and ${report.duplicateWebhooks} webhooks delivered twice, late results ${report.lateResults}, violations ${report.violations.length}`)
  console.log(JSON.stringify({ run, ...report, violations: report.violations.slice(0, 20), violationCount: report.violations.length }))
  if (report.violations.length) failed = true
}
process.exit(failed ? 1 : 0)
