/**
 * Outgoing webhook HTTP, unit-tested with nock: fast and deterministic faults a real
 * receiver cannot stage cheaply (connection resets, hanging responses). End-to-end delivery keeps
 * its real loopback receiver in webhooks.test.ts and the queue tests.
 */
import nock from 'nock'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { WebhookDeliverer } from './webhooks.ts'

const ORIGIN = 'http://hooks.example.test'
beforeAll(() => nock.disableNetConnect())
afterEach(() => nock.cleanAll())
afterAll(() => nock.enableNetConnect())

function giveUps() {
  const seen: string[] = []
  return { seen, onGiveUp: (_t: unknown, error: string) => void seen.push(error) }
}

describe('WebhookDeliverer against nock', () => {
  it('retries a 5xx, then stops at the first 2xx', async () => {
    const scope = nock(ORIGIN).post('/hook').reply(503).post('/hook').reply(500).post('/hook').reply(204)
    const give = giveUps()
    const deliverer = new WebhookDeliverer({ attempts: 3, retryDelayMs: 1, onGiveUp: give.onGiveUp })
    deliverer.deliver('k', { url: `${ORIGIN}/hook` }, { n: 1 })
    await deliverer.idle()
    expect(scope.isDone()).toBe(true)
    expect(give.seen).toEqual([])
  })

  it('gives up after the configured attempts and reports the last failure', async () => {
    const scope = nock(ORIGIN).post('/hook').times(3).reply(502)
    const give = giveUps()
    const deliverer = new WebhookDeliverer({ attempts: 3, retryDelayMs: 1, onGiveUp: give.onGiveUp })
    deliverer.deliver('k', { url: `${ORIGIN}/hook` }, { n: 1 })
    await deliverer.idle()
    expect(scope.isDone()).toBe(true)
    expect(give.seen).toEqual(['HTTP 502'])
  })

  it('retries a connection reset', async () => {
    const scope = nock(ORIGIN).post('/hook').replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })).post('/hook').reply(200)
    const give = giveUps()
    const deliverer = new WebhookDeliverer({ attempts: 2, retryDelayMs: 1, onGiveUp: give.onGiveUp })
    deliverer.deliver('k', { url: `${ORIGIN}/hook` }, { n: 1 })
    await deliverer.idle()
    expect(scope.isDone()).toBe(true)
    expect(give.seen).toEqual([])
  })

  it('abandons an attempt that outlives timeoutMs and retries it', async () => {
    const scope = nock(ORIGIN).post('/hook').delay(5_000).reply(200).post('/hook').reply(200)
    const give = giveUps()
    const deliverer = new WebhookDeliverer({ attempts: 2, retryDelayMs: 1, timeoutMs: 50, onGiveUp: give.onGiveUp })
    deliverer.deliver('k', { url: `${ORIGIN}/hook` }, { n: 1 })
    await deliverer.idle()
    expect(scope.isDone()).toBe(true)
    expect(give.seen).toEqual([])
  })

  it('sends JSON with the target headers, and keeps a later delivery behind a retried one', async () => {
    const bodies: unknown[] = []
    const scope = nock(ORIGIN, { reqheaders: { 'content-type': 'application/json', authorization: 'Bearer hook' } })
      .post('/hook').reply(500)
      .post('/hook', (b) => { bodies.push(b); return true }).reply(200)
      .post('/hook', (b) => { bodies.push(b); return true }).reply(200)
    const deliverer = new WebhookDeliverer({ attempts: 2, retryDelayMs: 1 })
    deliverer.deliver('job', { url: `${ORIGIN}/hook`, headers: { authorization: 'Bearer hook' } }, { n: 1 })
    deliverer.deliver('job', { url: `${ORIGIN}/hook`, headers: { authorization: 'Bearer hook' } }, { n: 2 })
    await deliverer.idle()
    expect(scope.isDone()).toBe(true)
    expect(bodies).toEqual([{ n: 1 }, { n: 2 }])
  })

  it('backs off exponentially between attempts (each wait at least the doubled base)', async () => {
    const at: number[] = []
    const scope = nock(ORIGIN).post('/hook').times(3).reply(() => { at.push(performance.now()); return [500] })
    const deliverer = new WebhookDeliverer({ attempts: 3, retryDelayMs: 30 })
    deliverer.deliver('k', { url: `${ORIGIN}/hook` }, {})
    await deliverer.idle()
    expect(scope.isDone()).toBe(true)
    // Lower bounds only: a loaded machine may wait longer, never shorter.
    expect(at[1] - at[0]).toBeGreaterThanOrEqual(29)
    expect(at[2] - at[1]).toBeGreaterThanOrEqual(59)
  })
})
