/**
 * Language models for provider profiles. The AI SDK provider object is built once per
 * (profile, base URL, key) and shared by every session on it: per-session cost is what limits
 * scale (DESIGN.md §7), and a provider object carries no per-session state.
 */
import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible, OpenAICompatibleChatLanguageModel } from '@ai-sdk/openai-compatible'
import type { LanguageModel } from 'ai'
import type { ProfileConfig, ProviderSettings } from '../../protocol/index.ts'
import { LeanChatModel } from './lean-model/lean-chat-model.ts'

/** What a runner needs of an AI SDK provider: a chat model by id. */
interface Provider {
  chatModel(model: string): Exclude<LanguageModel, string>
}
const providers = new Map<string, Provider>()

export interface ModelSource {
  baseURL?: string
  fetch?: typeof fetch
}

export function providerFor(profile: ProfileConfig, source: ModelSource): { provider: Provider; apiKeySource: string } {
  const settings = profile.provider
  if (!settings) throw new Error(`profile '${profile.name}' has no provider settings`)
  const baseURL = source.baseURL ?? settings.baseURL
  // The vendors' own providers know their base URL; every other id speaks the OpenAI-compatible API.
  const vendor = settings.id === 'openai' || settings.id === 'anthropic'
  if (!baseURL && !vendor) throw new Error(`profile '${profile.name}': no base URL for provider '${settings.id}'`)
  // apiKeyEnv names a variable; the key is read here and goes nowhere but the provider client.
  const apiKey = settings.apiKeyEnv ? process.env[settings.apiKeyEnv] : undefined
  const key = `${profile.name}\0${baseURL}\0${apiKey ?? ''}\0${settings.client ?? ''}`
  let provider = source.fetch ? undefined : providers.get(key)
  if (!provider) {
    provider = build(settings.id, { baseURL, apiKey, fetch: source.fetch, client: settings.client })
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

interface BuildSettings {
  baseURL?: string
  apiKey?: string
  fetch?: typeof fetch
  client?: ProviderSettings['client']
}

function build(id: string, settings: BuildSettings): Provider {
  if (id === 'openai') {
    const openai = createOpenAI(settings)
    return onePerModel((model) => openai.chat(model))
  }
  if (id === 'anthropic') {
    const anthropic = createAnthropic(settings)
    return onePerModel((model) => anthropic.messages(model))
  }
  const name = id || 'provider'
  const compatible = createOpenAICompatible({ name, baseURL: settings.baseURL as string, apiKey: settings.apiKey, fetch: settings.fetch, includeUsage: true })
  // The lean client streams over node:http, so a host's own fetch keeps the SDK's client.
  if (settings.client === 'ai-sdk' || settings.fetch) return onePerModel((model) => compatible.chatModel(model))
  const lean = { name, baseURL: settings.baseURL as string, apiKey: settings.apiKey, includeUsage: true }
  return onePerModel((model) => {
    const sdk = compatible.chatModel(model)
    return sdk instanceof OpenAICompatibleChatLanguageModel ? new LeanChatModel(sdk, lean) : sdk
  })
}

/**
 * One model object per model id, shared by every call on the provider. A provider's
 * model object is its settings and nothing per call, but building one builds its zod schemas (the
 * openai-compatible model: a chunk schema of some forty zod objects), and zod sets each schema up
 * again on its first parses: built per leg, that was a share of every turn's start and of its
 * first deltas. The ids are the profile's catalog (the runner refuses others), so the map stays small.
 */
function onePerModel(make: (model: string) => Exclude<LanguageModel, string>): Provider {
  const models = new Map<string, Exclude<LanguageModel, string>>()
  return {
    chatModel(model) {
      let built = models.get(model)
      if (!built) models.set(model, (built = make(model)))
      return built
    },
  }
}
