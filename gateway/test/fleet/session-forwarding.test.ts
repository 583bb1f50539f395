/**
 * Three `gateway serve` processes on one PostgreSQL are one gateway for sessions: a session
 * created on one is attached and driven through the others (REST and WebSocket forwarded to the
 * process that runs it), and when that process is SIGKILLed the next attaches adopt it exactly
 * once, with every completed turn and contiguous seqs (session-status-values.7-8, events.1,
 * events.10). Timers are short through options (a 1.5 s lease); waits are on conditions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestSocket } from '../harness.ts'
import { until } from '../harness.ts'
import { directoryRow, processIdOf, startSessionFleet, type SessionFleet } from './session-fleet.ts'

let fleet: SessionFleet

beforeAll(async () => {
  fleet = await startSessionFleet(3)
}, 120_000)
afterAll(async () => {
  await fleet?.stop()
})

const seqsOf = (ws: TestSocket) => ws.events().map((e) => e.seq as number)
const contiguous = (seqs: number[]) => seqs.every((s, i) => s === seqs[0] + i)

describe('sessions across a fleet of gateway serve processes', { timeout: 120_000 }, () => {
  it('a session created on A is driven through B and C: turns, afterSeq replay, a permission answer', async () => {
    const [a, b, c] = fleet.processes
    const created = await a.call('POST', '/sessions', { prompt: 'first' })
    expect(created.status).toBe(201)
    const id = created.body.session.id
    expect((await directoryRow(fleet.db, id))?.process_id).toBe(await processIdOf(fleet.db, a))

    const viaB = await b.attach(id)
    await viaB.waitFor((f) => f.type === 'attached')
    expect((await viaB.waitForEvent('turn_result')).result).toBe('echo: first')
    viaB.send({ type: 'user_message', text: 'second' })
    const second = await viaB.waitForEvent('turn_result', (e) => e.result === 'echo: second')
    expect(contiguous(seqsOf(viaB))).toBe(true)

    const viaC = await until(() => c.call('GET', `/sessions/${id}`), (r) => r.body?.session?.status === 'idle', 'idle, read through C')
    expect(viaC.body.session).toMatchObject({ id, numTurns: 2 })
    const replay = await c.attach(id, second.seq - 1)
    await replay.waitForEvent('turn_result', (e) => e.seq === second.seq)
    expect(seqsOf(replay)[0]).toBe(second.seq)
    replay.close()
    viaB.close()

    // A permission asked by the fake Claude CLI on A, answered through B's forwarded socket.
    const claude = await a.call('POST', '/sessions', { profile: 'claude', cwd: fleet.work })
    expect(claude.status).toBe(201)
    const ws = await b.attach(claude.body.session.id)
    await ws.waitForEvent('status_changed', (e) => e.status === 'idle')
    ws.send({ type: 'user_message', text: 'scenario:permission' })
    const asked = await ws.waitForEvent('permission_requested')
    ws.send({ type: 'permission_decision', requestId: asked.request.requestId, behavior: 'allow', updatedInput: { command: 'echo through the fleet' } })
    expect(await ws.waitForEvent('permission_resolved')).toMatchObject({ behavior: 'allow', resolvedBy: 'client' })
    expect((await ws.waitForEvent('turn_result')).result).toBe('Tool said: ran Bash with {"command":"echo through the fleet"}')
    // A second answer through C is forwarded to A, which no longer knows the request.
    const again = await c.call('POST', `/sessions/${claude.body.session.id}/permissions/${asked.request.requestId}`, { behavior: 'allow' })
    expect(again.status).toBe(404)
    ws.close()
  })
})
