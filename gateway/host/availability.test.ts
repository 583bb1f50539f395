import { describe, expect, it } from 'vitest'
import { createGatewayServer } from '../server/create-server.ts'
import { ProfileAvailability } from './availability.ts'
import type { ResolvedProfile } from './profiles.ts'

const primary = (name: string) => ({ name, engine: 'cli_primary' }) as ResolvedProfile
const provider = { name: 'p', engine: 'provider' } as ResolvedProfile

describe('credential checking (server-configuration.19-20)', () => {
  it('probes primary-engine profiles only, caches verdicts, and warns once per logged-out profile', async () => {
    const probed: string[] = []
    const warnings: string[] = []
    const availability = new ProfileAvailability({
      probe: async (p) => { probed.push(p.name); return p.name === 'out' ? { available: false, reason: 'logged out' } : { available: true } },
    }, () => [primary('in'), primary('out'), provider], (m) => warnings.push(m))
    availability.preflight()
    availability.preflight()
    await availability.settled()
    expect(probed.sort()).toEqual(['in', 'out']) // concurrent probes of one profile are shared
    expect(availability.verdict(primary('out'))).toMatchObject({ available: false, reason: 'logged out' })
    expect(availability.verdict(primary('in'))).toMatchObject({ available: true })
    expect(availability.verdict(provider)).toBeUndefined()
    expect(warnings).toEqual(['profile out is unavailable: logged out'])
  })

  it('leaves a profile allowed when its probe throws or times out', async () => {
    const warnings: string[] = []
    const availability = new ProfileAvailability({ timeoutMs: 20, probe: (p) => (p.name === 'slow' ? new Promise(() => {}) : Promise.reject(new Error('boom'))) },
      () => [primary('slow'), primary('broken')], (m) => warnings.push(m))
    availability.preflight()
    await availability.settled()
    expect(availability.verdict(primary('slow'))).toBeUndefined()
    expect(availability.verdict(primary('broken'))).toBeUndefined()
    expect(warnings).toHaveLength(2)
    expect(warnings.join()).toMatch(/timed out after 20 ms/)
  })

  it('is off unless checkCredentials is set, and requireAvailableProfile without it refuses to construct', () => {
    expect(new ProfileAvailability(undefined, () => [], () => {}).enabled).toBe(false)
    expect(() => createGatewayServer({ allowUnauthenticated: true, profiles: [], requireAvailableProfile: true })).toThrow(/needs checkCredentials/)
  })
})
