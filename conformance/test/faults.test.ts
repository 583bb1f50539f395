/**
 * The kit must catch a broken gateway (conformance-kit-anchors §11.8): each mutant of the zoo is
 * one deliberate spec violation, and the cases about it must fail. The kill rate is printed.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { runSuite } from '../run-suite.ts'
import { startSelfTarget } from '../target/self.ts'

async function failuresWith(fault: string, filters: string[]): Promise<string[]> {
  const target = await startSelfTarget({ faults: [fault] })
  try {
    const report = await runSuite({ manifest: target.manifest, seed: 99, filters, receiver: target.receiver })
    return report.cases.filter((c) => c.outcome === 'fail').map((c) => c.id)
  } finally {
    await target.close()
  }
}

const ZOO: Array<{ fault: string; filters: string[]; killedBy: string[] }> = [
  { fault: 'scope-403', filters: ['authentication.3'], killedBy: ['auth-scope-miss-identical-404', 'auth-scope-miss-ws-404', 'auth-unscoped-session-hidden-from-scoped'] },
  { fault: 'replay-inclusive', filters: ['ws-replay'], killedBy: ['ws-replay-after-seq'] },
  { fault: 'retry-constant-delay', filters: ['jobs-retry-doubling'], killedBy: ['jobs-retry-doubling'] },
  { fault: 'bypass-allowed', filters: ['create-bypass-disabled-403'], killedBy: ['create-bypass-disabled-403'] },
  { fault: 'fs-disclosure-403', filters: ['host-files-roots-list-find-read'], killedBy: ['host-files-roots-list-find-read'] },
  { fault: 'park-never', filters: ['parking-park-and-deliver', 'parking-parked-refusals'], killedBy: ['parking-park-and-deliver', 'parking-parked-refusals'] },
]

const killed: string[] = []
afterAll(() => {
  console.log(`mutation kill rate: ${killed.length}/${ZOO.length} mutants killed (${killed.join(', ')})`)
})

describe('a deliberately broken gateway (the mutant zoo)', () => {
  for (const mutant of ZOO) {
    it(`mutant ${mutant.fault} fails ${mutant.killedBy.join(', ')}`, async () => {
      const failed = await failuresWith(mutant.fault, mutant.filters)
      expect(failed).toEqual(expect.arrayContaining(mutant.killedBy))
      killed.push(mutant.fault)
    }, 60_000)
  }
})
