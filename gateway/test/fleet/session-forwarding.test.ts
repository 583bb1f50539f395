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

  it('refuses a forged forward (missing or wrong secret) on REST and WebSocket, and never echoes the secret', async () => {
    const [a, b] = fleet.processes
    const { body } = await a.call('POST', '/sessions', { prompt: 'forged' })
    const id = body.session.id
    const missing = await b.call('GET', `/sessions/${id}`, undefined, 'operator', { 'x-gateway-forwarded-by': 'p-evil' })
    expect(missing).toEqual({ status: 401, body: { error: expect.any(String), code: 'forward_unauthorized' } })
    const wrong = await a.call('GET', `/sessions/${id}`, undefined, 'operator', { 'x-gateway-forwarded-by': 'p-evil', 'x-gateway-forward-secret': 'guess' })
    expect(wrong).toEqual({ status: 403, body: { error: expect.any(String), code: 'forward_forbidden' } })
    // The list too: a forged part request is refused before it could read this process's rows.
    const list = await b.call('GET', '/sessions', undefined, 'x', { 'x-gateway-forward-secret': 'guess', 'x-gateway-fleet-list': '1' })
    expect(list.status).toBe(403)
    const upgrade = await b.attach(id, undefined, 'operator', { 'x-gateway-forwarded-by': 'p-evil', 'x-gateway-forward-secret': 'guess' }).catch((err) => err)
    expect(upgrade).toMatchObject({ status: 403 })
    expect(JSON.parse(upgrade.body)).toMatchObject({ code: 'forward_forbidden' })
    for (const p of fleet.processes) expect(p.gw.lines.join('\n') + p.gw.stderr()).not.toContain('fleet-shared-secret-for-tests')
  })

  it("answers 404 for tenant Y's session to tenant X through every process, REST and WebSocket alike", async () => {
    const [a] = fleet.processes
    const created = await a.call('POST', '/sessions', { prompt: 'tenant y only' }, 'y')
    expect(created.status).toBe(201)
    const id = created.body.session.id
    const unknown = await a.call('GET', '/sessions/00000000-0000-4000-8000-000000000000', undefined, 'x')
    for (const p of fleet.processes) {
      expect(await p.call('GET', `/sessions/${id}`, undefined, 'y')).toMatchObject({ status: 200, body: { session: { id } } })
      const miss = await p.call('GET', `/sessions/${id}`, undefined, 'x')
      expect(miss).toEqual(unknown) // byte-identical to an unknown id (authentication.3)
      expect((await p.call('GET', `/sessions/${id}/events`, undefined, 'x')).status).toBe(404)
      const ws = await p.attach(id, undefined, 'x').catch((err) => err)
      expect(ws).toMatchObject({ status: 404 })
    }
  })

  it('GET /sessions through any process lists the fleet\'s sessions, scoped', async () => {
    const made: Record<string, string[]> = { x: [], y: [] }
    for (const [i, p] of fleet.processes.entries()) {
      for (const who of ['x', 'y'] as const) {
        const created = await p.call('POST', '/sessions', { prompt: `listed ${who} ${i}` }, who)
        expect(created.status).toBe(201)
        made[who].push(created.body.session.id)
      }
    }
    for (const p of fleet.processes) {
      for (const who of ['x', 'y'] as const) {
        const other = who === 'x' ? 'y' : 'x'
        const ids = ((await p.call('GET', '/sessions', undefined, who)).body.sessions as Array<{ id: string; scope?: Record<string, string> }>)
        expect(ids.map((s) => s.id)).toEqual(expect.arrayContaining(made[who]))
        expect(ids.some((s) => made[other].includes(s.id))).toBe(false)
        expect(ids.every((s) => s.scope?.tenant === who)).toBe(true)
        expect(new Set(ids.map((s) => s.id)).size).toBe(ids.length) // each session once
      }
      const all = (await p.call('GET', '/sessions')).body.sessions.map((s: { id: string }) => s.id)
      expect(all).toEqual(expect.arrayContaining([...made.x, ...made.y]))
    }
  })
})
