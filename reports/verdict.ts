/**
 * The one-line verdict of a run, shared by the console, the HTML page and
 * report.json. The rule, in order:
 *
 * 1. a harness error → `error`: "HARNESS ERROR: …", no verdict on the target (exit 3);
 * 2. a failing or flaky case, or a stale baseline entry → `not-conformant`, whatever else holds: a
 *    fail is a broken clause even in a smoke run (exit 1);
 * 3. a run that is not a conformance run → `smoke`: "SMOKE TEST: 44 of 135 cases ran, none
 *    failed: not a conformance verdict (…)", never green. A run is not a conformance run when
 *    - it came from `--url` (a manifest holding only the operator), or
 *    - a `--filter` selected part of the suite, or
 *    - fewer than half of the suite's cases were judged: a case is judged when it ran (any outcome
 *      but `unsupported`) or when it is `unsupported` only for features the manifest lists under
 *      `absent` (the target says it does not offer them, which the spec allows); the rest are
 *      unsupported because the manifest is silent, i.e. too thin to judge the gateway;
 * 4. otherwise → `conformant`: "CONFORMANT: 132 of 135 cases ran, none failed (…)".
 *
 * "Ran" is every case whose outcome is not `unsupported`. The exit code stays 0 for a smoke run
 * without failures: it is a passing smoke test, and the verdict line says what it is not.
 */
import { ALL_CASES } from '../conformance/cases/index.ts'
import { missingRequirement } from '../conformance/runner.ts'
import type { CaseResult, Report, TargetManifest } from '../conformance/types.ts'

export type VerdictKind = 'conformant' | 'not-conformant' | 'smoke' | 'error'

export interface Verdict {
  kind: VerdictKind
  line: string
}

export function verdictOf(report: Report): Verdict {
  const s = report.summary
  const suite = report.run?.suiteCases ?? report.cases.length
  const ran = report.cases.filter((c) => c.outcome !== 'unsupported').length
  const scope = `${ran} of ${suite} cases ran`
  if (s.error > 0) return { kind: 'error', line: `HARNESS ERROR: ${s.error} case(s) could not be run by the kit (${scope}): not a verdict on the target` }
  const failing = s.fail + s.flaky
  if (failing > 0 || report.staleBaseline.length > 0) {
    const parts = [s.fail && `${s.fail} failed`, s.flaky && `${s.flaky} flaky`, report.staleBaseline.length && `${report.staleBaseline.length} stale baseline entr${report.staleBaseline.length === 1 ? 'y' : 'ies'}`].filter(Boolean)
    return { kind: 'not-conformant', line: `NOT CONFORMANT: ${parts.join(', ')} (${scope})` }
  }
  const excused = report.cases.filter((c) => c.outcome === 'unsupported' && onlyForAbsent(c, report.manifest)).length
  const smoke = smokeReason(report, ran + excused, suite)
  const extra = [s.unsupported && `${s.unsupported} unsupported${excused ? `, ${excused} of them for features listed absent` : ''}`, s.nonStrict && `${s.nonStrict} non-strict`, baselined(report) && `${baselined(report)} baselined`].filter(Boolean).join(', ')
  if (smoke) return { kind: 'smoke', line: `SMOKE TEST: ${scope}, none failed: not a conformance verdict (${smoke})` }
  return { kind: 'conformant', line: `CONFORMANT: ${scope}, none failed${extra ? ` (${extra})` : ''}` }
}

function smokeReason(report: Report, judged: number, suite: number): string | undefined {
  if (report.run?.mode === 'url') return '--url runs only what a bare URL allows; a manifest describing your gateway is the conformance run'
  if (report.run?.filters?.length) return `--filter selected ${report.cases.length} of the suite's cases`
  if (judged * 2 < suite) return `${suite - judged} cases unsupported where the manifest is silent: it offers too little to judge the gateway`
  return undefined
}

/**
 * Whether an unsupported case is excused: it needs a feature the manifest lists under `absent`,
 * and nothing else the manifest lacks (with those features granted, it would have run).
 */
function onlyForAbsent(result: CaseResult, manifest: Report['manifest']): boolean {
  const c = ALL_CASES.find((x) => x.id === result.id)
  const absent: readonly string[] = manifest.absent ?? []
  if (!c || !c.requires.some((need) => absent.includes(need))) return false
  const granted = { ...manifest, features: [...manifest.features, ...absent] } as TargetManifest
  return missingRequirement(c, granted, true, true) === undefined
}

function baselined(report: Report): number {
  return report.cases.filter((c) => c.baselined).length
}
