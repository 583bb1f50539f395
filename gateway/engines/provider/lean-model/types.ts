/**
 * The AI SDK's LanguageModel contract (specification v4), taken from `ai`'s own `LanguageModel`
 * type so that this module needs no import of `@ai-sdk/provider` (not a dependency of ours).
 */
import type { LanguageModel } from 'ai'

export type LanguageModelV4 = Extract<Exclude<LanguageModel, string>, { specificationVersion: 'v4' }>
export type CallOptions = Parameters<LanguageModelV4['doStream']>[0]
export type StreamResult = Awaited<ReturnType<LanguageModelV4['doStream']>>
export type GenerateResult = Awaited<ReturnType<LanguageModelV4['doGenerate']>>
export type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never
export type Warning = Extract<StreamPart, { type: 'stream-start' }>['warnings'][number]
