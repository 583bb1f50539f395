/**
 * Gateway behaviour that depends on server options, which a conformance target cannot vary from
 * outside: implicit profiles, defaults, basePath, hooks, policies, canonical cwd roots. Everything
 * checkable against any gateway URL lives in the conformance kit (conformance/cases), once.
 */
import { mkdir, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { PRIMARY_PROFILE, PROVIDER_PROFILE, startTestGateway } from './harness.ts'

async function withGateway<T>(options: Parameters<typeof startTestGateway>[0], fn: (gw: Awaited<ReturnType<typeof startTestGateway>>) => Promise<T>): Promise<T> {
  const gw = await startTestGateway(options)
  try {
    return await fn(gw)
  } finally {
    await gw.close()
  }
}

describe('implicit profiles (sessions.2)', () => {
  it('uses the only declared profile whatever its name', () => withGateway({ profiles: [{ ...PROVIDER_PROFILE, name: 'solo' }] }, async (gw) => {
    expect((await gw.createSession({})).profile).toBe('solo')
  }))

  it('answers 400 when several are declared and none is named default', () => withGateway({ profiles: [{ ...PROVIDER_PROFILE, name: 'one' }, { ...PRIMARY_PROFILE, name: 'two' }] }, async (gw) => {
    const res = await gw.request('POST', '/sessions', { body: {} })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ error: 'profile is required (available: one, two)', code: 'profile_required' })
  }))

  it('answers 400 when profiles are disabled with []', () => withGateway({ profiles: [] }, async (gw) => {
    expect((await gw.request('POST', '/sessions', { body: {} })).body.code).toBe('profile_required')
  }))
})

describe('profile defaults (profile.7)', () => {
  it('fill the model and mode the caller left unset; explicit values win', () => withGateway({ profiles: [{ ...PROVIDER_PROFILE, defaults: { model: 'fake-large', permissionMode: 'dontAsk' } }] }, async (gw) => {
    expect(await gw.createSession({})).toMatchObject({ model: 'fake-large', permissionMode: 'dontAsk' })
    expect(await gw.createSession({ model: 'fake-small', permissionMode: 'default' })).toMatchObject({ model: 'fake-small', permissionMode: 'default' })
  }))
})

describe('allowedCwdRoots (server-configuration.4)', () => {
  it('decides containment on the realpath, so a symlink inside the root pointing outside is refused', () => withGateway({}, async (gw) => {
    await mkdir(join(gw.cwdRoot, 'inside'))
    await symlink('/', join(gw.cwdRoot, 'escape'))
    const escaped = await gw.request('POST', '/sessions', { body: { profile: 'primary', cwd: join(gw.cwdRoot, 'escape') } })
    expect(escaped.status).toBe(403)
    // Inside the root validation passes; this build has no cli_primary adapter, so the build answers 501.
    expect((await gw.request('POST', '/sessions', { body: { profile: 'primary', cwd: join(gw.cwdRoot, 'inside') } })).status).toBe(501)
  }))
})

describe('hooks', () => {
  it('fails the create with a clear error when an async createEngineRunner rejects, and keeps serving', () => withGateway({
    createEngineRunner: async () => { throw new Error('MCP server "crm" did not connect') },
  }, async (gw) => {
    const res = await gw.request('POST', '/sessions', { body: {} })
    expect(res.status).toBe(502)
    expect(res.body).toEqual({ error: 'the session could not be created: MCP server "crm" did not connect', code: 'engine_failed' })
    expect((await gw.request('GET', '/sessions')).status).toBe(200)
  }))

  it('re-stamps scope over buildRunnerConfig output, so a hook cannot widen visibility', () => withGateway({
    buildRunnerConfig: (config) => ({ ...config, scope: undefined, model: 'fake-large' }),
  }, async (gw) => {
    const s = await gw.createSession({}, 'tenantA')
    expect(s.scope).toEqual({ tenant: 'a' })
    expect(s.model).toBe('fake-large')
    expect((await gw.request('GET', `/sessions/${s.id}`, { who: 'tenantB' })).status).toBe(404)
  }))

  it('lets an authorizeSession policy replace the default rule', () => withGateway({
    authorizeSession: (principal, session) => session.scope?.tenant === 'a' && principal.scope?.tenant !== 'b',
  }, async (gw) => {
    const s = await gw.createSession({}, 'tenantA')
    expect((await gw.request('GET', `/sessions/${s.id}`, { who: 'tenantA' })).status).toBe(200)
    expect((await gw.request('GET', `/sessions/${s.id}`, { who: 'tenantB' })).status).toBe(404)
    expect((await gw.request('GET', '/sessions', { who: 'tenantB' })).body.sessions).toEqual([])
  }))

  it('awaits an async authenticate hook: a principal passes, null is 401, a rejection is 500', () => withGateway({
    authenticate: async (req) => {
      await new Promise((r) => setTimeout(r, 1))
      const token = req.headers.authorization
      if (token === 'Bearer tok-operator') return {}
      if (token === 'Bearer tok-tenant-a') throw new Error('lookup failed: secret-dsn')
      return null
    },
  }, async (gw) => {
    expect((await gw.request('GET', '/sessions')).status).toBe(200)
    const rejected = await gw.request('GET', '/sessions', { who: 'tenantA' })
    expect(rejected.status).toBe(500)
    expect(rejected.text).not.toContain('secret-dsn')
    expect((await gw.request('GET', '/sessions', { who: 'tenantB' })).status).toBe(401)
  }))
})

describe('basePath and unknown paths', () => {
  it('mounts routes under a custom basePath and answers 404 outside it without a fallback', () => withGateway({ basePath: '/api' }, async (gw) => {
    expect((await gw.request('GET', `${gw.origin}/v1/sessions`)).status).toBe(404)
    expect((await gw.request('GET', `${gw.origin}/api/sessions`)).status).toBe(200)
  }))

  it('answers 400 for a malformed percent-escape instead of 500', () => withGateway({}, async (gw) => {
    expect((await gw.request('GET', '/sessions/%E0%A4%A')).status).toBe(400)
  }))
})

describe('credentials (profile.5)', () => {
  it('never shows the API key value in profiles, sessions or events', async () => {
    process.env.GATEWAY_TEST_KEY = 'sk-live-visible-only-to-the-engine-77'
    try {
      await withGateway({ profiles: [{ ...PROVIDER_PROFILE, provider: { ...PROVIDER_PROFILE.provider!, apiKeyEnv: 'GATEWAY_TEST_KEY' } }] }, async (gw) => {
        const session = await gw.createSession({ prompt: 'hello' })
        const ws = await gw.attach(session.id)
        await ws.waitForEvent('turn_result')
        const seen = JSON.stringify([await gw.request('GET', '/profiles'), await gw.request('GET', `/sessions/${session.id}`), ws.frames].map((x) => ('text' in x ? x.text : x)))
        expect(seen).not.toContain('sk-live-visible-only-to-the-engine-77')
        expect(seen).toContain('GATEWAY_TEST_KEY') // the variable's name is fine to show
        ws.close()
      })
    } finally {
      delete process.env.GATEWAY_TEST_KEY
    }
  })
})

describe('the row-count rule drives activityCount (events.22)', () => {
  it('counts the user message, one text block and the turn result per echo turn', () => withGateway({}, async (gw) => {
    const session = await gw.createSession({})
    const ws = await gw.attach(session.id)
    await ws.waitForEvent('status_changed', (e) => e.status === 'idle')
    ws.send({ type: 'user_message', text: 'one' })
    await ws.waitForEvent('turn_result')
    expect((await gw.request('GET', `/sessions/${session.id}`)).body.session.activityCount).toBe(3)
    ws.send({ type: 'user_message', text: 'two' })
    await ws.waitForEvent('turn_result', (e) => e.numTurns === 2)
    expect((await gw.request('GET', `/sessions/${session.id}`)).body.session.activityCount).toBe(6)
    ws.close()
  }))
})
