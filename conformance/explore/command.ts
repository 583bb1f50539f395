/**
 * One explore command as fast-check wants it (AsyncCommand): when it applies to the model, what
 * it does to the target and the model, and its readable form for a replayable case. Every
 * command ends with the checks made after every step (invariants.ts).
 */
import type * as fc from 'fast-check'
import { checkAllStreams } from './invariants.ts'
import type { ExploreModel } from './model.ts'
import type { World } from './world.ts'

/** Counts executed steps across a run (the budget's unit) and the labels of the sequence playing now. */
export const stepCounter = { steps: 0, labels: [] as string[] }

export function command(label: string, applies: (m: Readonly<ExploreModel>) => boolean, run: (m: ExploreModel, w: World) => Promise<void>): fc.AsyncCommand<ExploreModel, World> {
  return {
    check: (m) => applies(m),
    async run(m, w) {
      stepCounter.steps++
      stepCounter.labels.push(label)
      await run(m, w)
      checkAllStreams(w)
    },
    toString: () => label,
  }
}

/**
 * A command on one of the things the sequence created (`count` of them: sessions, profiles):
 * `pick` chooses it among those there are when it runs (pick modulo their number), so most drawn
 * commands apply; the label names what it resolved to. Resolution reads the model only, so a seed
 * fixes it.
 */
export function onPick(pick: number, count: (m: Readonly<ExploreModel>) => number, label: (index: number) => string,
  applies: (m: Readonly<ExploreModel>, index: number) => boolean, run: (m: ExploreModel, w: World, index: number) => Promise<void>): fc.AsyncCommand<ExploreModel, World> {
  const resolve = (m: Readonly<ExploreModel>) => (count(m) ? pick % count(m) : -1)
  return {
    check: (m) => resolve(m) >= 0 && applies(m, resolve(m)),
    async run(m, w) {
      const index = resolve(m)
      stepCounter.steps++
      stepCounter.labels.push(label(index))
      await run(m, w, index)
      checkAllStreams(w)
    },
    toString: () => label(pick),
  }
}

/** A command on one of the sessions the sequence created (s0, s1, …). */
export function onSession(pick: number, label: (index: number) => string, applies: (m: Readonly<ExploreModel>, index: number) => boolean,
  run: (m: ExploreModel, w: World, index: number) => Promise<void>): fc.AsyncCommand<ExploreModel, World> {
  return onPick(pick, (m) => m.sessions.length, label, applies, run)
}
