import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PRIMARY_PROFILE, PROVIDER_PROFILE, startTestGateway, type TestGateway } from './harness.ts'

let gw: TestGateway
beforeAll(async () => { gw = await startTestGateway() })
afterAll(async () => { await gw?.close() })

describe('POST /sessions', () => {
  it('creates a provider session with 201 and the resolved profile, engine and capabilities', async () => {
    const res = await gw.request('POST', '/sessions', { body: { profile: 'default' } })
    expect(res.status).toBe(201)
    const { session } = res.body
    expect(session).toMatchObject({ profile: 'default', engine: 'provider', permissionMode: 'default', activityCount: 0 })
    expect(session.capabilities.hostCwd).toBe(false)
    expect(typeof session.id).toBe('string')
  })

  it('resolves the implicit profile named default when several are declared', async () => {
    const session = await gw.createSession({})
    expect(session.profile).toBe('default')
  })

  it('answers 400 for an unknown profile and for a profile that is not a string', async () => {
    expect((await gw.request('POST', '/sessions', { body: { profile: 'nope' } })).body).toMatchObject({ error: 'unknown profile: nope', code: 'unknown_profile' })
    expect((await gw.request('POST', '/sessions', { body: { profile: 3 } })).status).toBe(400)
  })

  it('answers 403 when the profile is outside the caller\'s allowedProfiles', async () => {
    const res = await gw.request('POST', '/sessions', { who: 'restricted', body: { profile: 'alt' } })
    expect(res.status).toBe(403)
    expect(res.body.code).toBe('profile_not_allowed')
    expect((await gw.request('POST', '/sessions', { who: 'restricted', body: { profile: 'default' } })).status).toBe(201)
  })

  it('rejects fields the provider engine forswears with 400, never ignoring them', async () => {
    for (const field of [{ resume: 'x' }, { forkSession: true }, { settingSources: ['user'] }, { maxTurns: 3 }, { reasoningEffort: 'high' }, { allowedTools: ['Bash'] }]) {
      const res = await gw.request('POST', '/sessions', { body: { profile: 'default', ...field } })
      expect(res.status, JSON.stringify(field)).toBe(400)
      expect(res.body.code).toBe('field_not_supported')
    }
  })

  it('rejects mcpServers on a provider session with 400', async () => {
    const res = await gw.request('POST', '/sessions', { body: { profile: 'default', mcpServers: { x: { type: 'http', url: 'http://127.0.0.1:1' } } } })
    expect(res.status).toBe(400)
  })

  it('rejects a permission mode outside the engine record with 400', async () => {
    const res = await gw.request('POST', '/sessions', { body: { profile: 'default', permissionMode: 'acceptEdits' } })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('permission_mode_not_supported')
  })

  it('lets capabilities only narrow the profile grant', async () => {
    expect((await gw.request('POST', '/sessions', { body: { profile: 'alt', capabilities: ['web_fetch'] } })).status).toBe(201)
    expect((await gw.request('POST', '/sessions', { body: { profile: 'alt', capabilities: [] } })).status).toBe(201)
    const widened = await gw.request('POST', '/sessions', { body: { profile: 'alt', capabilities: ['web_search'] } })
    expect(widened.status).toBe(400)
    expect(widened.body.code).toBe('capability_not_granted')
  })

  it('requires cwd for an engine that runs against a host directory and bounds it by allowedCwdRoots', async () => {
    expect((await gw.request('POST', '/sessions', { body: { profile: 'primary' } })).body.code).toBe('cwd_required')
    const outside = await gw.request('POST', '/sessions', { body: { profile: 'primary', cwd: '/' } })
    expect(outside.status).toBe(403)
    expect(outside.body.code).toBe('cwd_outside_roots')
    const escape = await gw.request('POST', '/sessions', { body: { profile: 'primary', cwd: `${gw.cwdRoot}/../..` } })
    expect(escape.status).toBe(403)
    // Inside the root validation passes; this build has no cli_primary adapter, so the build is refused.
    expect((await gw.request('POST', '/sessions', { body: { profile: 'primary', cwd: gw.cwdRoot } })).status).toBe(501)
  })

  it('does not bound a provider session by allowedCwdRoots', async () => {
    expect((await gw.request('POST', '/sessions', { body: { profile: 'default', cwd: '/' } })).status).toBe(201)
  })

  it('answers 400 for malformed JSON and for a body that is not an object', async () => {
    const bad = await gw.request('POST', '/sessions', { raw: '{"profile":', headers: { 'content-type': 'application/json' } })
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe('invalid_json')
    expect((await gw.request('POST', '/sessions', { body: [1, 2] })).status).toBe(400)
    expect((await gw.request('POST', '/sessions', { body: { cwd: 42 } })).body.error).toMatch(/^cwd:/)
  })

  it('fills unset fields from profile defaults, an explicit value wins', async () => {
    const gw2 = await startTestGateway({ profiles: [{ ...PROVIDER_PROFILE, defaults: { model: 'fake-large', permissionMode: 'dontAsk' } }] })
    try {
      const filled = await gw2.createSession({})
      expect(filled).toMatchObject({ model: 'fake-large', permissionMode: 'dontAsk' })
      const explicit = await gw2.createSession({ model: 'fake-small', permissionMode: 'default' })
      expect(explicit).toMatchObject({ model: 'fake-small', permissionMode: 'default' })
    } finally {
      await gw2.close()
    }
  })
})

describe('implicit profiles', () => {
  it('uses the only declared profile whatever its name', async () => {
    const gw2 = await startTestGateway({ profiles: [{ ...PROVIDER_PROFILE, name: 'solo' }] })
    try {
      expect((await gw2.createSession({})).profile).toBe('solo')
    } finally {
      await gw2.close()
    }
  })

  it('answers 400 when several are declared and none is named default', async () => {
    const gw2 = await startTestGateway({ profiles: [{ ...PROVIDER_PROFILE, name: 'one' }, { ...PRIMARY_PROFILE, name: 'two' }] })
    try {
      const res = await gw2.request('POST', '/sessions', { body: {} })
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ error: 'profile is required (available: one, two)', code: 'profile_required' })
    } finally {
      await gw2.close()
    }
  })
})

describe('bypass policy', () => {
  it('refuses bypassPermissions with 403 and strips allowDangerouslySkipPermissions when disabled', async () => {
    const gw2 = await startTestGateway({ disableBypassPermissions: true })
    try {
      const res = await gw2.request('POST', '/sessions', { body: { permissionMode: 'bypassPermissions' } })
      expect(res.status).toBe(403)
      expect(res.body.code).toBe('bypass_disabled')
      const session = await gw2.createSession({ allowDangerouslySkipPermissions: true })
      expect(session.canBypassPermissions).toBe(false)
    } finally {
      await gw2.close()
    }
  })
})

describe('GET, PATCH and DELETE /sessions/:id', () => {
  it('reads a session and lists it', async () => {
    const session = await gw.createSession({})
    const got = await gw.request('GET', `/sessions/${session.id}`)
    expect(got.status).toBe(200)
    expect(got.body.session.id).toBe(session.id)
    const list = await gw.request('GET', '/sessions')
    expect(list.body.sessions.map((s: { id: string }) => s.id)).toContain(session.id)
  })

  it('derives the title from the first prompt and lets PATCH set, keep and clear meta.title', async () => {
    const session = await gw.createSession({ prompt: 'Summarise the report\nplease' })
    expect(session.title).toBe('Summarise the report')
    const renamed = await gw.request('PATCH', `/sessions/${session.id}`, { body: { title: 'My title' } })
    expect(renamed.body.session.title).toBe('My title')
    const kept = await gw.request('PATCH', `/sessions/${session.id}`, { body: {} })
    expect(kept.body.session.title).toBe('My title')
    const cleared = await gw.request('PATCH', `/sessions/${session.id}`, { body: { title: null } })
    expect(cleared.body.session.title).toBe('Summarise the report')
    expect((await gw.request('PATCH', `/sessions/${session.id}`, { body: { title: 5 } })).status).toBe(400)
  })

  it('deletes a session: it closes and is gone', async () => {
    const session = await gw.createSession({})
    const del = await gw.request('DELETE', `/sessions/${session.id}`)
    expect(del.status).toBe(200)
    expect(del.body.session.status).toBe('closed')
    expect((await gw.request('GET', `/sessions/${session.id}`)).status).toBe(404)
  })

  it('answers 405 for a method the route does not have', async () => {
    expect((await gw.request('PUT', '/sessions')).status).toBe(405)
    const session = await gw.createSession({})
    expect((await gw.request('POST', `/sessions/${session.id}`)).status).toBe(405)
  })
})

describe('profiles', () => {
  it('lists profiles with capabilities and static models, filtered by allowedProfiles', async () => {
    const all = await gw.request('GET', '/profiles')
    expect(all.body.canManage).toBe(false)
    const byName = Object.fromEntries(all.body.profiles.map((p: { name: string }) => [p.name, p]))
    expect(byName.default.models.map((m: { value: string }) => m.value)).toEqual(['fake-small', 'fake-large'])
    expect(byName.default.capabilities.interactiveApprovals).toBe(false)
    expect(byName.default.managed).toBe(false)
    const restricted = await gw.request('GET', '/profiles', { who: 'restricted' })
    expect(restricted.body.profiles.map((p: { name: string }) => p.name)).toEqual(['default'])
  })

  it('reads one profile, 404 for an unknown one, 403 outside allowedProfiles', async () => {
    expect((await gw.request('GET', '/profiles/default')).body.profile.engine).toBe('provider')
    expect((await gw.request('GET', '/profiles/nope')).status).toBe(404)
    expect((await gw.request('GET', '/profiles/alt', { who: 'restricted' })).status).toBe(403)
  })

  it('answers 404 for management routes without a profile store', async () => {
    expect((await gw.request('POST', '/profiles', { body: { name: 'x' } })).status).toBe(404)
    expect((await gw.request('DELETE', '/profiles/default')).status).toBe(404)
  })
})
