/** The kit must catch a broken gateway: each injected fault makes the cases about it fail. */
import { describe, expect, it } from 'vitest'
import { runSuite } from '../run-suite.ts'
import { startSelfTarget } from '../target/self.ts'

async function failuresWith(fault: string, filters: string[]): Promise<string[]> {
  const target = await startSelfTarget({ faults: [fault] })
  try {
    const report = await runSuite({ manifest: target.manifest, seed: 99, filters })
    return report.cases.filter((c) => c.outcome === 'fail').map((c) => c.id)
  } finally {
    await target.close()
  }
}

describe('a deliberately broken gateway', () => {
  it('answering scope misses with 403 fails the scope cases', async () => {
    const failed = await failuresWith('scope-403', ['authentication.3'])
    expect(failed).toEqual(expect.arrayContaining(['auth-scope-miss-identical-404', 'auth-scope-miss-ws-404', 'auth-unscoped-session-hidden-from-scoped']))
  }, 60_000)

  it('replaying from afterSeq inclusive fails the replay case', async () => {
    expect(await failuresWith('replay-inclusive', ['ws-replay'])).toEqual(['ws-replay-after-seq'])
  }, 60_000)
})
