/**
 * `npm run mutation`: the kit's strength measured on mutants generated mechanically from every
 * source file of gateway/ (mutator.ts), a seeded sample stratified by file (sampler.ts). Each
 * mutant is written into a scratch copy of the project and judged by the kit alone on that copy's
 * self targets (kit-run.ts): `dev` (`gateway dev`), `serve` (`gateway serve --config` on
 * PostgreSQL) and `minimal`, each only where its unmutated run reaches the mutant (reach.ts), dev
 * first, and there only with the kit cases that reach it (case-reach.ts); a kit survivor is then given to the vitest files that import the mutated module (npm-test-run.ts).
 * Writes reports/out/mutation/<timestamp>/mutation.{json,html}.
 *
 *   npm run mutation -- [--sample N] [--seed N] [--module <glob>]... [--only <key>]... [--jobs N]
 *                       [--targets dev,serve] [--list] [--curated] [--no-npm-test] [--cap-ms N] [--test-cap-ms N]
 *                       [--whole-kit] [--verify-survivors]
 *   npm run mutation -- --rescore <run dir> [--rescore <later run dir>]... [--keys <sample file>] [--out <dir>]   (rescore.ts)
 */
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises'
import { loadavg } from 'node:os'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { runCurated } from './curated-run.ts'
import { Databases, KIT_TARGETS, removeScratch, runKit, scratchCopy, withMutatedFile, type KitOutcome, type KitRunOptions, type KitTarget } from './kit-run.ts'
import { applyMutant, mutantDiff, type GeneratedMutant } from './mutator.ts'
import { FULL_KIT_TESTS, importGraph, loadSpawnedTests, relatedTests, runTestsInTiers } from './npm-test-run.ts'
import { globMatcher, loadClassifier } from './kit-scope.ts'
import { classifyAll } from './classification.ts'
import { consoleTable, tabulate, writeReport, type FullKitTest, type MutantResult, type MutationReport } from './report.ts'
import { rescore, verdictLine } from './rescore.ts'
import { instrument, REACH_ENV } from './reach.ts'
import { caseMarkers, readCaseReach, type CaseReach } from './case-reach.ts'
import { chooseSeed, sample, shuffle } from './sampler.ts'
import { generateAll } from './sources.ts'
import { seededRandom } from '../../conformance/harness/random.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const NPM_TEST_COLUMN = `a mutant killed by the kit alone is killed by npm test too, because ${FULL_KIT_TESTS.dev} (dev target), ${FULL_KIT_TESTS.serve} (serve target) and ${FULL_KIT_TESTS.minimal} (minimal target) run the whole kit on that target with the same seed and fail on any fail or error; a kit survivor is killed by npm test when the vitest files nearest to the mutated module in the static import graph (direct importers, else the next level; never those two) fail on it in the scratch copy (--bail 1, time-capped; a capped run counts as not killed). Tests that reach the module only through a spawned process are not run for it.`

async function loadEquivalents(): Promise<Record<string, string>> {
  return JSON.parse(await readFile(join(ROOT, 'scripts/mutation/equivalents.json'), 'utf8')) as Record<string, string>
}

type PerTarget<T> = Partial<Record<KitTarget, T>>

/**
 * Runs the kit on an instrumented unmutated copy, per target: each run must pass. The whole kit as
 * the mutants' runs have it (four cases at once) gives the time and which mutants the kit reaches;
 * a second run, one case at a time with the case markers, tells which cases reach each
 * (case-reach.ts: the case running and the one before it; start-up code, `all`). A mutant the
 * first run reached and the second did not (an overlap of cases reached it) gets the whole kit.
 */
async function reachRun(picked: GeneratedMutant[], files: Map<string, string>, capMs: number, probe: boolean, targets: KitTarget[], databases: Databases): Promise<{ reached?: PerTarget<Map<string, CaseReach>>; baselineMs: PerTarget<number> }> {
  const dir = await scratchCopy(ROOT)
  try {
    if (probe) {
      for (const [file, text] of files) {
        const mine = picked.map((m, id) => ({ id, m })).filter((x) => x.m.file === file)
        if (mine.length) await writeFile(join(dir, file), instrument(text, mine))
      }
    }
    const reached: PerTarget<Map<string, CaseReach>> = {}
    const baselineMs: PerTarget<number> = {}
    const passing = async (target: KitTarget, options: Omit<KitRunOptions, 'target' | 'databases'>) => {
      const run = await runKit(dir, capMs, { target, databases, ...options })
      if (run.status !== 'survived') throw new Error(`the unmutated scratch copy does not pass the kit on the ${target} target${options.concurrency === 1 ? ' one case at a time' : ''} (${run.status}: ${run.killedBy.join('; ')})`)
      return run
    }
    for (const target of targets) {
      const hitsFile = join(dir, `reach-hits-${target}.txt`)
      const casesFile = join(dir, `reach-cases-${target}.txt`)
      const baseline = await passing(target, probe ? { env: { [REACH_ENV]: hitsFile } } : {})
      baselineMs[target] = baseline.ms
      if (!probe) continue
      const serial = await passing(target, { env: { [REACH_ENV]: casesFile }, hooks: caseMarkers(casesFile), concurrency: 1 })
      const [whole, byCase] = [await readCaseReach(hitsFile), await readCaseReach(casesFile)]
      const mine = new Map<string, CaseReach>()
      for (const id of new Set([...whole.keys(), ...byCase.keys()])) if (picked[id]) mine.set(picked[id].key, byCase.get(id) ?? 'all')
      reached[target] = mine
      const sizes = [...mine.values()].filter((c) => c !== 'all').map((c) => c.size).sort((a, b) => a - b)
      const onlyWhole = [...whole.keys()].filter((id) => !byCase.has(id)).length
      console.log(`baseline (${target} target): the unmutated copy passes the kit in ${(baseline.ms / 1000).toFixed(1)} s (${baseline.ran} cases), one case at a time in ${(serial.ms / 1000).toFixed(1)} s; it reaches ${mine.size} of the ${picked.length} sampled mutants: ${mine.size - sizes.length} with the whole kit (start-up code${onlyWhole ? `, or ${onlyWhole} reached only with cases at once` : ''}), ${sizes.length} with some cases (median ${sizes[sizes.length >> 1] ?? 0}, max ${sizes.at(-1) ?? 0})`)
    }
    if (probe) {
      const any = new Set(targets.flatMap((t) => [...reached[t]!.keys()]))
      const notDev = [...any].filter((k) => !reached.dev?.has(k)).length
      console.log(`baseline: ${any.size} of the ${picked.length} sampled mutants reached by a target${targets.includes('dev') && targets.length > 1 ? ` (${notDev} not by the dev target)` : ''}`)
    }
    return { reached: probe ? reached : undefined, baselineMs }
  } finally {
    await removeScratch(dir)
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: {
    sample: { type: 'string', default: '300' }, seed: { type: 'string' }, module: { type: 'string', multiple: true },
    only: { type: 'string', multiple: true }, keys: { type: 'string' }, jobs: { type: 'string', default: '1' }, list: { type: 'boolean' }, curated: { type: 'boolean' },
    'no-npm-test': { type: 'boolean' }, 'cap-ms': { type: 'string' }, 'test-cap-ms': { type: 'string', default: '60000' },
    out: { type: 'string' }, rescore: { type: 'string', multiple: true }, 'no-reach': { type: 'boolean' }, 'deadline-min': { type: 'string', default: '55' },
    targets: { type: 'string', default: KIT_TARGETS.join(',') }, 'npm-only': { type: 'boolean' }, 'test-jobs': { type: 'string', default: '1' },
    'whole-kit': { type: 'boolean' }, 'verify-survivors': { type: 'boolean' },
  } })
  const targets = values.targets.split(',').map((t) => t.trim()) as KitTarget[]
  if (!targets.length || targets.some((t) => !KIT_TARGETS.includes(t))) throw new Error(`--targets: a comma-separated list of ${KIT_TARGETS.join(', ')}`)
  // A fresh sample each run unless a seed is given to replay one (printed, and in the report).
  const { seed } = chooseSeed(values.seed)
  if (values.curated) return runCurated({ only: values.only, seed, list: values.list })
  // --keys <file>: one mutant key per line, as --only for each (a sample of record, or a survivor list).
  if (values.keys) values.only = [...(values.only ?? []), ...(await readFile(values.keys, 'utf8')).split('\n').map((l) => l.trim()).filter(Boolean)]
  if (values.rescore?.length) return void (await rescore(ROOT, values.rescore, { out: values.out, keys: values.only }))

  const { files, mutants: all } = await generateAll(ROOT)
  const inModule = values.module?.length ? values.module.map(globMatcher) : undefined
  const pool = inModule ? all.filter((m) => inModule.some((match) => match(m.file))) : all
  const picked = values.only?.length ? all.filter((m) => values.only!.includes(m.key)) : sample(pool, Number(values.sample), seed)
  const equivalents = await loadEquivalents()
  // Each mutant's duty (the kit's or the test suite's), from its module, function and code, before anything runs.
  const classification = classifyAll(picked, await loadClassifier(ROOT))
  console.log(`${all.length} mutants generated from ${files.size} files of gateway/${inModule ? ` (${pool.length} in the selected modules)` : ''}; ${picked.length} sampled (seed ${seed}${values.seed === undefined ? ', drawn at random: replay with --seed ' + seed : ''}); ${classification.counts.spec ?? 0} spec-observable (the kit's), ${picked.length - (classification.counts.spec ?? 0)} the test suite's`)
  if (values.list) {
    for (const m of picked) console.log(`${m.key}\n    ${m.file}:${m.line} ${m.operator} [${classification.byKey.get(m.key)!.class}]: ${JSON.stringify(m.original.slice(0, 80))} -> ${JSON.stringify(m.replacement)}${equivalents[m.key] ? `  [equivalent: ${equivalents[m.key]}]` : ''}`)
    return
  }

  const jobs = Math.max(1, Number(values.jobs))
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  const out = values.out ?? join(ROOT, 'reports/out/mutation', stamp)
  await mkdir(out, { recursive: true })
  // The classification is on disk before the first verdict: it cannot have been fitted to the survivors.
  await writeFile(join(out, 'classification.json'), `${JSON.stringify({ seed, writtenAt: new Date().toISOString(), counts: classification.counts, mutants: classification.list }, null, 2)}\n`)
  console.log(`classification: ${join(out, 'classification.json')} ${JSON.stringify(classification.counts)}`)
  const started = Date.now()
  // No new kit run starts after 80 % of the deadline, no npm test run after it, so a run on a loaded machine still ends (and says how many it judged).
  const deadline = started + Number(values['deadline-min']) * 0.8 * 60_000
  const graph = await importGraph(ROOT)
  const spawnedTests = await loadSpawnedTests(ROOT)
  const testsFor = (file: string) => [...new Set([...relatedTests(graph, file), ...spawnedTests(file)])]
  const isSpec = (m: { key: string }) => classification.byKey.get(m.key)!.class === 'spec'
  // The kit judges only the spec-observable mutants; the rest go straight to the npm test column.
  // --npm-only: the npm test column alone, for every given mutant (after new tests; --rescore keeps the earlier kit verdicts).
  const npmOnly = values['npm-only'] === true
  const order = npmOnly ? [] : shuffle(picked.filter(isSpec), seededRandom(seed))
  const results: MutantResult[] = []
  let reportNow: () => Promise<void> = async () => {}
  let next = 0
  let kitJudged = 0
  const load: number[] = []
  const loadTimer = setInterval(() => load.push(loadavg()[0]), 10_000)

  // One PostgreSQL server for every serve-target run of this mutation run (a fresh database each).
  const databases = new Databases()
  // The baseline: the unmutated copy (with reach probes) must pass the kit on each target; it also tells which mutants each reaches.
  const { reached, baselineMs } = await (npmOnly ? Promise.resolve({ reached: undefined, baselineMs: {} as PerTarget<number> }) : reachRun(picked.filter(isSpec), files, 300_000, !values['no-reach'], targets, databases)).catch(async (err: unknown) => {
    await databases.stop()
    throw err
  })
  // The cap scales with the unmutated run on this machine now (a loaded machine runs the whole kit in a minute or more).
  const capMs = Object.fromEntries(targets.map((t) => [t, values['cap-ms'] ? Number(values['cap-ms']) : Math.max(90_000, 3 * (baselineMs[t] ?? 0))])) as PerTarget<number>
  console.log(`a mutant's kit run is capped at ${targets.map((t) => `${(capMs[t]! / 1000).toFixed(0)} s (${t})`).join(', ')}`)
  const worker = async () => {
    const dir = await scratchCopy(ROOT)
    try {
      while (next < order.length && Date.now() < deadline) {
        const m = order[next++]
        await judge(dir, m)
      }
    } finally {
      await removeScratch(dir)
    }
  }

  // The mutant's kit runs on each target, dev first, until one kills it; the selected cases per target, or the whole suite.
  const runTargets = async (dir: string, m: GeneratedMutant, on: KitTarget[], casesOn: (t: KitTarget) => string[] | undefined): Promise<KitOutcome | undefined> => {
    let outcome: KitOutcome | undefined
    let ms = 0
    const cases: KitOutcome['cases'] = {}
    for (const target of on) {
      outcome = await runKit(dir, capMs[target]!, { target, databases, cases: casesOn(target) })
      ms += outcome.ms
      Object.assign(cases, outcome.cases)
      if (outcome.status !== 'survived') break
    }
    return outcome && { ...outcome, ms, cases }
  }

  const judge = async (dir: string, m: GeneratedMutant): Promise<MutantResult> => {
    const text = files.get(m.file)!
    const { start: _s, end: _e, ...mutant } = m
    const result: MutantResult = { mutant, diff: mutantDiff(text, m), classification: classification.byKey.get(m.key)! }
    if (equivalents[m.key] !== undefined) {
      result.equivalent = equivalents[m.key]
    } else {
      // The targets whose unmutated run reached the mutant, dev first; without probes, every target.
      const on = reached ? targets.filter((t) => reached[t]!.has(m.key)) : targets
      result.reachedOn = on
      await withMutatedFile(dir, m.file, text, applyMutant(text, m), async () => {
        if (!on.length) result.kit = { status: 'unreached', killedBy: [], ms: 0, ran: 0 }
        // Only the cases that reach it on that target (case-reach.ts), unless --whole-kit or start-up code.
        const casesOn = (t: KitTarget) => {
          const c = reached?.[t]?.get(m.key)
          return values['whole-kit'] || c === undefined || c === 'all' ? undefined : [...c].sort()
        }
        result.kit = await runTargets(dir, m, on, casesOn) ?? result.kit
        // --verify-survivors: the whole kit on the same targets, to count the kills the selection lost.
        const selected = on.some((t) => casesOn(t) !== undefined)
        if (values['verify-survivors'] && result.kit!.status === 'survived' && selected) {
          const whole = (await runTargets(dir, m, on, () => undefined))!
          result.selectionCheck = { wholeKit: whole.status, killedBy: whole.killedBy, ms: whole.ms }
          console.log(`verify-survivors: the whole kit ${whole.status === 'survived' ? 'agrees (survived)' : `KILLS it (${whole.status}${whole.target ? ` on ${whole.target}` : ''}): the selection lost a kill`} ${m.file}:${m.line} ${m.operator}`)
          if (whole.status !== 'survived') result.kit = whole
        }
        if (result.kit!.status !== 'survived' && result.kit!.status !== 'unreached') result.npmTest = { killed: true, via: basename(FULL_KIT_TESTS[result.kit!.target ?? 'dev']) as FullKitTest }
      })
    }
    const done = ++kitJudged
    const survived = result.kit?.status === 'survived' || result.kit?.status === 'unreached'
    const verdict = result.equivalent !== undefined ? 'equivalent' : survived ? (result.kit!.status === 'unreached' ? 'UNREACHED' : 'SURVIVED') : result.kit!.status
    const where = result.kit?.target && result.kit.status !== 'unreached' ? ` [${result.kit.target}; cases ${Object.entries(result.kit.cases ?? {}).map(([t, n]) => `${t} ${n}`).join(', ')}]` : ''
    console.log(`[${done}/${order.length} ${((Date.now() - started) / 60000).toFixed(1)} min] ${verdict.padEnd(10)}${where} ${m.file}:${m.line} ${m.operator} ${(result.kit?.ms ?? 0) / 1000 | 0}s ${result.kit?.killedBy[0]?.slice(0, 100) ?? ''}`)
    await appendFile(join(out, 'progress.jsonl'), `${JSON.stringify(result)}\n`)
    results.push(result)
    await reportNow()
    return result
  }

  const report = (): MutationReport => {
    const { modules, totals } = tabulate(pool, picked, results)
    return {
      seed, startedAt: new Date(started).toISOString(), wallMs: Date.now() - started, jobs, loadAverage: load.length ? [Math.min(...load), load.reduce((s, n) => s + n, 0) / load.length, Math.max(...load)] : loadavg(),
      generated: all.length, sampled: picked.length, sampledKeys: picked.map((m) => m.key), judged: results.length, npmTestColumn: NPM_TEST_COLUMN, modules, totals,
      results: [...results].sort((a, b) => a.mutant.key.localeCompare(b.mutant.key)),
    }
  }
  const survivorsMd = () => results.filter((r) => r.kit?.status === 'survived' || r.kit?.status === 'unreached').map((r) =>
    `### \`${r.mutant.key}\`\n${r.mutant.file}:${r.mutant.line} (${r.mutant.operator}), kit: ${r.kit!.status}${r.reachedOn?.length ? ` (run on ${r.reachedOn.join(', ')})` : ''}, npm test: ${r.npmTest?.tests ? `${r.npmTest.tests.status}${r.npmTest.tests.detail ? ` (${r.npmTest.tests.detail})` : ''}` : 'not run yet'}\n\`\`\`diff\n${r.diff}\n\`\`\`\n`).join('\n')
  reportNow = async () => {
    await writeReport(out, report())
    await writeFile(join(out, 'survivors.md'), survivorsMd())
  }
  // The npm test column runs beside the kit: a kit survivor first (as soon as its verdict is in), else
  // a mutant of the test suite's duty (judged by npm test alone); it waits while the kit may still give survivors.
  const testDeadline = started + Number(values['deadline-min']) * 60_000
  let kitDone = false
  const pending = (x: MutantResult) => x.equivalent === undefined && !x.npmTest && !claimed.has(x.mutant.key)
  const nextForTests = () => results.find((x) => pending(x) && (x.kit?.status === 'survived' || x.kit?.status === 'unreached')) ?? suiteDuty.find(pending)
  const testPhase = async () => {
    const dir = await scratchCopy(ROOT)
    try {
      for (;;) {
        const r = nextForTests()
        if (Date.now() >= testDeadline) return
        if (!r) {
          if (kitDone) return
          await new Promise((resolve) => setTimeout(resolve, 1000))
          continue
        }
        claimed.add(r.mutant.key)
        const m = byKey.get(r.mutant.key)!
        const text = files.get(m.file)!
        const tests = await withMutatedFile(dir, m.file, text, applyMutant(text, m), () => runTestsInTiers(dir, testsFor(m.file), Number(values['test-cap-ms'])))
        r.npmTest = { killed: tests.status === 'killed', via: 'related tests', tests }
        console.log(`npm test column [${r.classification?.class}]: ${tests.status.padEnd(9)} ${m.file}:${m.line} ${m.operator} (${tests.files} files, ${(tests.ms / 1000).toFixed(0)} s) ${tests.detail?.slice(0, 100) ?? ''}`)
        await reportNow()
      }
    } finally {
      await removeScratch(dir)
    }
  }
  const claimed = new Set<string>()
  const byKey = new Map(picked.map((m) => [m.key, m]))
  // The test suite's mutants are in the report from the start, classified, without a kit run.
  // In a seeded random order, so a deadline leaves a random part of the sample unjudged, not the last files of the alphabet.
  const suiteDuty: MutantResult[] = shuffle(picked.filter((m) => npmOnly || !isSpec(m)), seededRandom(seed + 1)).map((m) => {
    const { start: _s, end: _e, ...mutant } = m
    const c = classification.byKey.get(m.key)!
    return { mutant, diff: mutantDiff(files.get(m.file)!, m), classification: c, ...(c.class !== 'spec' ? { outsideKit: c.reason } : {}), ...(equivalents[m.key] !== undefined ? { equivalent: equivalents[m.key] } : {}) }
  })
  results.push(...suiteDuty)
  try {
    const testJobs = values['no-npm-test'] ? 0 : Math.max(1, Number(values['test-jobs']))
    await Promise.all([
      Promise.all(Array.from({ length: jobs }, () => worker())).finally(() => { kitDone = true }),
      ...Array.from({ length: testJobs }, () => testPhase()),
    ])
  } finally {
    clearInterval(loadTimer)
    await databases.stop()
  }
  const final = report()
  await writeReport(out, final)
  console.log(`\n${consoleTable(final)}\n`)
  if (final.judged < final.sampled) console.log(`the deadline stopped the run: ${final.judged} of ${final.sampled} sampled mutants judged`)
  console.log(verdictLine(final))
  console.log(`wall ${(final.wallMs / 60000).toFixed(1)} min with ${jobs} worker(s); load average min/mean/max ${final.loadAverage.map((n) => n.toFixed(2)).join(' / ')}`)
  console.log(kitTimeLine(results))
  console.log(`report: ${join(out, 'mutation.html')}`)
  await writeFile(join(out, 'summary.txt'), `${consoleTable(final)}\n\n${verdictLine(final)}\n`)
}

/** How long a judged mutant's kit runs took (the median), and what --verify-survivors found. */
function kitTimeLine(results: MutantResult[]): string {
  const ms = results.filter((r) => r.kit && r.kit.status !== 'unreached').map((r) => r.kit!.ms).sort((a, b) => a - b)
  const checked = results.filter((r) => r.selectionCheck)
  const lost = checked.filter((r) => r.selectionCheck!.wholeKit !== 'survived').length
  return `kit runs: ${ms.length} mutants run, median ${((ms[ms.length >> 1] ?? 0) / 1000).toFixed(1)} s per mutant${checked.length ? `; --verify-survivors: ${checked.length} survivors of the selected cases rerun with the whole kit, ${lost} killed by it (kills the selection lost)` : ''}`
}

main().catch((err) => {
  console.error(err)
  process.exit(3)
})
