/**
 * The model factory shares one AI SDK model object per (provider, model id): building
 * one builds its zod schemas, which cost every turn's start when done per leg.
 */
import { OpenAICompatibleChatLanguageModel } from '@ai-sdk/openai-compatible'
import { describe, expect, it } from 'vitest'
import { LeanChatModel } from './lean-model/lean-chat-model.ts'
import type { ProfileConfig } from '../../protocol/index.ts'
import { providerFor } from './model-factory.ts'

const profile = (id: string): ProfileConfig => ({ name: `shared-${id}`, engine: 'provider', provider: { id, model: 'm-1' } })

describe('providerFor: model objects', () => {
  for (const id of ['fake', 'openai', 'anthropic']) {
    it(`${id}: the same object for the same model id, another for another id`, () => {
      const { provider } = providerFor(profile(id), { baseURL: 'http://127.0.0.1:9/v1' })
      const first = provider.chatModel('m-1')
      expect(provider.chatModel('m-1')).toBe(first)
      const other = provider.chatModel('m-2')
      expect(other).not.toBe(first)
      expect((other as { modelId: string }).modelId).toBe('m-2')
      // A second session on the same profile gets the same provider and so the same model.
      expect(providerFor(profile(id), { baseURL: 'http://127.0.0.1:9/v1' }).provider.chatModel('m-1')).toBe(first)
    })
  }
})

describe('providerFor: the OpenAI-compatible client', () => {
  const at = (client?: 'lean' | 'ai-sdk', fetch?: typeof globalThis.fetch) =>
    providerFor({ name: `client-${client}-${fetch ? 'fetch' : ''}`, engine: 'provider', provider: { id: 'fake', model: 'm-1', client } }, { baseURL: 'http://127.0.0.1:9/v1', fetch }).provider.chatModel('m-1')
  it("is the lean model by default and with 'lean', the SDK's with 'ai-sdk' or a host's own fetch", () => {
    expect(at()).toBeInstanceOf(LeanChatModel)
    expect(at('lean')).toBeInstanceOf(LeanChatModel)
    expect(at('ai-sdk')).toBeInstanceOf(OpenAICompatibleChatLanguageModel)
    expect(at(undefined, globalThis.fetch)).toBeInstanceOf(OpenAICompatibleChatLanguageModel)
  })
})
