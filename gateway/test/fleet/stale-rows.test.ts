/**
 * Stored rows another process may have changed, in a fleet of three servers on one PostgreSQL:
 * a process that read a park once (a GET refreshes its row from the store) keeps that row, and
 * the directory and the store, not that row, decide what it answers. A DELETE answers once the
 * record is gone (session-status-values.5); a result whose session a peer woke is answered by
 * that peer (commands.1, session-status-values.3), never by a second rebuild here that would
 * number the same seqs again (websocket-framing.1, events.10).
 */
import { describe, expect, it } from 'vitest'
import { until, type TestGateway } from '../harness.ts'
import { useInProcessFleet } from './in-process-members.ts'

const fleet = useInProcessFleet('stale_rows')
const member = (processId: string) => fleet.member(processId)

/** A session parked by `owner`, its park read once by each of `readers` (each keeps a parked row). */
async function parkedOn(owner: TestGateway, readers: TestGateway[]): Promise<{ id: string; executionId: string; seq: number }> {
  const session = await owner.createSession({})
  const ws = await owner.attach(session.id)
  ws.send({ type: 'user_message', text: 'scenario:deferred' })
  const dispatched = await ws.waitForEvent('execution_dispatched')
  ws.close()
  await until(() => owner.request('PATCH', `/sessions/${session.id}`, { body: {} }), (r) => r.status === 409, 'the session parked')
  for (const r of readers) expect((await r.request('GET', `/sessions/${session.id}`)).body.session.status).toBe('parked')
  return { id: session.id, executionId: dispatched.executionId, seq: dispatched.seq }
}

const RESULT = { status: 'ok', output: { type: 'text', value: 'approved' } }

describe('stale stored rows across a fleet', { timeout: 60_000 }, () => {
  it('a parked session deleted through one process is gone on every other one at once (session-status-values.5)', async () => {
    const [a, b, c] = [await member('stale-1'), await member('stale-2'), await member('stale-3')]
    for (let round = 0; round < 5; round++) {
      const { id } = await parkedOn(a, [b, c])
      expect((await b.request('DELETE', `/sessions/${id}`)).status).toBe(200)
      for (const via of [a, c, b]) expect((await via.request('GET', `/sessions/${id}`)).status).toBe(404)
    }
  })

  it('a message sent to a parked session woken by an attach on another process gets its turn_result once the result arrives anywhere (commands.1)', async () => {
    const [a, b, c] = [await member('stale-4'), await member('stale-5'), await member('stale-6')]
    const { id, executionId, seq } = await parkedOn(a, [c])
    const ws = await b.attach(id, { afterSeq: seq })
    await ws.waitFor((f) => f.type === 'attached')
    ws.send({ type: 'user_message', text: 'sent while parked' })
    await ws.waitForEvent('user_message')
    const applied = await c.request('POST', `/executions/${executionId}/result`, { body: RESULT })
    expect(applied.body).toEqual({ applied: true, sessionId: id })
    expect((await ws.waitForEvent('turn_result', (e) => e.result === 'echo: sent while parked')).isError).toBe(false)
    ws.close()
  })

  it('a park woken by an attach on one process is awake on every other one once the attach is answered (session-status-values.6)', async () => {
    const [a, b, c] = [await member('stale-10'), await member('stale-11'), await member('stale-12')]
    for (let round = 0; round < 3; round++) {
      const { id } = await parkedOn(a, [c])
      const ws = await b.attach(id)
      await ws.waitFor((f) => f.type === 'attached')
      for (const via of [c, a]) expect((await via.request('PATCH', `/sessions/${id}`, { body: { title: `awake ${round}` } })).status).toBe(200)
      ws.close()
    }
  })

  it('a duplicate result on a process holding a stale row answers applied: false, and every process replays the woken session whole (websocket-framing.1)', async () => {
    const [a, b, c] = [await member('stale-7'), await member('stale-8'), await member('stale-9')]
    const { id, executionId } = await parkedOn(a, [b, c])
    expect((await b.request('POST', `/executions/${executionId}/result`, { body: RESULT })).body).toEqual({ applied: true, sessionId: id })
    expect((await c.request('POST', `/executions/${executionId}/result`, { body: RESULT })).body).toEqual({ applied: false, sessionId: id })
    const woken = await b.attach(id, { afterSeq: 0 })
    await woken.waitForEvent('turn_result', (e) => String(e.result).includes('approved'))
    await woken.waitForEvent('status_changed', (e) => e.status === 'idle')
    woken.close()
    const before = (await c.request('GET', `/sessions/${id}`)).body.session.lastSeq as number
    const live = await a.attach(id, { afterSeq: before })
    live.send({ type: 'user_message', text: 'after the wake' })
    const result = await live.waitForEvent('turn_result')
    await live.waitForEvent('status_changed', (e) => e.status === 'idle' && e.seq > result.seq)
    const seen = live.events().map((e) => `${e.seq} ${e.type}`)
    live.close()
    for (const via of [a, b, c]) {
      const again = await via.attach(id, { afterSeq: before })
      again.send('not a command')
      await again.waitFor((f) => f.type === 'protocol_error')
      const replayed = again.events().map((e) => `${e.seq} ${e.type}`)
      again.close()
      expect(replayed).toEqual(seen)
    }
  })
})
