/**
 * A provider profile's `provider.client` (an addition to profile.5's provider object) is 'lean' or 'ai-sdk': a profile declared in
 * code or managed over HTTP with any other value is refused at validation, naming the profile,
 * rather than silently streaming with the default client.
 */
import { describe, expect, it } from 'vitest'
import type { ProfileConfig } from '../protocol/index.ts'
import { validateProfiles } from './profiles.ts'

const profile = (client: unknown): ProfileConfig => ({ name: 'p', engine: 'provider', provider: { id: 'local', model: 'm', client: client as 'lean' } })

describe('validateProfiles: provider.client', () => {
  it("accepts 'lean', 'ai-sdk' and no client", () => {
    for (const client of ['lean', 'ai-sdk', undefined]) expect(() => validateProfiles([profile(client)], true)).not.toThrow()
  })

  it('refuses any other value, naming the profile', () => {
    for (const client of ['fast', '', 1]) expect(() => validateProfiles([profile(client)], true)).toThrow(/profile 'p': provider.client must be 'lean' or 'ai-sdk'/)
  })
})
