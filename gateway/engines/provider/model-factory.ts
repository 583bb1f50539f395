/**
 * Language models for provider profiles. The AI SDK provider object is built once per
 * (profile, base URL, key) and shared by every session on it: per-session cost is what limits
 * scale (DESIGN.md §7), and a provider object carries no per-session state.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import type { ProfileConfig } from '../../protocol/index.ts'

type Provider = ReturnType<typeof createOpenAICompatible>
const providers = new Map<string, Provider>()

export interface ModelSource {
  baseURL?: string
  fetch?: typeof fetch
}

export function providerFor(profile: ProfileConfig, source: ModelSource): { provider: Provider; apiKeySource: string } {
  const settings = profile.provider
  if (!settings) throw new Error(`profile '${profile.name}' has no provider settings`)
  const baseURL = source.baseURL ?? settings.baseURL
  if (!baseURL) throw new Error(`profile '${profile.name}': no base URL for provider '${settings.id}'`)
  // apiKeyEnv names a variable; the key is read here and goes nowhere but the provider client.
  const apiKey = settings.apiKeyEnv ? process.env[settings.apiKeyEnv] : undefined
  const key = `${profile.name}\0${baseURL}\0${apiKey ?? ''}`
  let provider = source.fetch ? undefined : providers.get(key)
  if (!provider) {
    provider = createOpenAICompatible({ name: settings.id || 'provider', baseURL, apiKey, fetch: source.fetch, includeUsage: true })
    if (!source.fetch) providers.set(key, provider)
  }
  return { provider, apiKeySource: apiKey ? 'env' : 'none' }
}

/** The profile's model catalog: `models`, defaulting to just `model` (profile.6). */
export function catalogOf(profile: ProfileConfig): string[] {
  const settings = profile.provider
  if (!settings) return []
  return settings.models?.length ? [...settings.models] : [settings.model]
}
