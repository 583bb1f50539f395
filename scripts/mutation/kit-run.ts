/**
 * One mutant against the kit alone: the mutated file is written into a scratch copy of the
 * project, the kit boots that copy's gateway on one of the three self targets and runs the whole
 * suite, or only the cases that reach the mutant (case-reach.ts, the kit's `id:` filter), with the seed the three full-kit tests use: `dev` (startSelfTarget({ root }), `gateway dev`,
 * conformance/test/self-target.test.ts), `serve` (startServeTarget({ root }), `gateway serve
 * --config` on PostgreSQL, conformance/test/self-serve-target.test.ts), each serve run on a fresh
 * database of one PostgreSQL server the run keeps, or `minimal` (startMinimalTarget({ root }), the
 * library embedded with queue, profileStore, hostFiles and CLI engines absent,
 * conformance/test/self-minimal-target.test.ts). The first case that fails or errors kills the
 * mutant and ends the run early (the rest of the suite is abandoned with its target closed). A
 * gateway that does not boot is `boot`, a run over the cap is `timeout`; both count as killed and
 * are reported apart.
 */
import { cp, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runSuite } from '../../conformance/run-suite.ts'
import { startSelfTarget, type SelfTarget } from '../../conformance/target/self.ts'
import { startServeTarget } from '../../conformance/target/self-serve.ts'
import { startMinimalTarget } from '../../conformance/target/self-minimal.ts'
import { startPostgresServer, type PostgresServer } from '../../gateway/test/postgres-server.ts'
import type { CaseResult } from '../../conformance/types.ts'

/** Not copied: the dependencies (linked instead), git, and earlier reports. */
const NOT_COPIED = new Set(['node_modules', '.git'])

/** The seed conformance/test/self-target.test.ts runs the whole suite with (its kills are npm test's kills). */
export const KIT_SEED = 1234
const KILLING = new Set(['fail', 'error', 'flaky'])

/** `unreached`: the kit never executed the mutated statement (reach.ts), so it was not run. */
export type KitStatus = 'killed' | 'survived' | 'boot' | 'timeout' | 'unreached'
/**
 * `dev`: the self target (`gateway dev`); `serve`: the self-serve target (`gateway serve --config` +
 * PostgreSQL); `minimal`: the self-minimal target (the library without optional features), which
 * alone runs the routes of a gateway *without* a queue, profileStore or host files. In judging order.
 */
export type KitTarget = 'dev' | 'serve' | 'minimal'
export const KIT_TARGETS: readonly KitTarget[] = ['dev', 'serve', 'minimal']
/**
 * `target`: the target whose run decided (the killing one, else the last one run); absent for
 * `unreached`. `cases`: per target run, how many cases were selected for it (`all`: the whole suite).
 */
export interface KitOutcome { status: KitStatus; killedBy: string[]; ms: number; ran: number; target?: KitTarget; cases?: Partial<Record<KitTarget, number | 'all'>> }

/** One PostgreSQL server for a whole mutation run; every serve-target kit run gets an empty database of its own. */
export class Databases {
  #server: Promise<PostgresServer> | undefined
  #n = 0
  async fresh(): Promise<string> {
    this.#server ??= startPostgresServer()
    return (await this.#server).createDatabase(`mutant_${process.pid}_${++this.#n}`)
  }

  async stop(): Promise<void> {
    if (this.#server) await (await this.#server).stop()
  }
}

export interface KitRunOptions {
  target?: KitTarget
  /** Extra environment for the gateway (the reach probes' hits file). */
  env?: Record<string, string>
  /** Required for the serve target. */
  databases?: Databases
  /** Only these kit cases (exact ids, the kit's `id:` filter); the whole suite when absent. */
  cases?: string[]
  /** Cases at once (the runner's default, 4, when absent); the reach run's attribution run takes them one at a time. */
  concurrency?: number
  /** Runner hooks for each case's start and end (the reach run's case markers, case-reach.ts). */
  hooks?: { onStart: (c: { id: string }) => void; onResult: (r: CaseResult) => void }
}

async function startTarget(dir: string, options: KitRunOptions): Promise<SelfTarget> {
  if (options.target === 'minimal') return startMinimalTarget({ root: dir, env: options.env })
  if (options.target !== 'serve') return startSelfTarget({ root: dir, env: options.env })
  if (!options.databases) throw new Error('the serve target needs a database source')
  return startServeTarget({ root: dir, env: options.env, databaseUrl: await options.databases.fresh() })
}

export async function scratchCopy(root: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-mutant-'))
  // The whole project (tests read docs/ and examples/), so the npm test column runs as in the checkout.
  for (const entry of await readdir(root)) {
    if (!NOT_COPIED.has(entry)) await cp(join(root, entry), join(dir, entry), { recursive: true, filter: (src) => !src.startsWith(join(root, 'reports/out')) })
  }
  await symlink(join(root, 'node_modules'), join(dir, 'node_modules'))
  return dir
}

/** Writes `text` over `file` in the scratch copy, runs `body`, and always restores the original. */
export async function withMutatedFile<T>(dir: string, file: string, original: string, text: string, body: () => Promise<T>): Promise<T> {
  const path = join(dir, file)
  await writeFile(path, text)
  try {
    return await body()
  } finally {
    await writeFile(path, original)
  }
}

export async function runKit(dir: string, capMs: number, options: KitRunOptions = {}): Promise<KitOutcome> {
  const started = Date.now()
  const on = options.target ?? 'dev'
  let target: SelfTarget
  try {
    target = await startTarget(dir, options)
  } catch (err) {
    return { status: 'boot', killedBy: [`boot: ${(err as Error).message.split('\n')[0]}`], ms: Date.now() - started, ran: 0, target: on }
  }
  const killedBy: string[] = []
  let ran = 0
  let settle: (s: KitStatus) => void = () => {}
  const decided = new Promise<KitStatus>((resolve) => { settle = resolve })
  const onResult = (r: CaseResult) => {
    options.hooks?.onResult(r)
    ran++
    if (KILLING.has(r.outcome)) {
      killedBy.push(`${r.id} (${r.outcome}): ${(r.message ?? '').split('\n')[0].slice(0, 200)}`)
      settle('killed')
    }
  }
  const cap = setTimeout(() => settle('timeout'), capMs)
  const filters = options.cases?.length ? options.cases.map((id) => `id:${id}`) : undefined
  const suite = runSuite({ manifest: target.manifest, seed: KIT_SEED, filters, concurrency: options.concurrency, receiver: target.receiver, restart: target.restart, onStart: options.hooks?.onStart, onResult })
    .then((report) => settle(report.cases.some((c) => KILLING.has(c.outcome)) ? 'killed' : 'survived'))
    .catch((err: unknown) => { killedBy.push(`harness: ${(err as Error).message}`); settle('killed') })
  const status = await decided
  clearTimeout(cap)
  await target.close()
  // An abandoned suite meets a closed target and ends on its own; give it a moment so it does not overlap the next mutant.
  await Promise.race([suite, new Promise((r) => setTimeout(r, status === 'survived' ? 0 : 2000))])
  return { status, killedBy, ms: Date.now() - started, ran, target: on, cases: { [on]: filters?.length ?? 'all' } }
}

export async function removeScratch(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 })
}
