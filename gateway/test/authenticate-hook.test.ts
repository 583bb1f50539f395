/**
 * A broken `authenticate` hook fails closed and loudly (authentication.1). A throw, a
 * rejection, or a truthy answer that is not a principal object is a 500 on routes and upgrades,
 * reported through `onError`, with nothing of the hook's error in the response; it never grants
 * access (a truthy non-object used to become an unscoped operator).
 */
import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { startTestGateway } from './harness.ts'

const ANSWERS: Record<string, () => unknown> = {
  throws: () => { throw new Error('db down: secret-dsn') },
  rejects: () => Promise.reject(new Error('lookup failed: secret-dsn')),
  true: () => true,
  string: () => 'operator',
  number: () => 1,
  array: () => [{ operator: true }],
  'async true': async () => true,
}

function upgradeStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url)
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0)
      ws.terminate()
    })
    ws.on('open', () => {
      ws.close()
      resolve(101)
    })
    ws.on('error', (err) => reject(err))
  })
}

describe('a broken authenticate hook (authentication.1)', () => {
  for (const [what, answer] of Object.entries(ANSWERS)) {
    it(`that ${what === 'throws' || what === 'rejects' ? what : `answers ${what}`} is a 500 on routes and upgrades, logged, never access`, async () => {
      const errors: Array<{ where: string; message: string }> = []
      const gw = await startTestGateway({
        authenticate: answer as never,
        onError: (err, where) => errors.push({ where, message: err instanceof Error ? err.message : String(err) }),
      })
      try {
        const listed = await gw.request('GET', '/sessions')
        expect(listed.status).toBe(500)
        expect(listed.body).toEqual({ error: 'internal error', code: 'internal_error' })
        expect(listed.text).not.toContain('secret-dsn')
        expect((await gw.request('POST', '/sessions', { body: { prompt: 'hi' } })).status).toBe(500)
        expect(await upgradeStatus(`${gw.url.replace(/^http/, 'ws')}/sessions/any/ws`)).toBe(500)
        expect(await upgradeStatus(`${gw.url.replace(/^http/, 'ws')}/queue/ws`)).toBe(404)
        expect(errors.length).toBeGreaterThanOrEqual(3)
        expect(errors.every((e) => e.where === 'authenticate')).toBe(true)
      } finally {
        await gw.close()
      }
    })
  }

  it('still answers 401 for every falsy result', async () => {
    for (const falsy of [null, undefined, false, 0, '']) {
      const gw = await startTestGateway({ authenticate: (() => falsy) as never })
      try {
        expect((await gw.request('GET', '/sessions')).status).toBe(401)
      } finally {
        await gw.close()
      }
    }
  })
})
