/**
 * One conformance run as a function: select cases, run them against a manifest, build the report
 * and write it. The CLI and the kit's own tests both go through here.
 */
import { applyBaseline, type Baseline } from './baseline.ts'
import { CLAUSE_LIST_HASH, coverageOf, matchesFilter } from './coverage.ts'
import type { WebhookReceiver } from './harness/webhook-receiver.ts'
import { ALL_CASES } from './cases/index.ts'
import { runCases } from './runner.ts'
import { summarise } from '../reports/summary.ts'
import { verdictOf } from '../reports/verdict.ts'
import { KIT_VERSION } from './kit-version.ts'
import type { Case, CaseResult, Report, RunMode, TargetManifest } from './types.ts'


export interface SuiteOptions {
  manifest: TargetManifest
  filters?: string[]
  concurrency?: number
  timeoutMs?: number
  seed: number
  repeat?: number
  baseline?: Baseline
  receiver?: WebhookReceiver
  restart?: () => Promise<void>
  /** Between two cases mid-run (runner.ts `midRun`): the self-fleet target's kill and replacement. */
  midRun?: () => Promise<void>
  onStart?: (c: Case) => void
  onResult?: (r: CaseResult) => void
  /** How the manifest came (the CLI knows): a `url` run is a smoke test, never a conformance verdict. */
  mode?: RunMode
}

export function selectCases(filters: string[] = []): Case[] {
  return filters.length ? ALL_CASES.filter((c) => filters.some((f) => matchesFilter(c, f))) : ALL_CASES
}

export async function runSuite(options: SuiteOptions): Promise<Report> {
  const startedAt = new Date()
  const cases = selectCases(options.filters)
  const results = await runCases({
    manifest: options.manifest,
    cases,
    concurrency: options.concurrency ?? 4,
    timeoutMs: options.timeoutMs ?? 15_000,
    seed: options.seed,
    repeat: options.repeat ?? 1,
    receiver: options.receiver,
    restart: options.restart,
    midRun: options.midRun,
    onStart: options.onStart,
    onResult: options.onResult,
  })
  const staleBaseline = options.baseline ? applyBaseline(results, options.baseline) : []
  const tokens = Object.fromEntries(Object.keys(options.manifest.tokens).map((k) => [k, '<redacted>']))
  const report: Report = {
    kit: { name: 'gateway-conformance', version: KIT_VERSION },
    target: { baseUrl: options.manifest.baseUrl, features: options.manifest.features },
    manifest: { ...options.manifest, tokens },
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    seed: options.seed,
    clauseListHash: CLAUSE_LIST_HASH,
    summary: summarise(results),
    coverage: coverageOf(ALL_CASES, results),
    staleBaseline,
    cases: results,
    run: { mode: options.mode ?? 'target', suiteCases: ALL_CASES.length, filters: options.filters ?? [] },
  }
  return { ...report, verdict: verdictOf(report) }
}

/** 0 no case failed (conformant only when the verdict says so: a smoke run also exits 0), 1 a fail (or a stale baseline entry), 3 an error. */
export function exitCodeOf(report: Report): number {
  if (report.summary.error > 0) return 3
  if (report.summary.fail > 0 || report.summary.flaky > 0 || report.staleBaseline.length > 0) return 1
  return 0
}
