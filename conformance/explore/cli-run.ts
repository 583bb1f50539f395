/**
 * `gateway-conformance --explore` once the target is up and passed its preflight: reads the
 * budget options, runs the exploration, prints its report and writes explore.json. Returns the
 * exit code: 0 no sequence broke the model, 1 one did, 2 bad options.
 */
import { join, resolve } from 'node:path'
import { Unsupported, type TargetManifest } from '../types.ts'
import { renderExplore, writeExploreReport } from './report.ts'
import type { WebhookReceiver } from '../harness/webhook-receiver.ts'
import { runExplore } from './run.ts'

export interface ExploreCliOptions {
  manifest: TargetManifest
  /** The kit's webhook receiver, when the target delivers webhooks to this host. */
  receiver?: WebhookReceiver
  seed: number
  timeoutMs: number
  reports?: string
  budgetSteps?: string
  budgetS?: string
  path?: string
  replayPath?: string
}

function positive(value: string | undefined, name: string): number | undefined | Error {
  if (value === undefined) return undefined
  const n = Number(value)
  return Number.isFinite(n) && n > 0 ? n : new Error(`--${name} must be a number > 0`)
}

export async function explore(options: ExploreCliOptions): Promise<number> {
  const budgetSteps = positive(options.budgetSteps, 'budget-steps')
  const budgetS = positive(options.budgetS, 'budget-s')
  for (const v of [budgetSteps, budgetS]) if (v instanceof Error) return (console.error(v.message), 2)
  if (budgetSteps !== undefined && budgetS !== undefined) return (console.error('--budget-steps and --budget-s are exclusive'), 2)
  console.log(`exploring ${options.manifest.baseUrl} (seed ${options.seed}; --seed ${options.seed} replays the same sequences)`)
  let result
  try {
    result = await runExplore({
      manifest: options.manifest, receiver: options.receiver, seed: options.seed, timeoutMs: options.timeoutMs, path: options.path, replayPath: options.replayPath,
      budgetSteps: budgetSteps === undefined ? undefined : Math.floor(budgetSteps as number), budgetS: budgetS as number | undefined,
    })
  } catch (err) {
    if (err instanceof Unsupported) return (console.error(`cannot explore: ${err.message}`), 2)
    throw err
  }
  console.log(renderExplore(result))
  const dir = resolve(options.reports ?? join('reports/out', `explore-${new Date().toISOString().replace(/[:.]/g, '-')}`))
  console.log(`report written to ${await writeExploreReport(result, dir)}`)
  return result.failure ? 1 : 0
}
