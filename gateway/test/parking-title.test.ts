/**
 * A title set by PATCH survives a park and the rebuild that wakes the session: the rebuilt
 * session answers with the same meta.title (updatesessionrequest.1, session-status-values.3),
 * and a title cleared by null before the park stays cleared. Found by `--explore`.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { startTestGateway, until, type TestGateway } from './harness.ts'

const gateways: TestGateway[] = []
afterEach(async () => {
  for (const g of gateways.splice(0)) await g.close()
})

/** Renames with `titles` in order, parks on a deferred call, delivers its result and re-attaches: the title after the rebuild. */
async function titleAfterRebuild(titles: Array<string | null>): Promise<unknown> {
  const g = await startTestGateway({ parking: { parkDelayMs: 20 } }, { deferredTools: { deferred_task: { expiresInMs: 60_000 } } })
  gateways.push(g)
  const session = await g.createSession({})
  for (const title of titles) expect((await g.request('PATCH', `/sessions/${session.id}`, { body: { title } })).status).toBe(200)
  const ws = await g.attach(session.id)
  ws.send({ type: 'user_message', text: 'scenario:deferred' })
  const dispatched = await ws.waitForEvent('execution_dispatched')
  ws.close()
  await until(async () => g.gateway.context.parking.isParked(session.id), (p) => p, 'parked', 10_000)
  const delivered = await g.request('POST', `/executions/${dispatched.executionId}/result`, { body: { status: 'ok', output: { type: 'text', value: 'ok' } } })
  expect(delivered.body).toEqual({ applied: true, sessionId: session.id })
  const again = await g.attach(session.id)
  await again.waitForEvent('turn_result')
  again.close()
  return (await g.request('GET', `/sessions/${session.id}`)).body?.session?.title
}

describe('meta.title across a park and rebuild', () => {
  it('keeps a title set by PATCH', async () => {
    expect(await titleAfterRebuild(['kept across the park'])).toBe('kept across the park')
  })
  it('keeps a title cleared by null cleared: the derived title, not the old one', async () => {
    expect(await titleAfterRebuild(['old', null])).not.toBe('old')
  })
})
