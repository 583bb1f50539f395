/**
 * `--rescore <dir> [--rescore <dir>]...`: one report from finished (or stopped) runs, with the
 * current equivalents.json and outside-kit.json, without running anything. Several directories
 * combine a sample judged in pieces (a full run stopped by its deadline, then `--only` runs of
 * its unjudged mutants and of its survivors after new cases): for each key, the newest verdict
 * wins (directories given oldest first); an npm test verdict is kept from an older run only when
 * the newer one has none and its kit verdict is unchanged. `--keys <file>` names the sample of
 * record when the sources changed between the runs (a regenerated sample would differ).
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { loadKitScope } from './kit-scope.ts'
import { moduleOf } from './sources.ts'
import { consoleTable, dutyRates, emptyRow, kitRates, pct, tabulate, writeReport, type MutantResult, type MutationReport } from './report.ts'

export function combine(runs: MutationReport[]): MutantResult[] {
  const byKey = new Map<string, MutantResult>()
  for (const run of runs) {
    for (const r of run.results) {
      const was = byKey.get(r.mutant.key)
      // A later run its deadline stopped before this mutant (no kit, no npm test verdict) changes nothing.
      if (was && !r.kit && !r.npmTest && r.equivalent === undefined) continue
      const keepTests = was?.npmTest && !r.npmTest && was.kit?.status === r.kit?.status
      // An npm-only run (--npm-only) judged no kit: the earlier kit verdict (and reach) stands.
      const keepKit = was?.kit && !r.kit && r.npmTest
      byKey.set(r.mutant.key, keepTests ? { ...r, npmTest: was.npmTest } : keepKit ? { ...r, kit: was.kit, reachedOn: was.reachedOn } : r)
    }
  }
  return [...byKey.values()]
}

export async function rescore(root: string, dirs: string[], { out = dirs[dirs.length - 1], keys }: { out?: string; keys?: string[] } = {}): Promise<MutationReport> {
  const runs = await Promise.all(dirs.map(async (d) => JSON.parse(await readFile(join(d, 'mutation.json'), 'utf8')) as MutationReport))
  const equivalents = JSON.parse(await readFile(join(root, 'scripts/mutation/equivalents.json'), 'utf8')) as Record<string, string>
  const outside = await loadKitScope(root)
  const base = runs[0]
  // The sample: the keys given (a sample of record, when the sources changed between the runs), else the first run's.
  const sampled = new Set(keys?.length ? keys : base.sampledKeys ?? combine(runs).map((r) => r.mutant.key))
  const judged = combine(runs).filter((r) => sampled.has(r.mutant.key))
  // A sampled key reviewed as equivalent needs no run: it joins the report from its key alone.
  const seen = new Set(judged.map((r) => r.mutant.key))
  for (const key of sampled) {
    if (seen.has(key) || equivalents[key] === undefined) continue
    const [file, fn, operator] = key.split('|')
    judged.push({ mutant: { key, file, fn, operator: operator as MutantResult['mutant']['operator'], line: 0, original: '', replacement: '' }, diff: '(not run: reviewed as equivalent)' })
  }
  const results = judged.map((r) => {
    const { equivalent: _e, outsideKit: _o, ...rest } = r
    const why = equivalents[r.mutant.key]
    // A run's own pre-run classification stands (it was written before any verdict); older runs get today's rules.
    const scope = r.classification ? (r.classification.class === 'spec' ? undefined : r.classification.reason) : outside(r.mutant.key, r.mutant.file, r.mutant)
    return { ...rest, ...(why !== undefined ? { equivalent: why } : {}), ...(scope !== undefined ? { outsideKit: scope } : {}) }
  })
  // Generated stays as the first run counted it (the sources may have changed since); sampled is counted from the sample.
  const { modules, totals } = tabulate([], [], results)
  for (const row of [...modules, totals]) {
    const was = row.module === 'all' ? base.totals : base.modules.find((m) => m.module === row.module)
    row.generated = was?.generated ?? 0
    row.sampled = [...sampled].filter((k) => row.module === 'all' || moduleOf(k.slice(0, k.indexOf('|'))) === row.module).length
  }
  for (const was of base.modules) if (!modules.some((m) => m.module === was.module)) modules.push({ ...emptyRow(was.module), generated: was.generated, sampled: was.sampled })
  modules.sort((a, b) => a.module.localeCompare(b.module))
  const report: MutationReport = { ...base, sampled: sampled.size, sampledKeys: [...sampled], judged: results.length, modules, totals, results: results.sort((a, b) => a.mutant.key.localeCompare(b.mutant.key)) }
  await writeReport(out, report)
  await writeFile(join(out, 'summary.txt'), `${consoleTable(report)}\n\n${verdictLine(report)}\n`)
  console.log(`${consoleTable(report)}\n\n${verdictLine(report)}${dirs.length > 1 ? `\ncombined from ${dirs.join(', ')}` : ''}\nreport: ${join(out, 'mutation.html')}`)
  return report
}

export function verdictLine(report: MutationReport): string {
  const { totals } = report
  const { inReach, all } = kitRates(totals)
  const unjudged = report.sampled - report.judged
  const kinds = new Map<string, number>()
  for (const r of report.results) {
    if (r.equivalent !== undefined || r.outsideKit === undefined) continue
    const kind = r.outsideKit.includes(':') ? r.outsideKit.slice(0, r.outsideKit.indexOf(':')) : 'other'
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
  }
  const outside = [...kinds].map(([kind, n]) => `${n} ${kind}`).join(', ')
  const { kit, npmRest, npmKitSurvivors } = dutyRates(totals)
  return [
    `spec-observable (the kit's duty): the kit alone kills ${kit[0]}/${kit[1]} non-equivalent (${pct(...kit)}); npm test kills ${npmKitSurvivors[0]}/${npmKitSurvivors[1]} of the kit's survivors`,
    `the test suite's duty (${totals.outside ?? 0}${outside ? `: ${outside}` : ''}): npm test kills ${npmRest[0]}/${npmRest[1]} non-equivalent (${pct(...npmRest)})${totals.pending ? `; ${totals.pending} not judged before the deadline` : ''}`,
    `kit alone: ${inReach[0]}/${inReach[1]} non-equivalent mutants in the kit's reach killed (${pct(...inReach)}); ${all[0]}/${all[1]} of all non-equivalent (${pct(...all)}); outside the kit's reach: ${totals.outside ?? 0}${outside ? ` (${outside})` : ''}`,
    `npm test: ${totals.npmTestKilled}/${all[1]} (${pct(totals.npmTestKilled, all[1])}); equivalent or spec-neutral: ${totals.equivalent}${unjudged > 0 ? `; ${unjudged} of ${report.sampled} sampled not judged` : ''}`,
  ].join('\n')
}
