import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestGateway, type TestGateway } from './harness.ts'

let gw: TestGateway
let tenantSession: { id: string }
beforeAll(async () => {
  gw = await startTestGateway()
  tenantSession = await gw.createSession({}, 'tenantA')
})
afterAll(async () => { await gw?.close() })

const UNKNOWN = '00000000-0000-4000-8000-000000000000'
const ROUTES: Array<[string, string, unknown?]> = [
  ['GET', ''],
  ['PATCH', '', { title: 'x' }],
  ['DELETE', ''],
  ['GET', '/files'],
  ['GET', '/files/a.txt'],
  ['GET', '/produced'],
  ['GET', '/mcp'],
  ['POST', '/mcp/x', { action: 'reconnect' }],
  ['GET', '/project/icon'],
  ['POST', '/permissions/r1', { behavior: 'allow' }],
  ['GET', '/ws'],
]

describe('scope (authentication.3)', () => {
  it('stamps the caller\'s scope at create and shows it on the session', () => {
    expect((tenantSession as { scope?: unknown }).scope).toEqual({ tenant: 'a' })
  })

  it('answers a scope miss byte-identically to an unknown id on every /sessions/:id route', async () => {
    for (const [method, suffix, body] of ROUTES) {
      const miss = await gw.request(method, `/sessions/${tenantSession.id}${suffix}`, { who: 'tenantB', body })
      const unknown = await gw.request(method, `/sessions/${UNKNOWN}${suffix}`, { who: 'tenantB', body })
      expect(miss.status, `${method} ${suffix}`).toBe(404)
      expect(miss.text, `${method} ${suffix}`).toBe(unknown.text)
      expect(miss.headers.get('content-type')).toBe(unknown.headers.get('content-type'))
    }
    // The owner still sees it, so the 404 above was the scope rule, not a deletion.
    expect((await gw.request('GET', `/sessions/${tenantSession.id}`, { who: 'tenantA' })).status).toBe(200)
  })

  it('refuses a WS attach outside the scope exactly like an unknown id', async () => {
    const miss = await gw.attach(tenantSession.id, { who: 'tenantB' }).catch((err) => err)
    const unknown = await gw.attach(UNKNOWN, { who: 'tenantB' }).catch((err) => err)
    expect(miss.status).toBe(404)
    expect(miss.body).toBe(unknown.body)
  })

  it('filters the list to the caller\'s scope; an unscoped operator sees everything', async () => {
    const b = await gw.createSession({}, 'tenantB')
    const listB = (await gw.request('GET', '/sessions', { who: 'tenantB' })).body.sessions.map((s: { id: string }) => s.id)
    expect(listB).toContain(b.id)
    expect(listB).not.toContain(tenantSession.id)
    const all = (await gw.request('GET', '/sessions')).body.sessions.map((s: { id: string }) => s.id)
    expect(all).toEqual(expect.arrayContaining([b.id, tenantSession.id]))
  })

  it('refuses a create scope contradicting the caller\'s with 403 and accepts an added key', async () => {
    const res = await gw.request('POST', '/sessions', { who: 'tenantA', body: { scope: { tenant: 'b' } } })
    expect(res.status).toBe(403)
    const added = await gw.createSession({ scope: { tenant: 'a', project: 'p1' } }, 'tenantA')
    expect(added.scope).toEqual({ tenant: 'a', project: 'p1' })
  })

  it('hides unscoped sessions from scoped principals', async () => {
    const open = await gw.createSession({})
    expect((await gw.request('GET', `/sessions/${open.id}`, { who: 'tenantA' })).status).toBe(404)
  })

  it('lets an authorizeSession policy replace the default rule', async () => {
    const gw2 = await startTestGateway({ authorizeSession: (principal, session) => session.scope?.tenant === 'a' && principal.scope?.tenant !== 'b' })
    try {
      const s = await gw2.createSession({}, 'tenantA')
      expect((await gw2.request('GET', `/sessions/${s.id}`, { who: 'tenantA' })).status).toBe(200)
      expect((await gw2.request('GET', `/sessions/${s.id}`, { who: 'tenantB' })).status).toBe(404)
    } finally {
      await gw2.close()
    }
  })
})

describe('authentication (authentication.1)', () => {
  it('answers 401 on every route without credentials, and on WS upgrades', async () => {
    for (const path of ['/sessions', `/sessions/${tenantSession.id}`, '/profiles', '/jobs', '/fs/roots', '/nope']) {
      const res = await gw.request('GET', path, { who: 'nobody' })
      expect(res.status, path).toBe(401)
      expect(res.body).toEqual({ error: 'unauthorized', code: 'unauthorized' })
    }
    const refused = await gw.attach(tenantSession.id, { who: 'nobody' }).catch((err) => err)
    expect(refused.status).toBe(401)
  })

  it('treats a throwing authenticate hook as a refusal, not a 500', async () => {
    const gw2 = await startTestGateway({ authenticate: () => { throw new Error('db down: secret-dsn') } })
    try {
      const res = await gw2.request('GET', '/sessions')
      expect(res.status).toBe(401)
      expect(res.text).not.toContain('secret-dsn')
    } finally {
      await gw2.close()
    }
  })
})
