/**
 * The reverse check for `--explore`: each real deviation of the reverse check that the model can
 * observe, applied to a scratch copy and run behind the variation proxy with every variation on,
 * is found within the CI budget (three seeded runs at most); the failure is shrunk and replays from
 * its printed seed and path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXPLORE_CANNOT_REACH, EXPLORE_FINDS } from '../explore/deviation-reach.ts'
import { renderExplore } from '../explore/report.ts'
import { runExplore, type ExploreResult } from '../explore/run.ts'
import { DEVIATIONS, judgeDeviation, scratchProject, staleness } from '../variants/deviations.ts'

/**
 * The CI budget of the reverse check, the same for every deviation: up to three seeded runs of 300
 * steps, stopping at the first that finds it. One seed alone made each verdict hang on that
 * seed's draws: a command added anywhere reshuffled them, and a deviation a rare command observes
 * (one upload of a refused media type, say) was missed by chance.
 */
const SEEDS = [1, 2, 3]
const BUDGET_STEPS = 300

let project: { dir: string; remove(): Promise<void> } | undefined
const live = DEVIATIONS.filter((m) => m.id in EXPLORE_FINDS && staleness(m) === undefined)

beforeAll(async () => {
  project = await scratchProject()
}, 60_000)
afterAll(async () => {
  await project?.remove()
})

describe('--explore finds each deviation its model observes, through the variation proxy', () => {
  it('names every deviation of the reverse check as found or out of reach, with a reason', () => {
    const ids = DEVIATIONS.map((m) => m.id).sort()
    expect([...Object.keys(EXPLORE_FINDS), ...Object.keys(EXPLORE_CANNOT_REACH)].sort()).toEqual(ids)
  })

  it.each(live.map((m) => [m.id, m] as const))('finds %s within the CI budget', async (_id, mutant) => {
    let result: ExploreResult | undefined
    let replayed: ExploreResult | undefined
    const outcome = await judgeDeviation(project!.dir, mutant, {}, async (target) => {
      for (const seed of SEEDS) {
        result = await runExplore({ manifest: target.manifest, receiver: target.receiver, seed, budgetSteps: BUDGET_STEPS, timeoutMs: 8000 })
        // The printed seed and path replay the minimal failing sequence.
        if (result.failure) {
          replayed = await runExplore({ manifest: target.manifest, receiver: target.receiver, seed, budgetSteps: BUDGET_STEPS, timeoutMs: 8000, path: result.failure.path, replayPath: result.failure.replayPath })
          return [result.failure.error]
        }
      }
      return []
    })
    expect(outcome.failedBy, `${mutant.rule} passed --explore: ${result ? renderExplore(result) : 'no run'}`).not.toEqual([])
    expect(replayed?.failure?.commands).toEqual(result!.failure!.commands)
    expect(result!.failure!.commands.length).toBeLessThanOrEqual(6)
  }, 240_000)
})
