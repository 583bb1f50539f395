/**
 * Metrics series stay bounded by configuration, not by what tenants do: a deleted managed
 * profile's series are removed, and a profile name (a label value) is bounded in length and
 * characters, refused at creation otherwise (errors.4: a create startup would refuse is 400).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { PROFILE_NAME_MAX_LENGTH } from '../protocol/index.ts'
import { createMemoryProfileStore } from '../host/profile-store.ts'
import { startTestGateway, type TestGateway } from './harness.ts'
import { parseExposition } from './prometheus-text.ts'

let gateway: TestGateway | undefined
afterEach(async () => {
  await gateway?.close()
  gateway = undefined
})

const managed = (name: string) => ({ name, engine: 'provider', provider: { id: 'fake', model: 'fake-small' } })

/** Every series of the gateway's own families (the process defaults are prom-client's). */
async function gatewaySeries(gw: TestGateway): Promise<string[]> {
  const scraped = parseExposition((await gw.request('GET', '/metrics')).text)
  return scraped.samples.filter((s) => s.name.startsWith('gateway_')).map((s) => `${s.name}${JSON.stringify(s.labels)}`)
}

/** Create a managed profile, run one turn that reports usage on it, then delete the session and the profile. */
async function cycle(gw: TestGateway, name: string): Promise<void> {
  expect((await gw.request('POST', '/profiles', { who: 'manager', body: managed(name) })).status).toBe(200)
  const session = await gw.createSession({ profile: name, prompt: 'scenario:hello' })
  const socket = await gw.attach(session.id, { afterSeq: 0 })
  await socket.waitForEvent('turn_result')
  socket.close()
  expect((await gw.request('DELETE', `/sessions/${session.id}`)).status).toBeLessThan(300)
  expect((await gw.request('DELETE', `/profiles/${name}`, { who: 'manager' })).status).toBe(204)
}

describe('metrics series of managed profiles', () => {
  it('200 profile create/turn/delete cycles leave the series count where it started', { timeout: 120_000 }, async () => {
    gateway = await startTestGateway({ profileStore: createMemoryProfileStore() })
    // One cycle and one scrape first, so the routes and status classes they use have their series.
    await cycle(gateway, 'warm-up')
    await gatewaySeries(gateway)
    const before = await gatewaySeries(gateway)
    expect(before.some((s) => s.includes('"profile":"warm-up"'))).toBe(false)

    // A profile's tokens are counted under its name while it exists.
    expect((await gateway.request('POST', '/profiles', { who: 'manager', body: managed('watched') })).status).toBe(200)
    const watched = await gateway.createSession({ profile: 'watched', prompt: 'scenario:hello' })
    await (await gateway.attach(watched.id, { afterSeq: 0 })).waitForEvent('turn_result')
    const live = parseExposition((await gateway.request('GET', '/metrics')).text)
    expect(live.sum('gateway_tokens_total', { profile: 'watched', direction: 'input' })).toBe(12)
    await gateway.request('DELETE', `/sessions/${watched.id}`)
    await gateway.request('DELETE', '/profiles/watched', { who: 'manager' })

    for (let i = 0; i < 200; i++) await cycle(gateway, `tenant-profile-${i}`)
    const after = await gatewaySeries(gateway)
    expect(after.filter((s) => !before.includes(s))).toEqual([])
    expect(after.length).toBe(before.length)
  })

  it('counts a turn that ends after its profile was deleted under profile="(unknown)", never the deleted name', async () => {
    gateway = await startTestGateway({ profileStore: createMemoryProfileStore() })
    expect((await gateway.request('POST', '/profiles', { who: 'manager', body: managed('short-lived') })).status).toBe(200)
    const session = await gateway.createSession({ profile: 'short-lived' })
    const socket = await gateway.attach(session.id)
    expect((await gateway.request('DELETE', '/profiles/short-lived', { who: 'manager' })).status).toBe(204)
    socket.send({ type: 'user_message', text: 'scenario:hello' })
    await socket.waitForEvent('turn_result')
    socket.close()
    const scraped = parseExposition((await gateway.request('GET', '/metrics')).text)
    expect(scraped.samples.filter((s) => s.labels.profile === 'short-lived')).toEqual([])
    expect(scraped.sum('gateway_tokens_total', { profile: '(unknown)', direction: 'output' })).toBe(4)
  })
})

describe('the profile label', () => {
  it('names at most managedProfileLabels managed profiles at a time; the others count as "(other)"; declared ones always have their own', async () => {
    gateway = await startTestGateway({ profileStore: createMemoryProfileStore(), metrics: { managedProfileLabels: 2 } })
    const turn = async (profile: string) => {
      const session = await gateway!.createSession({ profile, prompt: 'scenario:hello' })
      await (await gateway!.attach(session.id, { afterSeq: 0 })).waitForEvent('turn_result')
    }
    for (const name of ['m0', 'm1', 'm2', 'm3']) {
      expect((await gateway.request('POST', '/profiles', { who: 'manager', body: managed(name) })).status).toBe(200)
      await turn(name)
    }
    await turn('default')
    const profiles = async () => {
      const scraped = parseExposition((await gateway!.request('GET', '/metrics')).text)
      return new Set(scraped.samples.filter((s) => s.name === 'gateway_tokens_total').map((s) => s.labels.profile))
    }
    expect(await profiles()).toEqual(new Set(['m0', 'm1', '(other)', 'default']))
    // A deleted profile frees its label: the next managed profile to report tokens takes it.
    await gateway.request('DELETE', '/profiles/m0', { who: 'manager' })
    await turn('m3')
    expect(await profiles()).toEqual(new Set(['m1', 'm3', '(other)', 'default']))
  })

  it('keeps a profile named other or unknown apart from the overflow and the deleted', async () => {
    gateway = await startTestGateway({ profileStore: createMemoryProfileStore(), metrics: { managedProfileLabels: 2 } })
    const turn = async (profile: string) => {
      const session = await gateway!.createSession({ profile, prompt: 'scenario:hello' })
      await (await gateway!.attach(session.id, { afterSeq: 0 })).waitForEvent('turn_result')
    }
    for (const name of ['other', 'unknown', 'm2']) {
      expect((await gateway.request('POST', '/profiles', { who: 'manager', body: managed(name) })).status).toBe(200)
      await turn(name)
    }
    const scraped = parseExposition((await gateway.request('GET', '/metrics')).text)
    const labels = new Set(scraped.samples.filter((s) => s.name === 'gateway_tokens_total').map((s) => s.labels.profile))
    expect(labels).toEqual(new Set(['other', 'unknown', '(other)']))
    expect(scraped.sum('gateway_tokens_total', { profile: 'other', direction: 'output' })).toBe(scraped.sum('gateway_tokens_total', { profile: '(other)', direction: 'output' }))
  })

  it('refuses a managedProfileLabels that is not a non-negative integer', async () => {
    await expect(startTestGateway({ metrics: { managedProfileLabels: -1 } })).rejects.toThrow(/metrics\.managedProfileLabels/)
  })
})

describe('profile names', () => {
  it(`are at most ${PROFILE_NAME_MAX_LENGTH} plain characters: a longer or odd one is refused at creation with 400 {error, code}`, async () => {
    gateway = await startTestGateway({ profileStore: createMemoryProfileStore() })
    const longest = 'p'.repeat(PROFILE_NAME_MAX_LENGTH)
    expect((await gateway.request('POST', '/profiles', { who: 'manager', body: managed(longest) })).status).toBe(200)
    const tooLong = await gateway.request('POST', '/profiles', { who: 'manager', body: managed(`${longest}q`) })
    expect(tooLong.status).toBe(400)
    expect(tooLong.body).toEqual({ code: 'invalid_request', error: expect.stringContaining(`the limit is ${PROFILE_NAME_MAX_LENGTH}`) })
    const huge = await gateway.request('POST', '/profiles', { who: 'manager', body: managed('x'.repeat(100_000)) })
    expect(huge.status).toBe(400)
    expect(huge.text.length).toBeLessThan(1000) // the refusal does not echo the name back
    for (const odd of ['with space', 'new\nline', '.hidden', 'a/b', 'ünïcode', '']) {
      const refused = await gateway.request('POST', '/profiles', { who: 'manager', body: managed(odd) })
      expect(refused.status, JSON.stringify(odd)).toBe(400)
      expect(refused.body.code).toBe('invalid_request')
    }
    const names = (await gateway.request('GET', '/profiles')).body.profiles.map((p: { name: string }) => p.name)
    expect(names).toContain(longest)
    expect(names.filter((n: string) => n.startsWith('x') || n.includes(' '))).toEqual([])
  })
})
