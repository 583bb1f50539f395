/**
 * `--explore`: fast-check model-based testing against a target. Each run draws a command
 * sequence (actions.ts), plays it on fresh sessions of the target while the model (model.ts)
 * follows, and checks after every step; a failure is shrunk to a minimal failing sequence.
 * The seed fixes every sequence; the budget (steps or seconds) bounds how many runs start.
 */
import * as fc from 'fast-check'
import { Unsupported, type TargetManifest } from '../types.ts'
import { commandArbitraries } from './actions.ts'
import { stepCounter } from './command.ts'
import { newModel, offerOf } from './model.ts'
import { createSession } from './session-actions.ts'
import { World } from './world.ts'
import type { WebhookReceiver } from '../harness/webhook-receiver.ts'

export interface ExploreOptions {
  manifest: TargetManifest
  /** The kit's webhook receiver, where the manifest's webhooks and notifications arrive: its commands judge retry timing. */
  receiver?: WebhookReceiver
  seed: number
  /** Runs start while fewer steps than this ran (a run may finish past it, by fewer than maxCommands). */
  budgetSteps?: number
  /** Runs start while fewer seconds than this passed. */
  budgetS?: number
  /** Commands per generated sequence at most (default 20). */
  maxCommands?: number
  /** How long one wait may take (default 15000). */
  timeoutMs?: number
  /** fast-check's path of a failure, to replay it with its seed. */
  path?: string
  /** fc.commands' replayPath of a failure (which commands of the sequence ran). */
  replayPath?: string
  onRun?: (runs: number, steps: number, labels: string[]) => void
}

export interface ExploreFailure {
  /** The minimal failing sequence, one command a line, as it ran. */
  commands: string[]
  /** What failed: the violated clause and what it requires, or the wait that ran out. */
  error: string
  clause?: string
  path: string
  replayPath?: string
  /** The command line that replays it. */
  replay: string
}

export interface ExploreResult {
  seed: number
  budget: { steps?: number; seconds?: number; maxCommands: number }
  /** Sequences played before the first failure (or all of them). */
  runs: number
  steps: number
  /** Sequences played while shrinking a failure. */
  shrinkRuns: number
  durationMs: number
  baseUrl: string
  failure?: ExploreFailure
}

export const DEFAULT_BUDGET_STEPS = 60
/** The most sequences a seconds budget plays. */
export const MAX_SEQUENCES = 5000

export async function runExplore(options: ExploreOptions): Promise<ExploreResult> {
  const { manifest, seed } = options
  const offer = offerOf(manifest, options.receiver !== undefined)
  if (!offer.roles.length) throw new Unsupported('the manifest offers no provider or fake cli_primary profile to explore with')
  const maxCommands = Math.max(1, Math.min(options.maxCommands ?? 20, options.budgetSteps ?? Infinity))
  const budgetSteps = options.budgetS === undefined ? (options.budgetSteps ?? DEFAULT_BUDGET_STEPS) : options.budgetSteps
  const started = Date.now()
  const spent = () => (budgetSteps !== undefined && stepCounter.steps >= budgetSteps) || (options.budgetS !== undefined && Date.now() - started >= options.budgetS * 1000)
  stepCounter.steps = 0
  let runs = 0
  let shrinkRuns = 0
  let steps = 0
  let last: { labels: string[]; error: unknown } | undefined
  const property = fc.asyncProperty(fc.commands(commandArbitraries(offer), { maxCommands, size: 'max', replayPath: options.replayPath }), async (cmds) => {
    // Past the budget no new sequence runs; once one failed, shrinking runs until it is minimal.
    if (last === undefined && spent()) return
    if (last === undefined) runs++
    else shrinkRuns++
    stepCounter.labels = []
    // Each sequence names what it leaves on the target (profiles) apart from the others'.
    const world = new World(manifest, seed + runs + shrinkRuns, options.timeoutMs ?? 15_000, options.receiver)
    const before = stepCounter.steps
    try {
      // Every sequence starts from one session (s0) on the first role, a tenant's where there are
      // tenants (scope checks need one): most commands need a session.
      const setup = async () => {
        const model = newModel()
        await createSession(offer, offer.tenants ? 'tenantA' : 'operator', offer.roles[0]).run(model, world)
        return { model, real: world }
      }
      await fc.asyncModelRun(setup, cmds)
    } catch (err) {
      last = { labels: stepCounter.labels, error: err }
      throw err
    } finally {
      if (shrinkRuns === 0) steps += stepCounter.steps - before
      await world.close()
      options.onRun?.(runs, steps, stepCounter.labels)
    }
  })
  // Every sequence past the budget is drawn but not played (cheap): a seconds budget draws at most MAX_SEQUENCES.
  const numRuns = budgetSteps ?? MAX_SEQUENCES
  const details = await fc.check(property, { seed, numRuns, path: options.path, endOnFailure: false })
  const result: ExploreResult = {
    seed, budget: { steps: budgetSteps, seconds: options.budgetS, maxCommands }, runs, steps, shrinkRuns,
    durationMs: Date.now() - started, baseUrl: manifest.baseUrl,
  }
  if (details.failed && last) result.failure = failureOf(details, last, seed, options)
  return result
}

function failureOf(details: { counterexample: unknown; counterexamplePath: string | null }, last: { labels: string[]; error: unknown }, seed: number, options: ExploreOptions): ExploreFailure {
  const err = last.error as { clause?: string; message?: string }
  const shown = String((details.counterexample as unknown[] | null)?.[0] ?? '')
  const replayPath = /\/\*replayPath="([^"]*)"\*\//.exec(shown)?.[1]
  const path = details.counterexamplePath ?? ''
  const budget = options.budgetS !== undefined ? `--budget-s ${options.budgetS}` : `--budget-steps ${options.budgetSteps ?? DEFAULT_BUDGET_STEPS}`
  return {
    commands: last.labels,
    error: err?.message ?? String(last.error),
    clause: err?.clause,
    path,
    replayPath,
    replay: `gateway-conformance --explore --seed ${seed} ${budget} --explore-path ${path}${replayPath ? ` --replay-path ${replayPath}` : ''}`,
  }
}
