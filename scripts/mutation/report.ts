/**
 * The generated run's report: per module (folder of gateway/) how many mutants were generated,
 * sampled, killed by the kit alone, killed by `npm test`, equivalent and survived, and every
 * survivor with its diff. Kill rates are over non-equivalent mutants. Written as mutation.json
 * and mutation.html, and summarised on the console.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { moduleOf } from './sources.ts'
import type { KitOutcome, KitStatus, KitTarget } from './kit-run.ts'
import type { TestOutcome } from './npm-test-run.ts'
import type { GeneratedMutant } from './mutator.ts'
import type { Classification } from './kit-scope.ts'

/** The full-kit test file of the target that killed a mutant (npm-test-run.ts FULL_KIT_TESTS). */
export type FullKitTest = 'self-target.test.ts' | 'self-serve-target.test.ts' | 'self-minimal-target.test.ts'

export interface MutantResult {
  mutant: Omit<GeneratedMutant, 'start' | 'end'>
  diff: string
  equivalent?: string
  /** Its duty, decided before the run (classification.json): `spec` is the kit's, any other class the test suite's (no kit run). */
  classification?: Classification
  /** Why no conformance kit could observe this mutant (kit-scope.ts); it leaves the kit's in-reach denominator, not the sample. */
  outsideKit?: string
  /** The targets whose unmutated run reached the mutant (the ones it was judged on, dev first); absent without reach probes. */
  reachedOn?: KitTarget[]
  kit?: KitOutcome
  /**
   * --verify-survivors: a survivor of the selected cases (case-reach.ts) rerun with the whole kit
   * on the same targets. When the whole kit kills it, `kit` holds that kill (the kit did kill it)
   * and this records that the selection alone lost it.
   */
  selectionCheck?: { wholeKit: KitStatus; killedBy: string[]; ms: number }
  /** Killed by `npm test`: the kit's kill (the full-kit test of the target that killed it) or a related test file's. */
  npmTest?: { killed: boolean; via: FullKitTest | 'related tests'; tests?: TestOutcome }
}

export interface ModuleRow {
  module: string; generated: number; sampled: number; judged: number; equivalent: number
  kitKilled: number; boot: number; timeout: number; unreached: number; npmTestKilled: number; survived: number
  /** Non-equivalent mutants outside the kit's reach (operator command, logs, /metrics, health), and how many of them the kit killed anyway (a boot failure). */
  outside?: number; outsideKilled?: number
  /** Of kitKilled, how many the serve target killed (the dev target let them through or never reached them). */
  kitKilledServe?: number
  /** Of outside: killed by npm test. Of the spec-observable ones: the kit's survivors, and how many of them npm test killed. */
  outsideNpmKilled?: number; kitSurvived?: number; kitSurvivedNpmKilled?: number
  /** The test suite's mutants the deadline left without an npm test verdict: not judged, in no rate. */
  pending?: number
}

export interface MutationReport {
  seed: number; startedAt: string; wallMs: number; jobs: number; loadAverage: number[]
  generated: number; sampled: number; sampledKeys?: string[]; judged: number; npmTestColumn: string
  modules: ModuleRow[]; totals: ModuleRow; results: MutantResult[]
}

export const emptyRow = (module: string): ModuleRow => ({ module, generated: 0, sampled: 0, judged: 0, equivalent: 0, kitKilled: 0, kitKilledServe: 0, boot: 0, timeout: 0, unreached: 0, npmTestKilled: 0, survived: 0, outside: 0, outsideKilled: 0, outsideNpmKilled: 0, kitSurvived: 0, kitSurvivedNpmKilled: 0, pending: 0 })

/** The two duties' rates: the kit on the spec-observable mutants, npm test on the rest, and npm test on the kit's survivors. */
export function dutyRates(r: ModuleRow): { kit: [number, number]; npmRest: [number, number]; npmKitSurvivors: [number, number] } {
  return { kit: kitRates(r).inReach, npmRest: [r.outsideNpmKilled ?? 0, r.outside ?? 0], npmKitSurvivors: [r.kitSurvivedNpmKilled ?? 0, r.kitSurvived ?? 0] }
}

/** The kit's two rates: over the mutants a kit can reach through a URL (the issue's target), and over every non-equivalent one. */
export function kitRates(r: ModuleRow): { inReach: [number, number]; all: [number, number] } {
  const live = r.judged - r.equivalent
  return { inReach: [r.kitKilled - (r.outsideKilled ?? 0), live - (r.outside ?? 0)], all: [r.kitKilled, live] }
}

export const killedByKit = (r: MutantResult) => r.kit !== undefined && r.kit.status !== 'survived' && r.kit.status !== 'unreached'

export function tabulate(generated: GeneratedMutant[], sampled: GeneratedMutant[], results: MutantResult[]): { modules: ModuleRow[]; totals: ModuleRow } {
  const rows = new Map<string, ModuleRow>()
  const row = (module: string) => {
    if (!rows.has(module)) rows.set(module, emptyRow(module))
    return rows.get(module)!
  }
  for (const m of generated) row(moduleOf(m.file)).generated++
  for (const m of sampled) row(moduleOf(m.file)).sampled++
  for (const r of results) {
    const x = row(moduleOf(r.mutant.file))
    if (r.equivalent === undefined && r.kit === undefined && r.npmTest === undefined) { x.pending = (x.pending ?? 0) + 1; continue }
    x.judged++
    if (r.equivalent !== undefined) { x.equivalent++; continue }
    if (killedByKit(r)) x.kitKilled++
    if (r.outsideKit !== undefined) x.outside = (x.outside ?? 0) + 1
    if (r.outsideKit !== undefined && killedByKit(r)) x.outsideKilled = (x.outsideKilled ?? 0) + 1
    if (killedByKit(r) && r.kit?.target === 'serve') x.kitKilledServe = (x.kitKilledServe ?? 0) + 1
    if (r.kit?.status === 'boot') x.boot++
    if (r.kit?.status === 'timeout') x.timeout++
    if (r.kit?.status === 'unreached') x.unreached++
    if (r.npmTest?.killed) x.npmTestKilled++
    else x.survived++
    if (r.outsideKit !== undefined && r.npmTest?.killed) x.outsideNpmKilled = (x.outsideNpmKilled ?? 0) + 1
    if (r.outsideKit === undefined && !killedByKit(r)) {
      x.kitSurvived = (x.kitSurvived ?? 0) + 1
      if (r.npmTest?.killed) x.kitSurvivedNpmKilled = (x.kitSurvivedNpmKilled ?? 0) + 1
    }
  }
  const modules = [...rows.values()].sort((a, b) => a.module.localeCompare(b.module))
  const totals = emptyRow('all')
  for (const m of modules) for (const k of Object.keys(totals) as Array<keyof ModuleRow>) if (k !== 'module') (totals[k] as number) += (m[k] as number | undefined) ?? 0
  return { modules, totals }
}

export const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)}%` : '-')

export function consoleTable(report: MutationReport): string {
  const head = ['module', 'generated', 'sampled', 'judged', 'equiv', 'spec', 'suite\'s', 'kit killed', '(on serve', 'boot', 'timeout)', 'unreached', 'npm test killed', 'survived', 'pending', 'kit rate (spec)', 'npm rate (suite\'s)', 'npm on kit survivors', 'npm test rate all']
  const line = (r: ModuleRow) => {
    const live = r.judged - r.equivalent
    const { kit, npmRest, npmKitSurvivors } = dutyRates(r)
    return [r.module, r.generated, r.sampled, r.judged, r.equivalent, live - (r.outside ?? 0), r.outside ?? 0, r.kitKilled, r.kitKilledServe ?? 0, r.boot, r.timeout, r.unreached, r.npmTestKilled, r.survived, r.pending ?? 0, pct(...kit), pct(...npmRest), pct(...npmKitSurvivors), pct(r.npmTestKilled, live)].map(String)
  }
  const rows = [head, ...report.modules.map(line), line(report.totals)]
  const widths = head.map((_, i) => Math.max(...rows.map((r) => r[i].length)))
  const fmt = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')
  return [fmt(head), ...rows.slice(1, -1).map(fmt), fmt(rows[rows.length - 1])].join('\n')
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

function html(report: MutationReport): string {
  const table = (rows: ModuleRow[]) => rows.map((r) => {
    const live = r.judged - r.equivalent
    const { inReach, all } = kitRates(r)
    return `<tr><td>${esc(r.module)}</td><td>${r.generated}</td><td>${r.sampled}</td><td>${r.judged}</td><td>${r.equivalent}</td><td>${r.outside ?? 0}</td><td>${r.kitKilled} (${r.kitKilledServe ?? 0} on serve; ${r.boot} boot, ${r.timeout} timeout)</td><td>${r.unreached}</td><td>${r.npmTestKilled}</td><td>${r.survived}</td><td>${pct(...inReach)}</td><td>${pct(...all)}</td><td>${pct(r.npmTestKilled, live)}</td></tr>`
  }).join('\n')
  const block = (title: string, list: MutantResult[], note: (r: MutantResult) => string) =>
    `<h2>${title} (${list.length})</h2>\n${list.map((r) => `<details><summary><code>${esc(r.mutant.key)}</code> ${esc(r.mutant.operator)} ${esc(r.mutant.file)}:${r.mutant.line} ${esc(note(r))}</summary><pre>${esc(r.diff)}</pre></details>`).join('\n')}`
  const kitSurvivors = report.results.filter((r) => r.equivalent === undefined && r.outsideKit === undefined && r.kit !== undefined && !killedByKit(r))
  const outside = report.results.filter((r) => r.equivalent === undefined && r.outsideKit !== undefined)
  return `<!doctype html><meta charset="utf-8"><title>mutation ${esc(report.startedAt)}</title>
<style>body{font:14px system-ui;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child{text-align:left}pre{background:#f6f6f6;padding:8px}</style>
<h1>Generated mutation run</h1>
<p>seed ${report.seed}, ${report.generated} generated, ${report.sampled} sampled, ${report.jobs} worker(s), ${(report.wallMs / 60000).toFixed(1)} min, load average ${report.loadAverage.map((n) => n.toFixed(2)).join(' / ')}. Rates are over non-equivalent mutants.</p>
<p>The npm test column: ${esc(report.npmTestColumn)}</p>
<p>Outside the kit: non-equivalent mutants whose only effect is on this implementation's operator surface (command line, logs, /metrics, health routes: scripts/mutation/outside-kit.json), which no true conformance case may demand of a gateway. The kit rate in reach leaves them out of both sides; the kit rate over all keeps them.</p>
<table><tr><th>module</th><th>generated</th><th>sampled</th><th>judged</th><th>equivalent</th><th>outside the kit</th><th>killed by the kit alone</th><th>not reached by the kit</th><th>killed by npm test</th><th>survived</th><th>kit rate in reach</th><th>kit rate, all</th><th>npm test rate</th></tr>
${table(report.modules)}
${table([report.totals])}</table>
${block('Survivors of the kit alone', kitSurvivors, (r) => `${r.kit!.status === 'unreached' ? '— not reached by the kit ' : ''}${r.npmTest?.killed ? `— killed by npm test (${r.npmTest.tests?.detail ?? ''})` : `— npm test: ${r.npmTest?.tests?.status ?? 'not run'}`}`)}
${block('Outside the kit (operator surface)', outside, (r) => `— ${r.outsideKit} — kit: ${r.kit?.status ?? 'not run'}; npm test: ${r.npmTest?.killed ? 'killed' : r.npmTest?.tests?.status ?? 'not run'}`)}
${block('Equivalent', report.results.filter((r) => r.equivalent !== undefined), (r) => `— ${r.equivalent}`)}
${block('Killed by the kit', report.results.filter((r) => r.equivalent === undefined && killedByKit(r)), (r) => `— ${r.kit!.status} on the ${r.kit!.target ?? 'dev'} target: ${r.kit!.killedBy[0] ?? ''}`)}
`
}

export async function writeReport(dir: string, report: MutationReport): Promise<void> {
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, 'mutation.json'), `${JSON.stringify(report, null, 2)}\n`)
  await writeFile(join(dir, 'mutation.html'), html(report))
}
