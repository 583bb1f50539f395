/**
 * An explore run's report: the console text (the budget, what ran, and a failure as a replayable
 * case: seed, path and the minimal command list) and explore.json in the reports directory.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { ExploreResult } from './run.ts'

export function budgetLine(r: ExploreResult): string {
  const bound = r.budget.seconds !== undefined ? `${r.budget.seconds} s` : `${r.budget.steps} steps`
  return `budget ${bound}, sequences of at most ${r.budget.maxCommands} commands`
}

export function renderExplore(r: ExploreResult): string {
  const lines = [
    `explore against ${r.baseUrl}: seed ${r.seed}; ${budgetLine(r)}`,
    `${r.runs} sequence(s), ${r.steps} step(s) in ${(r.durationMs / 1000).toFixed(1)} s${r.shrinkRuns ? `; ${r.shrinkRuns} shrinking run(s)` : ''}`,
  ]
  if (!r.failure) return [...lines, 'EXPLORE PASSED: no sequence broke the model'].join('\n')
  const f = r.failure
  return [
    ...lines,
    `EXPLORE FAILED${f.clause ? ` (${f.clause})` : ''}: ${f.error}`,
    'minimal failing sequence:',
    ...f.commands.map((c, i) => `  ${i + 1}. ${c}`),
    `replay: ${f.replay}`,
  ].join('\n')
}

/** Writes explore.json (the result, the failure's sequence and replay line) into `dir`; returns its path. */
export async function writeExploreReport(r: ExploreResult, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true })
  const path = join(dir, 'explore.json')
  await writeFile(path, `${JSON.stringify({ kit: 'gateway-conformance --explore', ...r }, null, 2)}\n`)
  return path
}
