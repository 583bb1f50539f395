/**
 * The `npm test` column for a mutant the kit alone let through. Running all of `npm test` per
 * mutant cannot fit the hour, so this runs, in the scratch copy holding the mutant, the vitest
 * files that import the mutated module (the static import graph, transitively), with --bail 1
 * and a time cap. conformance/test/self-target.test.ts, self-serve-target.test.ts and
 * self-minimal-target.test.ts, the `npm test` files that run the whole kit on the three self targets, are left out: their kills are
 * exactly the kit column's (same seed, same fail/error rule), so a kit survivor would survive them too.
 */
import { spawn } from 'node:child_process'
import { readdir, readFile, rm } from 'node:fs/promises'
import { dirname, join, normalize } from 'node:path'
import ts from 'typescript'
import { globMatcher } from './kit-scope.ts'

const TEST_ROOTS = ['gateway', 'fake-engines', 'conformance', 'reports', 'bench', 'test']
/** Run the full kit on the self targets: counted through the kit column, never re-run here. */
export const FULL_KIT_TESTS = { dev: 'conformance/test/self-target.test.ts', serve: 'conformance/test/self-serve-target.test.ts', minimal: 'conformance/test/self-minimal-target.test.ts' } as const
const FULL_KIT = new Set<string>(Object.values(FULL_KIT_TESTS))

export interface ImportGraph { tests: string[]; importers: Map<string, Set<string>> }

/** Who imports whom among the project's .ts files (relative specifiers only). */
export async function importGraph(root: string): Promise<ImportGraph> {
  const importers = new Map<string, Set<string>>()
  const tests: string[] = []
  for (const top of TEST_ROOTS) {
    let entries: string[]
    try {
      entries = await readdir(join(root, top), { recursive: true })
    } catch {
      continue
    }
    for (const rel of entries) {
      const file = `${top}/${rel}`
      if (!file.endsWith('.ts') || file.includes('node_modules') || file.includes('/out/')) continue
      if (file.endsWith('.test.ts')) tests.push(file)
      const info = ts.preProcessFile(await readFile(join(root, file), 'utf8'), true, true)
      for (const ref of info.importedFiles) {
        if (!ref.fileName.startsWith('.')) continue
        const target = normalize(join(dirname(file), ref.fileName))
        if (!importers.has(target)) importers.set(target, new Set())
        importers.get(target)!.add(file)
      }
    }
  }
  return { tests: tests.sort(), importers }
}

/**
 * The test files nearest to `file` in the import graph: those at the smallest import distance
 * (direct importers first; if none, the tests two imports away; and so on), without the full-kit
 * run. All transitive importers of a core module are most of the suite (30 files, 4 minutes
 * under load), which no per-mutant budget holds; the nearest tests are the ones written for it.
 */
export function relatedTests(graph: ImportGraph, file: string): string[] {
  const seen = new Set([file])
  let level = [file]
  while (level.length) {
    const next: string[] = []
    for (const f of level) {
      for (const importer of graph.importers.get(f) ?? []) {
        if (seen.has(importer)) continue
        seen.add(importer)
        next.push(importer)
      }
    }
    const tests = graph.tests.filter((t) => next.includes(t) && !FULL_KIT.has(t))
    if (tests.length) return tests
    level = next
  }
  return []
}

/**
 * The tests that reach a module only through a spawned `gateway` process (`gateway/test/gateway-command.ts`
 * runs gateway/cli.ts as a child, so no import edge leads there): the command line, the
 * configuration file, logs, health, shutdown. `spawned-tests.json` maps a file (or glob) to them;
 * they join the nearest importers, so the operator surface is judged by the tests written for it.
 */
export async function loadSpawnedTests(root: string): Promise<(file: string) => string[]> {
  const map = JSON.parse(await readFile(join(root, 'scripts/mutation/spawned-tests.json'), 'utf8')) as Record<string, string[]>
  const entries = Object.entries(map).map(([glob, tests]) => [globMatcher(glob), tests] as const)
  return (file) => [...new Set(entries.filter(([match]) => match(file)).flatMap(([, tests]) => tests))]
}

export type TestStatus = 'killed' | 'survived' | 'timeout' | 'no-tests'
export interface TestOutcome { status: TestStatus; files: number; ms: number; detail?: string }

/** Runs `files` with vitest in `dir` (bail on the first failure), capped at `capMs`. */
export async function runTests(dir: string, files: string[], capMs: number): Promise<TestOutcome> {
  const started = Date.now()
  if (!files.length) return { status: 'no-tests', files: 0, ms: 0 }
  const vitest = join(dir, 'node_modules/vitest/vitest.mjs')
  const json = join(dir, 'reports/out/mutation-vitest.json')
  await rm(json, { force: true })
  const child = spawn(process.execPath, [vitest, 'run', '--bail', '1', '--reporter', 'json', '--outputFile', json, ...files], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: { ...process.env, CI: '1' } })
  let output = ''
  child.stdout!.on('data', (c: Buffer) => { output = (output + c).slice(-20_000) })
  child.stderr!.on('data', (c: Buffer) => { output = (output + c).slice(-20_000) })
  let timedOut = false
  // The whole process group: vitest's forks and any gateway a test started.
  const timer = setTimeout(() => { timedOut = true; try { process.kill(-child.pid!, 'SIGKILL') } catch { /* gone */ } }, capMs)
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  clearTimeout(timer)
  try { process.kill(-child.pid!, 'SIGKILL') } catch { /* already gone */ }
  const ms = Date.now() - started
  if (timedOut) return { status: 'timeout', files: files.length, ms }
  if (code === 0) return { status: 'survived', files: files.length, ms }
  return { status: 'killed', files: files.length, ms, detail: await firstFailure(json, dir) ?? `vitest exit ${code}: ${output.slice(-300)}` }
}

/**
 * The unit tests beside the sources first (a file outside every `test/` folder), the rest after:
 * vitest starts the largest files first, so with a dozen process-spawning importers in the run a
 * one-second unit test that kills the mutant waited behind them until the cap. A kill in the
 * first tier ends the judgement; otherwise the second tier gets what is left of the cap.
 */
export function testTiers(files: string[]): string[][] {
  const inTestFolder = (f: string) => f.split('/').slice(0, -1).includes('test')
  return [files.filter((f) => !inTestFolder(f)), files.filter(inTestFolder)].filter((tier) => tier.length)
}

/** `runTests` tier by tier (testTiers), within one cap: the first kill, else the last tier's verdict. */
export async function runTestsInTiers(dir: string, files: string[], capMs: number): Promise<TestOutcome> {
  const started = Date.now()
  let last: TestOutcome = { status: 'no-tests', files: 0, ms: 0 }
  let ran = 0
  for (const tier of testTiers(files)) {
    const left = capMs - (Date.now() - started)
    if (left <= 0) return { status: 'timeout', files: ran, ms: Date.now() - started }
    last = await runTests(dir, tier, left)
    ran += tier.length
    if (last.status === 'killed' || last.status === 'timeout') break
  }
  return { ...last, files: ran, ms: Date.now() - started }
}

interface VitestJson { testResults: Array<{ name: string; message?: string; assertionResults: Array<{ fullName: string; status: string }> }> }

async function firstFailure(path: string, dir: string): Promise<string | undefined> {
  try {
    const report = JSON.parse(await readFile(path, 'utf8')) as VitestJson
    for (const file of report.testResults) {
      const failed = file.assertionResults.find((a) => a.status === 'failed')
      if (failed) return `${file.name.replace(`${dir}/`, '')} > ${failed.fullName}`
      if (file.message) return `${file.name.replace(`${dir}/`, '')}: ${file.message.slice(0, 200)}`
    }
  } catch {
    return undefined
  }
  return undefined
}
