import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { WebhookDeliverer } from './webhooks.ts'

let server: Server | undefined
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())))

async function receiver(script: number[]) {
  const got: Array<{ body: any; headers: Record<string, unknown>; status: number; at: number }> = []
  server = createServer((req, res) => {
    let text = ''
    req.on('data', (c) => { text += c })
    req.on('end', () => {
      const status = script.shift() ?? 200
      got.push({ body: JSON.parse(text), headers: req.headers, status, at: Date.now() })
      res.statusCode = status
      res.end()
    })
  })
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r))
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/hook`, got }
}

describe('WebhookDeliverer', () => {
  it('keeps per-key order while an earlier delivery is retried, with doubling delays', async () => {
    const { url, got } = await receiver([500, 500])
    const deliverer = new WebhookDeliverer({ attempts: 3, retryDelayMs: 20 })
    deliverer.deliver('job-1', { url, headers: { authorization: 'Bearer hook' } }, { n: 1 })
    deliverer.deliver('job-1', { url }, { n: 2 })
    await deliverer.idle()
    expect(got.map((g) => [g.body.n, g.status])).toEqual([[1, 500], [1, 500], [1, 200], [2, 200]])
    expect(got[0].headers.authorization).toBe('Bearer hook')
    expect(got[0].headers['content-type']).toBe('application/json')
    // Lower bounds only: a loaded machine delays a timer, never fires it early (1 ms for rounding),
    // so comparing the two gaps with each other would fail whenever the first retry ran late.
    expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(19)
    expect(got[2].at - got[1].at).toBeGreaterThanOrEqual(39)
  })

  it('gives up after the last attempt and goes on with the next event', async () => {
    const { url, got } = await receiver([503, 503, 503])
    const gaveUp: string[] = []
    const deliverer = new WebhookDeliverer({ attempts: 3, retryDelayMs: 5, onGiveUp: (_t, e) => gaveUp.push(e) })
    deliverer.deliver('k', { url }, { n: 1 })
    deliverer.deliver('k', { url }, { n: 2 })
    await deliverer.idle()
    expect(gaveUp).toEqual(['HTTP 503'])
    expect(got.map((g) => g.body.n)).toEqual([1, 1, 1, 2])
  })

  it('survives an unreachable receiver without throwing', async () => {
    const deliverer = new WebhookDeliverer({ attempts: 2, retryDelayMs: 1 })
    deliverer.deliver('k', { url: 'http://127.0.0.1:9/nothing' }, {})
    await expect(deliverer.idle()).resolves.toBeUndefined()
  })
})
