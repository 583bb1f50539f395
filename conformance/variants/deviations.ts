/**
 * The reverse check: real deviations (the curated mutants of gateway/, each breaking a clause)
 * applied to a scratch copy of the project and run behind the variation proxy with every
 * variation on. The kit must still fail each one, so the proxy's legal variations never teach
 * the kit to accept a broken gateway. Only the cases a mutant's `filters` name are run.
 */
import { readFileSync } from 'node:fs'
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CURATED, EQUIVALENT, type Mutant } from './curated-mutants.ts'
import { runSuite } from '../run-suite.ts'
import { startVariantTarget, type VariantTarget } from './variant-target.ts'
import type { VariationName } from './variations.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const COPIED = ['gateway', 'fake-engines', 'scenarios', 'conformance', 'package.json', 'tsconfig.json']

/**
 * Target options a deviation needs to show reliably: an immediate park is told from the 200 ms
 * grace only by timing, which two proxy hops on a loaded machine can blur; a 1.5 s grace cannot be.
 */
const TARGET_OPTIONS: Record<string, { parkDelayMs?: number }> = { 'park-delay-ignored': { parkDelayMs: 1500 } }

/**
 * Curated mutants that are no deviation by the spec's words as the kit now reads them (the kit
 * passes them with or without the proxy), with the reason.
 */
export const NOT_DEVIATIONS: Record<string, string> = {
  'fs-outside-roots-403': 'a path outside hostFiles.roots answered 403 instead of 404: the spec fixes no status for it (the kit accepts any 4xx and observes protocol 7\'s 404; engine-session-stores-and-host-files)',
}

/**
 * Real deviations the kit does not catch yet through the proxy: a kit weakness on record, shown
 * as skipped with the reason rather than silently dropped.
 */
export const KNOWN_MISSES: Record<string, string> = {
}

const one = (id: string, rule: string, file: string, find: string, replace: string, filters: string[]): Mutant => ({ id, rule, edits: [{ file, find, replace }], filters })

/**
 * Deviations in exactly what the proxy rewrites (a field it omits, a status name it renames, the
 * seq it renumbers, the tools it reshapes, the output it wraps): the rewrite must carry the
 * fault through, never mend it.
 */
export const PROXY_DEVIATIONS: Mutant[] = [
  one('bypass-reported-while-disabled', 'server-configuration.16 canBypassPermissions false while bypassPermissions is disabled', 'gateway/server/create-request.ts',
    'if (disabled) return false // and allowDangerouslySkipPermissions is stripped (server-configuration)', 'if (disabled) return true', ['create-bypass-disabled-403']),
  one('job-success-failed', 'job-status.8 a successful first turn ends the job in a terminal status other than failed', 'gateway/queue/job-lifecycle.ts',
    ": event.isError ? 'failed' : 'succeeded'", ": 'failed'", ['jobs-lifecycle-and-webhook-order']),
  one('seq-from-two', 'event-and-command-envelope.1 seq starts at 1', 'gateway/sessions/session-core.ts',
    'this.log = new EventLog(restore?.events ?? [], restore?.seq ?? 0)', 'this.log = new EventLog(restore?.events ?? [], restore?.seq ?? 1)', ['ws-seq-and-ts']),
  one('file-delivered-elsewhere', 'events.17 file_delivered names the path the file is fetched under', 'gateway/engines/provider/grant-tools.ts',
    "env.emit({ type: 'file_delivered', path, bytes: bytes.byteLength, mediaType: mediaTypeOf(path) })", "env.emit({ type: 'file_delivered', path: `${path}.moved`, bytes: bytes.byteLength, mediaType: mediaTypeOf(path) })", ['scratch-files']),
  one('execution-result-uncorrelated', 'events.14 execution_result correlated by executionId', 'gateway/engines/provider/runner.ts',
    "this.#core.emit({ type: 'execution_result', executionId: call.executionId,", "this.#core.emit({ type: 'execution_result', executionId: `${call.executionId}-other`,", ['compat-execution-events']),
]

/** Every curated mutant that is a deviation (not listed as equivalent by the mutation runner, nor above), and the proxy's own. */
export const DEVIATIONS: Mutant[] = [...CURATED.filter((m) => !(EQUIVALENT as readonly string[]).includes(m.id) && !(m.id in NOT_DEVIATIONS)), ...PROXY_DEVIATIONS]

/** Why a deviation cannot be applied to this checkout's gateway/ (its text moved), or undefined. */
export function staleness(mutant: Mutant): string | undefined {
  for (const edit of mutant.edits) {
    const count = readFileSync(join(ROOT, edit.file), 'utf8').split(edit.find).length - 1
    if (count !== 1) return `${edit.file}: the text to mutate occurs ${count} times`
  }
  return undefined
}

export interface DeviationOutcome {
  id: string
  /** Cases that failed (or errored) against the mutant behind the proxy. */
  failedBy: string[]
  /** Set when the mutant's text is no longer in gateway/ (the list went stale, not the kit). */
  stale?: string
  ms: number
}

/** A scratch copy of the project whose gateway/ the mutants edit; node_modules is shared. */
export async function scratchProject(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-variants-'))
  for (const entry of COPIED) await cp(join(ROOT, entry), join(dir, entry), { recursive: true })
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  return { dir, remove: () => rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }) }
}

/**
 * Applies `mutant` in `dir`, runs its cases through the proxy, and restores the files.
 * Waits run out after `timeoutMs` (8 s, not a full run's 15 s): on a correct gateway the cases a
 * mutant names wait milliseconds, so a deviation that shows as a wait that never ends is reported
 * sooner. The clean run through the proxy (variants.test.ts) keeps the full wait.
 */
export async function runDeviation(dir: string, mutant: Mutant, options: { seed?: number; variations?: Iterable<VariationName>; timeoutMs?: number } = {}): Promise<DeviationOutcome> {
  return judgeDeviation(dir, mutant, options, async (target) => {
    const report = await runSuite({ manifest: target.manifest, seed: options.seed ?? 13, filters: mutant.filters, receiver: target.receiver, restart: target.restart, concurrency: 2, timeoutMs: options.timeoutMs ?? 8000 })
    return report.cases.filter((c) => ['fail', 'error', 'flaky'].includes(c.outcome)).map((c) => `${c.id} (${c.outcome})`)
  })
}

/**
 * Applies `mutant` in `dir`, starts the variant target on it, lets `judge` say what failed
 * (the cases, or an explore run), stops the target and restores the files.
 */
export async function judgeDeviation(dir: string, mutant: Mutant, options: { variations?: Iterable<VariationName> }, judge: (target: VariantTarget) => Promise<string[]>): Promise<DeviationOutcome> {
  const started = Date.now()
  const originals = new Map<string, string>()
  try {
    for (const edit of mutant.edits) {
      const path = join(dir, edit.file)
      const current = await readFile(path, 'utf8')
      if (!originals.has(path)) originals.set(path, current)
      const count = current.split(edit.find).length - 1
      if (count !== 1) return { id: mutant.id, failedBy: [], stale: `${edit.file}: the text to mutate occurs ${count} times`, ms: 0 }
      await writeFile(path, current.replace(edit.find, edit.replace))
    }
    let target
    try {
      target = await startVariantTarget({ root: dir, variations: options.variations, ...TARGET_OPTIONS[mutant.id] })
    } catch (err) {
      return { id: mutant.id, failedBy: [`startup: ${(err as Error).message.split('\n')[0]}`], ms: Date.now() - started }
    }
    try {
      return { id: mutant.id, failedBy: await judge(target), ms: Date.now() - started }
    } finally {
      await target.close()
    }
  } finally {
    for (const [path, text] of originals) await writeFile(path, text)
  }
}
