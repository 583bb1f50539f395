/**
 * The reliability suite runs small inside `npm test` and at full scale under `npm run reliability`
 * (RELIABILITY_SCALE=full). The seed is printed so any finding can be replayed with RELIABILITY_SEED.
 */
import { fakerAR, fakerDE, fakerEN, fakerJA, fakerRU, fakerZH_CN, type Faker } from '@faker-js/faker'

export const FULL = process.env.RELIABILITY_SCALE === 'full'
export const SEED = Number(process.env.RELIABILITY_SEED ?? 20261123)

/** Picks the small or the full figure. */
export function scaled(small: number, full: number): number {
  return FULL ? full : small
}

export function announce(suite: string, figures: Record<string, unknown>): void {
  console.log(`[reliability] ${suite} seed=${SEED} scale=${FULL ? 'full' : 'small'} ${JSON.stringify(figures)}`)
}

const LOCALES: Faker[] = [fakerEN, fakerDE, fakerJA, fakerAR, fakerRU, fakerZH_CN]

/** Realistic generated inputs, seeded: titles, meta, file names, multilingual prompts. */
export function realisticInputs(seed: number) {
  for (const [i, f] of LOCALES.entries()) f.seed(seed + i)
  const pick = () => LOCALES[fakerEN.number.int({ min: 0, max: LOCALES.length - 1 })]
  return {
    prompt: () => pick().lorem.sentence({ min: 2, max: 12 }),
    title: () => pick().company.catchPhrase(),
    fileName: () => fakerEN.system.fileName(),
    meta: () => ({ customer: pick().person.fullName(), ticket: fakerEN.string.alphanumeric(8), city: pick().location.city(), tags: fakerEN.helpers.multiple(() => fakerEN.word.noun(), { count: { min: 0, max: 4 } }) }),
  }
}
