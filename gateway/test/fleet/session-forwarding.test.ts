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

  it("survives its owner's SIGKILL: attaches on B and C at the same moment adopt it exactly once, every completed turn kept, seqs contiguous", async () => {
    const [a, b, c] = fleet.processes
    const created = await a.call('POST', '/sessions', { prompt: 'before the kill 1' })
    const id = created.body.session.id
    const ws = await b.attach(id)
    await ws.waitForEvent('turn_result', (e) => e.result === 'echo: before the kill 1')
    ws.send({ type: 'user_message', text: 'before the kill 2' })
    await ws.waitForEvent('turn_result', (e) => e.result === 'echo: before the kill 2')
    const idle = await until(() => c.call('GET', `/sessions/${id}`), (r) => r.body.session.status === 'idle' && r.body.session.numTurns === 2, 'idle after two turns')
    const lastSeq: number = idle.body.session.lastSeq
    ws.close()
    const record = (sid: string) => fleet.db.query('SELECT record FROM gateway_sessions WHERE id = $1', [sid]).then((r) => r.rows[0]?.record)
    // A turn running when A dies (hang: it never ends by itself), after one completed turn.
    const running = (await a.call('POST', '/sessions', { prompt: 'one turn' })).body.session.id
    await until(() => record(running), (r) => r?.kind === 'live', 'the running session has its live record')
    const hanging = await c.attach(running)
    await hanging.waitForEvent('turn_result')
    hanging.send({ type: 'user_message', text: 'scenario:hang' })
    await hanging.waitForEvent('status_changed', (e) => e.status === 'running' && e.seq > 3)
    const seenBeforeKill = Math.max(...seqsOf(hanging))
    await until(() => record(running), (r) => r?.turnRunning === true, 'the record says a turn runs')
    // A session whose only turn was running has no record: nothing to adopt (404 once its row is cleaned).
    const unrecorded = (await a.call('POST', '/sessions', { prompt: 'scenario:hang' })).body.session.id
    await until(() => c.call('GET', `/sessions/${unrecorded}`), (r) => r.body.session.status === 'running', 'the unrecorded turn runs')
    await until(() => record(id), (r) => r?.kind === 'live' && r.snapshot.seq >= lastSeq - 1, 'the live record holds both turns')
    // Two Claude CLI sessions with a completed turn: their dormant records name the CLI's conversation.
    const cli = async (prompt: string) => {
      const made = (await a.call('POST', '/sessions', { profile: 'claude', cwd: fleet.work, prompt })).body.session
      const done = await until(() => c.call('GET', `/sessions/${made.id}`), (r) => r.body.session.status === 'idle' && r.body.session.numTurns === 1, 'the CLI turn ended')
      await until(() => record(made.id), (r) => r?.kind === 'live' && r.snapshot.resumeId !== undefined, 'the dormant record')
      return { id: made.id as string, sdkSessionId: done.body.session.sdkSessionId as string }
    }
    const cliKept = await cli('cli before the kill')
    const cliLost = await cli('cli whose store is gone')
    const ownerA = await processIdOf(fleet.db, a)
    expect(await directoryRow(fleet.db, id)).toEqual({ process_id: ownerA, epoch: '1' })

    a.gw.child.kill('SIGKILL')
    await a.gw.exited
    const leaseHeld = async () => (await fleet.db.query('SELECT lease_until > clock_timestamp() AS held FROM gateway_fleet_members WHERE process_id = $1', [ownerA])).rows[0]?.held === true
    // While A's lease holds, its sessions are unreachable (503), not gone (404).
    const early = await b.call('GET', `/sessions/${id}`)
    if (await leaseHeld()) expect(early).toMatchObject({ status: 503, body: { code: 'session_owner_unreachable' } })
    await until(leaseHeld, (held) => !held, "A's lease lapsed", 15_000)

    const [onB, onC] = await Promise.all([b.attach(id), c.attach(id)])
    for (const socket of [onB, onC]) {
      await socket.waitForEvent('turn_result', (e) => e.result === 'echo: before the kill 2')
      const seqs = seqsOf(socket)
      expect(seqs[0]).toBe(1)
      expect(contiguous(seqs)).toBe(true)
      expect(socket.events().filter((e) => e.type === 'turn_result').map((e) => e.result)).toEqual(['echo: before the kill 1', 'echo: before the kill 2'])
    }
    const row = await directoryRow(fleet.db, id)
    expect(row?.epoch).toBe('2') // one adoption: the epoch moved once
    expect([await processIdOf(fleet.db, b), await processIdOf(fleet.db, c)]).toContain(row?.process_id)
    const adoptionsOf = async (sid: string) => [b, c].flatMap((p) => p.gw.lines.flatMap((l) => {
      try { const line = JSON.parse(l); return line.kind === 'fleet' && line.sessionId === sid ? [line] : [] } catch { return [] }
    }))
    const logged = await until(() => adoptionsOf(id), (lines) => lines.length > 0, 'the adoption logged')
    expect(logged).toEqual([expect.objectContaining({ msg: 'session adopted from a dead process', from: ownerA, epoch: 2, processId: row?.process_id })])
    // One runner behind both sockets: a turn sent on one is seen on both, numbered after every seq shown before.
    onC.send({ type: 'user_message', text: 'after the kill' })
    for (const socket of [onB, onC]) {
      const next = await socket.waitForEvent('turn_result', (e) => e.result === 'echo: after the kill')
      expect(next.seq).toBeGreaterThan(lastSeq)
      expect(next.numTurns).toBe(3)
      expect(socket.events().filter((e) => e.type === 'turn_result')).toHaveLength(3)
      expect(new Set(seqsOf(socket)).size).toBe(seqsOf(socket).length)
    }
    onB.close()
    onC.close()

    // The turn A was running died with it: adoption ends it with an error turn_result, numbered
    // after every seq a client saw (events.1), and the session is idle again with its completed turn.
    const lost = await c.attach(running)
    await lost.waitForEvent('turn_result', (e) => e.result === 'echo: one turn')
    const ended = await lost.waitForEvent('turn_result', (e) => e.isError === true)
    expect(ended).toMatchObject({ subtype: 'error_during_execution', errors: ['the gateway process running this turn ended before the turn did'] })
    expect(ended.seq).toBeGreaterThan(seenBeforeKill)
    const back = await until(() => c.call('GET', `/sessions/${running}`), (r) => r.body.session.status === 'idle', 'the adopted session is idle')
    expect(back.body.session.numTurns).toBe(2)
    lost.send({ type: 'user_message', text: 'after the lost turn' })
    const after = await lost.waitForEvent('turn_result', (e) => e.result === 'echo: after the lost turn')
    expect(after.seq).toBeGreaterThan(ended.seq)
    lost.close()
    // The CLI session resumes on the adopting process from the CLI's own store, its turn replayed.
    const resumed = await b.attach(cliKept.id)
    await resumed.waitForEvent('user_message', (e) => e.replay === true && JSON.stringify(e.message.content).includes('cli before the kill'))
    await resumed.waitForEvent('assistant_message', (e) => e.replay === true)
    await resumed.waitForEvent('status_changed', (e) => e.status === 'idle')
    resumed.send({ type: 'user_message', text: 'cli after the kill' })
    await resumed.waitForEvent('turn_result', (e) => e.result === 'echo: cli after the kill')
    expect(resumed.events().find((e) => e.type === 'system_init')?.sdkSessionId).toBe(cliKept.sdkSessionId)
    resumed.close()
    // A CLI conversation the adopting process cannot read (its store not shared with it): the
    // session fails with an error naming the conversation and why, never an empty history.
    const { readdir, rm: remove } = await import('node:fs/promises')
    const { join } = await import('node:path')
    for (const project of await readdir(join(fleet.claudeConfig, 'projects'))) {
      await remove(join(fleet.claudeConfig, 'projects', project, `${cliLost.sdkSessionId}.jsonl`), { force: true })
    }
    const orphan = await c.attach(cliLost.id)
    const failed = await orphan.waitForEvent('session_error')
    expect(failed.message).toContain(`no stored transcript for ${cliLost.sdkSessionId}`)
    expect(failed.message).toContain("the CLI's configuration directory must be readable here")
    expect(await orphan.waitForEvent('session_closed')).toMatchObject({ reason: 'error' })
    expect(orphan.events().some((e) => e.type === 'user_message' || e.type === 'assistant_message')).toBe(false)
    orphan.close()
    expect(await b.call('GET', `/sessions/${unrecorded}`)).toMatchObject({ status: 404, body: { code: 'session_not_found' } })
    expect(await directoryRow(fleet.db, unrecorded)).toBeUndefined()
  })
})
