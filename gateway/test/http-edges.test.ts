import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestGateway, type TestGateway } from './harness.ts'

let gw: TestGateway
beforeAll(async () => {
  gw = await startTestGateway({
    cors: { origins: ['http://allowed.example'] },
    maxBodyBytes: 1024,
    fallback: (_req, res) => { res.setHeader('x-fallback', '1'); res.end('host page') },
  })
})
afterAll(async () => { await gw?.close() })

describe('CORS (authentication.7)', () => {
  it('echoes an allowed origin and never sends Allow-Credentials', async () => {
    const res = await gw.request('GET', '/sessions', { headers: { origin: 'http://allowed.example' } })
    expect(res.headers.get('access-control-allow-origin')).toBe('http://allowed.example')
    expect(res.headers.get('access-control-allow-credentials')).toBeNull()
  })

  it('answers a preflight before authentication: 204 allowed, 403 otherwise', async () => {
    const ok = await gw.request('OPTIONS', '/sessions', { who: 'nobody', headers: { origin: 'http://allowed.example', 'access-control-request-method': 'POST' } })
    expect(ok.status).toBe(204)
    expect(ok.headers.get('access-control-allow-methods')).toContain('POST')
    expect(ok.headers.get('access-control-allow-credentials')).toBeNull()
    const denied = await gw.request('OPTIONS', '/sessions', { who: 'nobody', headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' } })
    expect(denied.status).toBe(403)
    expect(denied.headers.get('access-control-allow-origin')).toBeNull()
  })

  it('matches origins exactly, with no suffix or prefix matching', async () => {
    const res = await gw.request('GET', '/sessions', { headers: { origin: 'http://allowed.example.evil.com' } })
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('body limits', () => {
  it('answers 413 with a JSON error for a body over maxBodyBytes', async () => {
    const res = await gw.request('POST', '/sessions', { body: { prompt: 'x'.repeat(4096) } })
    expect(res.status).toBe(413)
    expect(res.body.code).toBe('body_too_large')
  })

  it('still accepts a body under the limit', async () => {
    expect((await gw.request('POST', '/sessions', { body: { prompt: 'x'.repeat(100) } })).status).toBe(201)
  })
})

describe('fallback and basePath (embedding-rules.1-2)', () => {
  it('sends requests outside basePath to the fallback without authentication', async () => {
    const res = await gw.request('GET', `${gw.origin}/anything`, { who: 'nobody' })
    expect(res.status).toBe(200)
    expect(res.text).toBe('host page')
    expect(res.headers.get('x-fallback')).toBe('1')
    expect((await gw.request('GET', `${gw.origin}/v1x`, { who: 'nobody' })).text).toBe('host page')
  })

  it('answers 404 outside basePath when no fallback is configured', async () => {
    const gw2 = await startTestGateway({ basePath: '/api' })
    try {
      expect((await gw2.request('GET', `${gw2.origin}/v1/sessions`)).status).toBe(404)
      expect((await gw2.request('GET', `${gw2.origin}/api/sessions`)).status).toBe(200)
    } finally {
      await gw2.close()
    }
  })

  it('answers the spec 404 for route families that are not configured', async () => {
    for (const path of ['/jobs', '/queue', '/fs/roots', '/sdk-sessions', '/profiles/nope']) {
      expect((await gw.request('GET', path)).status, path).toBe(404)
    }
    expect((await gw.request('POST', '/executions/e1/result', { body: { status: 'ok', output: { value: 1 } } })).status).toBe(404)
  })

  it('answers 400 for a malformed percent-escape instead of 500', async () => {
    expect((await gw.request('GET', '/sessions/%E0%A4%A')).status).toBe(400)
  })
})
