/**
 * A process that stalls past its lease (SIGSTOP: a frozen event loop, a paused VM) comes back to
 * find that the fleet adopted one of its sessions. It must not run that session a second time:
 * its writes of the session are refused at the store, and it stops (`gateway serve` exits 1 for its
 * supervisor to restart it), so the adopter's record, seqs and turns stand (event-and-command-envelope.1,
 * session-status-values.8, embedding-rules.14). Timers are short through options; waits are on conditions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestSocket } from '../harness.ts'
import { until } from '../harness.ts'
import { directoryRow, processIdOf, startSessionFleet, type SessionFleet } from './session-fleet.ts'

let fleet: SessionFleet

beforeAll(async () => {
  fleet = await startSessionFleet(2)
}, 120_000)
afterAll(async () => {
  await fleet?.stop()
})

const seqsOf = (ws: TestSocket) => ws.events().map((e) => e.seq as number)

describe('a fleet process that stalled past its lease', { timeout: 120_000 }, () => {
  it('stops once it finds its session adopted, and never overwrites what the adopter wrote', async () => {
    const [a, b] = fleet.processes
    const record = (sid: string) => fleet.db.query('SELECT record FROM gateway_sessions WHERE id = $1', [sid]).then((r) => r.rows[0]?.record)
    const created = await a.call('POST', '/sessions', { prompt: 'before the stall' })
    const id = created.body.session.id
    await until(() => record(id), (r) => r?.kind === 'live' && r.info.numTurns === 1, 'the live record after one turn')
    const onA = await a.attach(id)
    await onA.waitForEvent('turn_result', (e) => e.result === 'echo: before the stall')
    const closeOfA = new Promise<number>((resolve) => onA.ws.once('close', (code) => resolve(code)))
    const ownerA = await processIdOf(fleet.db, a)
    const leaseHeld = async () => (await fleet.db.query('SELECT lease_until > clock_timestamp() AS held FROM gateway_fleet_members WHERE process_id = $1', [ownerA])).rows[0]?.held === true

    a.gw.child.kill('SIGSTOP')
    try {
      await until(leaseHeld, (held) => !held, "A's lease lapsed", 15_000)
      const onB = await b.attach(id)
      await onB.waitForEvent('turn_result', (e) => e.result === 'echo: before the stall')
      expect((await directoryRow(fleet.db, id))?.process_id).toBe(await processIdOf(fleet.db, b))
      onB.send({ type: 'user_message', text: 'after the adoption' })
      const adopted = await onB.waitForEvent('turn_result', (e) => e.result === 'echo: after the adoption')
      await until(() => record(id), (r) => r?.info.numTurns === 2, "the adopter's record after its turn")
      onB.close()

      a.gw.child.kill('SIGCONT')
      // A finds its lease had lapsed and s adopted: it stops on its own, exit code 1, saying why.
      expect(await a.gw.exited).toEqual({ code: 1, signal: null })
      const said = a.gw.lines.map((l) => { try { return JSON.parse(l) } catch { return {} } })
      expect(said).toContainEqual(expect.objectContaining({ kind: 'fleet', msg: expect.stringContaining('lease lapsed'), sessions: [id], processId: ownerA }))
      // Its client was told to go (1001) rather than fed a second copy of the session.
      expect(await closeOfA).toBe(1001)

      // Nothing A did on its way out replaced the adopter's record: both turns, numbered after every seq shown.
      const kept = await record(id)
      expect(kept.info.numTurns).toBe(2)
      expect(kept.snapshot.seq).toBeGreaterThanOrEqual(adopted.seq)
      const again = await b.attach(id)
      await again.waitForEvent('turn_result', (e) => e.result === 'echo: after the adoption')
      const seqs = seqsOf(again)
      expect(seqs[0]).toBe(1)
      expect(new Set(seqs).size).toBe(seqs.length)
      again.close()
    } finally {
      a.gw.child.kill('SIGCONT')
    }
  })
})
