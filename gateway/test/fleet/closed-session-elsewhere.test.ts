/**
 * A closed session stays readable through every process of the fleet, as on one process: its
 * owner keeps the closed registry row (a finished job's session, say), so the directory row stays
 * and another process forwards a GET there, with the info as `buildRunnerConfig` shaped it
 * (server-configuration.10). A DELETE through either process removes it and releases the row.
 */
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import type { RunnerConfig } from '../../sessions/runner.ts'
import { until } from '../harness.ts'
import { useInProcessFleet } from './in-process-members.ts'

const fleet = useInProcessFleet('closed_session_elsewhere')
const member = (processId: string) => fleet.member(processId, {
  buildRunnerConfig: (config: RunnerConfig) => ({ ...config, meta: { ...(config.meta ?? {}), builtBy: processId } }),
}, {})

describe('a closed session across the fleet', { timeout: 60_000 }, () => {
  it('is read through another process with its meta until it is deleted', async () => {
    const one = await member('closed-1')
    const two = await member('closed-2')
    const db = new pg.Client({ connectionString: fleet.url })
    await db.connect()
    try {
      const row = async (id: string) => (await db.query('SELECT process_id FROM gateway_session_directory WHERE session_id = $1', [id])).rows[0]
      const session = await one.createSession({ prompt: 'hello fleet' })
      const ws = await one.attach(session.id)
      await ws.waitForEvent('turn_result')
      ws.send({ type: 'close' })
      await until(() => one.request('GET', `/sessions/${session.id}`), (r) => r.body.session?.status === 'closed', 'closed on its owner')
      const seen = await two.request('GET', `/sessions/${session.id}`)
      expect(seen.status).toBe(200)
      expect(seen.body.session).toMatchObject({ id: session.id, status: 'closed', meta: { builtBy: 'closed-1' } })
      expect(await row(session.id)).toEqual({ process_id: 'closed-1' })

      expect((await two.request('DELETE', `/sessions/${session.id}`)).status).toBe(200)
      await until(() => row(session.id), (r) => r === undefined, 'the row of the deleted session released')
      for (const via of [one, two]) expect((await via.request('GET', `/sessions/${session.id}`)).status).toBe(404)
    } finally {
      await db.end()
    }
  })
})
