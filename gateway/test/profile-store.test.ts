/** Managed profiles (server-configuration.6-7, principal.4, profile.3). */
import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createFileProfileStore, createMemoryProfileStore } from '../host/profile-store.ts'
import { createGatewayServer } from '../server/create-server.ts'
import { startTestGateway, type TestGateway } from './harness.ts'

const gateways: TestGateway[] = []
afterEach(async () => {
  for (const g of gateways.splice(0)) await g.close()
})

async function start(overrides: Record<string, unknown> = {}) {
  const g = await startTestGateway({ profileStore: createMemoryProfileStore(), ...overrides })
  gateways.push(g)
  return g
}

const managedProvider = { name: 'managed-p', engine: 'provider', provider: { id: 'fake', model: 'fake-small' }, description: 'made at runtime' }

describe('profile management', () => {
  it('creates, edits and deletes managed profiles for a manager; declared ones stay read-only', async () => {
    const g = await start()
    const created = await g.request('POST', '/profiles', { who: 'manager', body: managedProvider })
    expect(created.status).toBe(200)
    expect(created.body.profile).toMatchObject({ name: 'managed-p', managed: true, engine: 'provider' })
    expect((await g.request('GET', '/profiles', { who: 'manager' })).body.canManage).toBe(true)
    expect((await g.request('GET', '/profiles')).body.canManage).toBe(false)
    expect((await g.request('POST', '/sessions', { body: { profile: 'managed-p' } })).status).toBe(201)
    expect((await g.request('POST', '/profiles', { body: { ...managedProvider, name: 'other' } })).status).toBe(403) // operator lacks canManageProfiles
    expect((await g.request('POST', '/profiles', { who: 'manager', body: managedProvider })).status).toBe(409)
    expect((await g.request('POST', '/profiles', { who: 'manager', body: { ...managedProvider, name: 'bad', defaults: { permissionMode: 'acceptEdits' } } })).status).toBe(400)
    const edited = await g.request('PATCH', '/profiles/managed-p', { who: 'manager', body: { description: 'edited', name: 'ignored' } })
    expect(edited.body.profile).toMatchObject({ name: 'managed-p', description: 'edited' })
    expect((await g.request('PATCH', '/profiles/default', { who: 'manager', body: { description: 'x' } })).status).toBe(403)
    expect((await g.request('DELETE', '/profiles/default', { who: 'manager' })).status).toBe(403)
    const deleted = await g.request('DELETE', '/profiles/managed-p', { who: 'manager' })
    expect(deleted.status).toBe(204)
    expect((await g.request('GET', '/profiles/managed-p')).status).toBe(404)
  })

  it('keeps managed credential directories inside allowedConfigDirRoots, and non-provider profiles out without them', async () => {
    const roots = await realpath(await mkdtemp(join(tmpdir(), 'gw-cfgroots-')))
    await mkdir(join(roots, 'inside'))
    const outside = await realpath(await mkdtemp(join(tmpdir(), 'gw-cfgout-')))
    const none = await start()
    expect((await none.request('POST', '/profiles', { who: 'manager', body: { name: 'cli', engine: 'cli_primary', configDir: join(roots, 'inside') } })).status).toBe(403)
    const g = await start({ allowedConfigDirRoots: [roots] })
    expect((await g.request('POST', '/profiles', { who: 'manager', body: { name: 'cli', engine: 'cli_primary', configDir: join(roots, 'inside') } })).status).toBe(200)
    expect((await g.request('POST', '/profiles', { who: 'manager', body: { name: 'cli2', engine: 'cli_primary', configDir: outside } })).status).toBe(403)
    expect((await g.request('POST', '/profiles', { who: 'manager', body: { name: 'cli3', engine: 'cli_primary', codexHome: join(roots, 'inside') } })).status).toBe(400) // codexHome is cli_secondary only
    expect((await g.request('POST', '/profiles', { who: 'manager', body: { name: 'cli4', engine: 'cli_primary' } })).status).toBe(200) // no directory: exempt
  })

  it('keeps managed profiles in a file store across restarts, and seeds an empty store with detected profiles', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gw-pstore-'))
    const file = join(dir, 'profiles.json')
    const first = await start({ profileStore: createFileProfileStore({ file }) })
    await first.request('POST', '/profiles', { who: 'manager', body: managedProvider })
    await first.close()
    gateways.splice(gateways.indexOf(first), 1)
    const second = await start({ profileStore: createFileProfileStore({ file }) })
    expect((await second.request('GET', '/profiles/managed-p')).body.profile.managed).toBe(true)

    const claude = join(dir, 'claude-home')
    await mkdir(claude)
    const saved = { CLAUDE_CONFIG_DIR: process.env.CLAUDE_CONFIG_DIR, CODEX_HOME: process.env.CODEX_HOME }
    process.env.CLAUDE_CONFIG_DIR = claude
    process.env.CODEX_HOME = join(dir, 'no-codex')
    try {
      const seeded = createGatewayServer({ allowUnauthenticated: true, profileStore: createFileProfileStore({ file: join(dir, 'seeded.json') }), onError: () => {} })
      const { url } = await seeded.listen(0, '127.0.0.1')
      const profiles = ((await (await fetch(`${url}/profiles`)).json()) as { profiles: unknown[] }).profiles
      expect(profiles).toEqual([expect.objectContaining({ name: 'default', engine: 'cli_primary', managed: true })])
      await seeded.close()
    } finally {
      for (const [k, v] of Object.entries(saved)) v === undefined ? delete process.env[k] : (process.env[k] = v)
    }
  })
})

describe('profile config snapshot', () => {
  it('shows operators settings highlights, memory, skills, agents and commands, with env names only', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gw-snapshot-'))
    await writeFile(join(dir, 'settings.json'), JSON.stringify({ model: 'opus', permissions: { defaultMode: 'acceptEdits' }, env: { API_TOKEN: 'secret-value-123' } }))
    await writeFile(join(dir, 'CLAUDE.md'), 'rules')
    await mkdir(join(dir, 'skills', 'lint'), { recursive: true })
    await mkdir(join(dir, 'agents'))
    await writeFile(join(dir, 'agents', 'helper.md'), 'x')
    const g = await start({ profiles: [{ name: 'default', engine: 'provider', provider: { id: 'fake', model: 'fake-small' } }, { name: 'cli', engine: 'cli_primary', configDir: dir }] })
    const res = await g.request('GET', '/profiles/cli')
    expect(res.body.config).toEqual({ settings: { model: 'opus', defaultMode: 'acceptEdits', envNames: ['API_TOKEN'] }, memory: { file: 'CLAUDE.md', bytes: 5 }, skills: ['lint'], agents: ['helper'], commands: [] })
    expect(res.text).not.toContain('secret-value-123')
    expect((await g.request('GET', '/profiles/cli', { who: 'tenantA' })).body.config).toBeUndefined()
  })
})
