/**
 * Baselines: known failures by case id, each with a reason. Listed failures do not fail the run;
 * a listed case that now passes is stale and fails it, so baselines never rot.
 */
import { readFile, writeFile } from 'node:fs/promises'
import type { CaseResult } from './types.ts'

export type Baseline = Record<string, string>

export async function loadBaseline(path: string): Promise<Baseline> {
  const value = JSON.parse(await readFile(path, 'utf8')) as { knownFailures?: Record<string, unknown> }
  const known = value.knownFailures
  if (typeof known !== 'object' || known === null) throw new Error(`${path}: expected {"knownFailures": {"case-id": "reason"}}`)
  for (const [id, reason] of Object.entries(known)) if (typeof reason !== 'string' || !reason.trim()) throw new Error(`${path}: ${id} needs a reason`)
  return known as Baseline
}

const FAILING = new Set(['fail', 'error', 'flaky'])

/** Marks baselined results and returns the stale entries (listed, but passing now). */
export function applyBaseline(results: CaseResult[], baseline: Baseline): string[] {
  const stale: string[] = []
  for (const result of results) {
    const reason = baseline[result.id]
    if (reason === undefined) continue
    if (FAILING.has(result.outcome)) result.baselined = reason
    else if (result.outcome === 'pass') stale.push(result.id)
  }
  return stale
}

export async function writeBaseline(path: string, results: CaseResult[]): Promise<number> {
  const knownFailures: Baseline = {}
  for (const r of results) if (FAILING.has(r.outcome)) knownFailures[r.id] = `${r.outcome}: ${r.message ?? ''}`.slice(0, 300)
  await writeFile(path, `${JSON.stringify({ knownFailures }, null, 2)}\n`)
  return Object.keys(knownFailures).length
}
