/**
 * Managed profiles across a fleet (server-configuration.6, errors.6, profiles.6): two servers
 * on one PostgreSQL, each with its own pools, as two processes would have. A profile created,
 * changed or deleted through one is what the other answers with at once.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { createPostgresProfileStore, type PostgresProfileStore } from '../../host/postgres-profile-store.ts'
import type { TestGateway } from '../harness.ts'
import { useInProcessFleet } from './in-process-members.ts'

const fleet = useInProcessFleet('managed_profiles_fleet')

async function member(processId: string): Promise<TestGateway> {
  const profileStore: PostgresProfileStore = await createPostgresProfileStore({ url: fleet.url })
  fleet.closeAfter(profileStore)
  return fleet.member(processId, { profileStore }, {})
}

const managed = { name: 'fleet-managed', engine: 'provider', provider: { id: 'fake', model: 'fake-small' }, description: 'made on A' }

describe('managed profiles in a fleet', { timeout: 60_000 }, () => {
  let a: TestGateway
  let b: TestGateway
  beforeAll(async () => {
    a = await member('profiles-a')
    b = await member('profiles-b')
  })

  it('a profile created on one process is used, refused as taken, edited and deleted through the other', async () => {
    expect((await a.request('POST', '/profiles', { who: 'manager', body: managed })).status).toBe(200)
    // profiles.6: the other process creates a session with it at once.
    const created = await b.request('POST', '/sessions', { body: { profile: managed.name, prompt: 'hi' } })
    expect(created.status).toBe(201)
    expect(created.body.session).toMatchObject({ profile: managed.name })
    // errors.6: the name is taken on every process.
    expect(await b.request('POST', '/profiles', { who: 'manager', body: managed })).toMatchObject({ status: 409, body: { code: 'conflict' } })
    expect((await b.request('GET', `/profiles/${managed.name}`)).body.profile).toMatchObject({ name: managed.name, managed: true, description: 'made on A' })
    expect((await b.request('GET', '/profiles')).body.profiles.map((p: { name: string }) => p.name)).toContain(managed.name)

    // An edit through B is what A serves.
    expect((await b.request('PATCH', `/profiles/${managed.name}`, { who: 'manager', body: { description: 'edited on B' } })).status).toBe(200)
    expect((await a.request('GET', `/profiles/${managed.name}`)).body.profile).toMatchObject({ description: 'edited on B' })

    // A delete through B makes it unknown on A, for sessions, reads, lists and management alike.
    expect((await b.request('DELETE', `/profiles/${managed.name}`, { who: 'manager' })).status).toBe(204)
    expect(await a.request('POST', '/sessions', { body: { profile: managed.name } })).toMatchObject({ status: 400, body: { code: 'unknown_profile' } })
    expect((await a.request('GET', `/profiles/${managed.name}`)).status).toBe(404)
    expect((await a.request('GET', '/profiles')).body.profiles.map((p: { name: string }) => p.name)).not.toContain(managed.name)
    expect((await a.request('DELETE', `/profiles/${managed.name}`, { who: 'manager' })).status).toBe(404)
    // The name is free again, on either process.
    expect((await a.request('POST', '/profiles', { who: 'manager', body: { ...managed, description: 'again' } })).status).toBe(200)
    expect((await b.request('POST', '/sessions', { body: { profile: managed.name } })).status).toBe(201)
    expect((await b.request('DELETE', `/profiles/${managed.name}`, { who: 'manager' })).status).toBe(204)
  })

  it('of two processes creating one name at once, exactly one creates it', async () => {
    const body = { ...managed, name: 'fleet-race' }
    const answers = await Promise.all([a, b, a, b].map((g) => g.request('POST', '/profiles', { who: 'manager', body })))
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409])
    for (const g of [a, b]) expect((await g.request('POST', '/sessions', { body: { profile: 'fleet-race' } })).status).toBe(201)
  })

  it('the shared store creates only a free name and updates only a stored one', async () => {
    const store = await createPostgresProfileStore({ url: fleet.url })
    fleet.closeAfter(store)
    const profile = { ...managed, name: 'fleet-store' } as Parameters<typeof store.create>[0]
    expect(await store.update(profile)).toBe(false) // a PATCH racing a delete does not recreate the profile
    expect(await store.create(profile)).toBe(true)
    expect(await store.create({ ...profile, description: 'second' })).toBe(false)
    expect(await store.update({ ...profile, description: 'updated' })).toBe(true)
    expect(await store.get('fleet-store')).toMatchObject({ description: 'updated' })
    await store.delete('fleet-store')
    expect(await store.get('fleet-store')).toBeUndefined()
  })

  it('a declared profile keeps its name on every process: a managed create of it is a conflict', async () => {
    expect((await b.request('POST', '/profiles', { who: 'manager', body: { ...managed, name: 'alt' } })).status).toBe(409)
  })
})
