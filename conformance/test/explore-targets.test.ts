/**
 * `--explore` within its CI budget passes (no generated sequence breaks the model) on the self
 * target, through the variation proxy with every variation on, and on the self-minimal target.
 * A false failure here is a model claiming more than the spec states.
 */
import { describe, expect, it } from 'vitest'
import { runExplore, type ExploreResult } from '../explore/run.ts'
import { renderExplore } from '../explore/report.ts'
import { startMinimalTarget } from '../target/self-minimal.ts'
import { startSelfTarget, type SelfTarget } from '../target/self.ts'
import { startVariantTarget } from '../variants/variant-target.ts'

/** The CI budget: sequences start while fewer than this many steps ran (each of at most 20 commands). */
export const CI_BUDGET_STEPS = 120

async function exploreOn(start: () => Promise<SelfTarget>, seed: number): Promise<ExploreResult> {
  const target = await start()
  try {
    return await runExplore({ manifest: target.manifest, receiver: target.receiver, seed, budgetSteps: CI_BUDGET_STEPS })
  } finally {
    await target.close()
  }
}

describe('--explore within its CI budget', () => {
  it.each([
    ['the self target', () => startSelfTarget(), 101],
    ['the variation proxy, every variation on', () => startVariantTarget(), 102],
    ['the self-minimal target', () => startMinimalTarget(), 103],
  ] as const)('finds no failing sequence on %s', async (_name, start, seed) => {
    const result = await exploreOn(start, seed)
    expect(result.failure, renderExplore(result)).toBeUndefined()
    expect(result.steps).toBeGreaterThanOrEqual(CI_BUDGET_STEPS)
    expect(result.runs).toBeGreaterThan(1)
  }, 180_000)
})

describe('--explore is deterministic for a seed', () => {
  it('plays the same command sequences for the same seed, others for another', async () => {
    const target = await startSelfTarget()
    const sequences = async (seed: number) => {
      const played: string[] = []
      await runExplore({ manifest: target.manifest, receiver: target.receiver, seed, budgetSteps: 40, onRun: (_runs, _steps, labels) => played.push(labels.join(' ; ')) })
      return played
    }
    try {
      const first = await sequences(7)
      expect(await sequences(7)).toEqual(first)
      expect(await sequences(8)).not.toEqual(first)
    } finally {
      await target.close()
    }
  }, 180_000)
})
