/**
 * The `fleet` library option: two createGatewayServer instances in one test process on one
 * PostgreSQL are one gateway for sessions, and a graceful close hands its sessions over at once
 * (its lease is dropped, no wait for it to lapse): the next request elsewhere adopts them.
 */
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { until } from '../harness.ts'
import { useInProcessFleet } from './in-process-members.ts'

const fleet = useInProcessFleet('in_process_fleet')
const member = (processId: string) => fleet.member(processId)

describe('the fleet option in one process', { timeout: 60_000 }, () => {
  it('answers for a session of the other server, and adopts it at once after a graceful close', async () => {
    const first = await member('in-process-1')
    const second = await member('in-process-2')
    const session = await first.createSession({ prompt: 'hello fleet' })
    const ws = await second.attach(session.id)
    expect((await ws.waitForEvent('turn_result')).result).toBe('echo: hello fleet')
    ws.close()
    const seen = await second.request('GET', `/sessions/${session.id}`)
    expect(seen.body.session).toMatchObject({ id: session.id, numTurns: 1 })
    // Forged: a client cannot pass its request off as forwarded.
    const forged = await second.request('GET', `/sessions/${session.id}`, { headers: { 'x-gateway-forwarded-by': 'in-process-1', 'x-gateway-forward-secret': 'nope' } })
    expect(forged).toMatchObject({ status: 403, body: { code: 'forward_forbidden' } })

    // A graceful close keeps the record and the directory row, and drops the lease: no 60 s wait.
    await first.close()
    const again = await second.attach(session.id)
    expect((await again.waitForEvent('turn_result')).result).toBe('echo: hello fleet')
    again.send({ type: 'user_message', text: 'on the second server' })
    expect((await again.waitForEvent('turn_result', (e) => e.result === 'echo: on the second server')).numTurns).toBe(2)
    again.close()
    expect((await second.request('GET', '/sessions')).body.sessions.map((s: { id: string }) => s.id)).toContain(session.id)
  })

  it('keeps a closed session readable everywhere and releases its row when it is deleted or parks; the park is woken by another server', async () => {
    const one = await member('in-process-3')
    const two = await member('in-process-4')
    const db = new pg.Client({ connectionString: fleet.url })
    await db.connect()
    try {
      const row = async (id: string) => (await db.query('SELECT process_id FROM gateway_session_directory WHERE session_id = $1', [id])).rows[0]
      // Closed by its client: readable `closed` through either server until it is deleted (commands.7).
      const ended = await one.createSession({})
      const endedWs = await one.attach(ended.id)
      endedWs.send({ type: 'close' })
      await endedWs.waitForEvent('session_closed')
      endedWs.close()
      for (const via of [one, two]) {
        const read = await until(() => via.request('GET', `/sessions/${ended.id}`), (r) => r.status !== 200 || r.body.session.status === 'closed', 'the session closed')
        expect(read.body.session.status).toBe('closed')
      }
      expect(await row(ended.id)).toEqual({ process_id: 'in-process-3' })
      expect((await two.request('DELETE', `/sessions/${ended.id}`)).status).toBe(200)
      await until(() => row(ended.id), (r) => r === undefined, 'the row of the closed session released by its delete')

      const closing = await one.createSession({ prompt: 'to be deleted' })
      expect(await row(closing.id)).toEqual({ process_id: 'in-process-3' })
      expect((await two.request('DELETE', `/sessions/${closing.id}`)).status).toBe(200)
      await until(() => row(closing.id), (r) => r === undefined, 'the row of the deleted session released')
      expect((await two.request('GET', `/sessions/${closing.id}`)).status).toBe(404)

      const parking = await one.createSession({ prompt: 'scenario:deferred' })
      const ws = await one.attach(parking.id)
      const { executionId } = await ws.waitForEvent('execution_dispatched')
      ws.close()
      await until(() => row(parking.id), (r) => r === undefined, 'the row of the parked session released')
      // The result reaches the other server; the process that wakes the park claims the session,
      // and an attach through either server reaches it.
      const applied = await two.request('POST', `/executions/${executionId}/result`, { body: { status: 'ok', output: { type: 'text', value: 'done elsewhere' } } })
      expect(applied.body).toEqual({ applied: true, sessionId: parking.id })
      await until(() => row(parking.id), (r) => r !== undefined, 'the woken session claimed')
      for (const via of [one, two]) {
        const socket = await via.attach(parking.id)
        expect((await socket.waitForEvent('turn_result')).result).toBe('The task answered: "done elsewhere"')
        socket.close()
      }
    } finally {
      await db.end()
    }
  })

  it('takes an execution result for a session that runs live on the other server (a client attached there)', async () => {
    const one = await member('in-process-5')
    const two = await member('in-process-6')
    const session = await one.createSession({ prompt: 'scenario:deferred' }, 'tenantA')
    const ws = await one.attach(session.id, { who: 'tenantA' })
    const { executionId } = await ws.waitForEvent('execution_dispatched')
    const result = { status: 'ok', output: { type: 'text', value: 'answered through two' } }
    // Not the caller's session: the same 404 as an unknown id, from every server.
    expect(await two.request('POST', `/executions/${executionId}/result`, { who: 'tenantB', body: result })).toMatchObject({ status: 404, body: { code: 'execution_not_found' } })
    const applied = await two.request('POST', `/executions/${executionId}/result`, { who: 'tenantA', body: result })
    expect(applied).toMatchObject({ status: 200, body: { applied: true, sessionId: session.id } })
    expect((await ws.waitForEvent('turn_result')).result).toBe('The task answered: "answered through two"')
    const again = await two.request('POST', `/executions/${executionId}/result`, { who: 'tenantA', body: result })
    expect(again).toMatchObject({ status: 200, body: { applied: false, sessionId: session.id } })
    ws.close()
  })
})
