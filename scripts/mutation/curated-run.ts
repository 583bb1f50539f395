/**
 * `npm run mutation -- --curated`: the hand-written mutants (conformance/variants/curated-mutants.ts) plus a
 * few refusal-status swaps, kept as regression cases next to the generated run (run.ts). For
 * each mutant the kit starts the mutated scratch copy as its self target and runs the cases the
 * mutant names; a mutant is killed when any case fails or errors. Writes
 * reports/out/mutation-curated.json.
 */
import { cp, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ERROR_CODES } from '../../gateway/protocol/errors.ts'
import { seededRandom } from '../../conformance/harness/random.ts'
import { runSuite } from '../../conformance/run-suite.ts'
import { startSelfTarget } from '../../conformance/target/self.ts'
import { CURATED, type Mutant } from '../../conformance/variants/curated-mutants.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const COPIED = ['gateway', 'fake-engines', 'scenarios', 'conformance', 'package.json', 'tsconfig.json']

interface Outcome { id: string; rule: string; killed: boolean; stale?: string; killedBy: string[]; ms: number }

/** Swaps a refusal's code for one with another status: each refusal's status is a clause's word. */
function swapFor(code: string): string | undefined {
  const status = (ERROR_CODES as Record<string, number>)[code]
  if (status === undefined || [401, 405, 426, 500, 502].includes(status)) return undefined
  if (status === 404) return 'forbidden'
  if (status === 501) return 'not_found'
  return status === 403 ? 'invalid_request' : 'forbidden'
}

async function generatedMutants(count: number, seed: number): Promise<Mutant[]> {
  const all: Mutant[] = []
  const files = (await readdir(join(ROOT, 'gateway/server'), { recursive: true })).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  for (const f of files.sort()) {
    const file = `gateway/server/${f}`
    const text = await readFile(join(ROOT, file), 'utf8')
    for (const [index, line] of text.split('\n').entries()) {
      const m = /refuse\('([a-z_]+)'/.exec(line)
      const swap = m && swapFor(m[1])
      // Only lines that occur once, so the substitution is exact.
      if (!m || !swap || text.split(line).length !== 2) continue
      all.push({ id: `refusal-${relative('gateway/server', file).replace(/\W+/g, '-')}-L${index + 1}`, rule: `${m[1]} (${(ERROR_CODES as Record<string, number>)[m[1]]}) answered as ${swap}`, edits: [{ file, find: line, replace: line.replace(`refuse('${m[1]}'`, `refuse('${swap}'`) }], filters: [] })
    }
  }
  const random = seededRandom(seed)
  const picked: Mutant[] = []
  while (picked.length < Math.min(count, all.length)) {
    const candidate = all[Math.floor(random() * all.length)]
    if (!picked.includes(candidate)) picked.push(candidate)
  }
  return picked
}

async function scratchCopy(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-mutant-'))
  for (const entry of COPIED) await cp(join(ROOT, entry), join(dir, entry), { recursive: true })
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  return dir
}

async function runMutant(dir: string, mutant: Mutant, seed: number): Promise<Outcome> {
  const started = Date.now()
  const originals = new Map<string, string>()
  try {
    for (const edit of mutant.edits) {
      const path = join(dir, edit.file)
      const text = originals.get(path) ?? (await readFile(path, 'utf8'))
      if (!originals.has(path)) originals.set(path, text)
      const current = await readFile(path, 'utf8')
      const count = current.split(edit.find).length - 1
      if (count !== 1) return { id: mutant.id, rule: mutant.rule, killed: false, stale: `${edit.file}: the text to mutate occurs ${count} times`, killedBy: [], ms: 0 }
      await writeFile(path, current.replace(edit.find, edit.replace))
    }
    let target
    try {
      target = await startSelfTarget({ root: dir })
    } catch (err) {
      // A mutant the gateway refuses to start with is killed by construction checks, not by the kit.
      return { id: mutant.id, rule: mutant.rule, killed: true, killedBy: [`startup: ${(err as Error).message.split('\n')[0]}`], ms: Date.now() - started }
    }
    try {
      const report = await runSuite({ manifest: target.manifest, seed, filters: mutant.filters, receiver: target.receiver, restart: target.restart, concurrency: 2 })
      const killedBy = report.cases.filter((c) => ['fail', 'error', 'flaky'].includes(c.outcome)).map((c) => `${c.id} (${c.outcome})`)
      return { id: mutant.id, rule: mutant.rule, killed: killedBy.length > 0, killedBy, ms: Date.now() - started }
    } finally {
      await target.close()
    }
  } finally {
    for (const [path, text] of originals) await writeFile(path, text)
  }
}

export async function runCurated(values: { only?: string[]; seed: number; list?: boolean }): Promise<void> {
  const seed = values.seed
  let mutants = [...CURATED, ...(await generatedMutants(8, seed))]
  if (values.only?.length) mutants = mutants.filter((m) => values.only!.includes(m.id))
  if (values.list) {
    for (const m of mutants) console.log(`${m.id}  ${m.rule}  [${m.filters.join(', ') || 'whole suite'}]`)
    return
  }
  const dir = await scratchCopy()
  console.log(`${mutants.length} mutants of gateway/ in ${dir} (seed ${seed})`)
  const results: Outcome[] = []
  try {
    for (const m of mutants) {
      const r = await runMutant(dir, m, seed)
      results.push(r)
      console.log(`${r.stale ? 'STALE   ' : r.killed ? 'killed  ' : 'SURVIVED'} ${m.id} (${(r.ms / 1000).toFixed(1)} s) ${r.stale ?? r.killedBy.slice(0, 3).join(', ')}`)
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
  const live = results.filter((r) => !r.stale)
  const killed = live.filter((r) => r.killed)
  console.log(`\nmutation kill rate: ${killed.length}/${live.length} (${live.length ? Math.round((100 * killed.length) / live.length) : 0}%)`)
  const survivors = live.filter((r) => !r.killed)
  if (survivors.length) console.log(`survivors:\n${survivors.map((r) => `  ${r.id}: ${r.rule}`).join('\n')}`)
  const stale = results.filter((r) => r.stale)
  if (stale.length) console.log(`stale mutants (text moved):\n${stale.map((r) => `  ${r.id}: ${r.stale}`).join('\n')}`)
  await mkdir(join(ROOT, 'reports/out'), { recursive: true })
  await writeFile(join(ROOT, 'reports/out/mutation-curated.json'), `${JSON.stringify({ seed, killed: killed.length, total: live.length, results }, null, 2)}\n`)
  process.exitCode = stale.length ? 2 : 0
}
