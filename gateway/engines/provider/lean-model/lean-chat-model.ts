/**
 * A LanguageModel (AI SDK specification v4) for the OpenAI-compatible chat-completions wire that
 * streams without the SDK model's per-chunk pipeline (web-stream stages and a zod parse per
 * chunk): `node:http`, `eventsource-parser`, and `typeof` checks of the fields it reads.
 *
 * What is not per chunk stays the SDK's own, so the two cannot drift: the request body is the one
 * `@ai-sdk/openai-compatible`'s model prepares (`prepareRequest`: messages, tools, tool_choice,
 * max_tokens, temperature…, plus the same `stream` / `stream_options`), `doGenerate` is its call,
 * and a chunk the fast check does not accept is judged by its chunk schema. The differential test
 * (lean-model.differential.test.ts) holds the parts and requests equal to the SDK model's.
 */
import { TypeValidationError } from 'ai'
import { VERSION, type OpenAICompatibleChatLanguageModel } from '@ai-sdk/openai-compatible'
import type { IncomingMessage } from 'node:http'
import type { Arbiter, MapperOptions } from './chunk-mapper.ts'
import { DEFAULT_TIMEOUT_MS, postJson } from './http-post.ts'
import { pumpParts, streamParts, type BodyContext, type PartPump, type PartSink } from './sse-parts.ts'
import type { CallOptions, GenerateResult, LanguageModelV4, StreamResult } from './types.ts'

export type SdkChatModel = OpenAICompatibleChatLanguageModel

export interface LeanModelSettings {
  /** The provider name given to createOpenAICompatible: the provider-metadata key. */
  name: string
  baseURL: string
  apiKey?: string
  includeUsage?: boolean
  /** Silence (before the headers, or between body chunks) that fails a call; default 300 s, as undici's. */
  timeoutMs?: number
}

// The runtime's own user agent, as the SDK appends it (e.g. `node.js/22`).
const RUNTIME_AGENT = (globalThis.navigator?.userAgent ?? `node.js/${process.version}`).toLowerCase()

export class LeanChatModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4' as const
  readonly modelId: string
  readonly provider: string
  readonly supportedUrls = {}
  readonly #sdk: SdkChatModel
  readonly #settings: LeanModelSettings
  readonly #arbiter: Arbiter

  constructor(sdk: SdkChatModel, settings: LeanModelSettings) {
    this.#sdk = sdk
    this.#settings = settings
    this.modelId = sdk.modelId
    this.provider = sdk.provider
    this.#arbiter = arbiterOf(sdk)
  }

  /** Not streamed, so not per chunk: the SDK model's own call. */
  async doGenerate(options: CallOptions): Promise<GenerateResult> {
    return await this.#sdk.doGenerate(options)
  }

  async doStream(options: CallOptions): Promise<StreamResult> {
    const { response, mapping, ctx } = await this.#open(options)
    const stream = streamParts(response, mapping, ctx)
    return { stream, request: { body: ctx.values }, response: { headers: ctx.responseHeaders } }
  }

  /**
   * doStream's call with its parts pushed into `sink` instead of a ReadableStream (lean-call.ts):
   * the same request, the same parts in the same order, the same errors.
   */
  async doStreamInto(options: CallOptions, sink: PartSink): Promise<PartPump> {
    const { response, mapping, ctx } = await this.#open(options)
    return pumpParts(response, mapping, ctx, sink)
  }

  async #open(options: CallOptions): Promise<{ response: IncomingMessage; mapping: MapperOptions; ctx: BodyContext }> {
    const { body, warnings } = await this.#sdk.prepareRequest(options)
    const values = { ...body, stream: true, stream_options: this.#settings.includeUsage ? { include_usage: true } : undefined }
    const url = new URL(`${this.#settings.baseURL}/chat/completions`).toString()
    const signal = options.abortSignal
    const timeoutMs = this.#settings.timeoutMs ?? DEFAULT_TIMEOUT_MS
    const { response, headers } = await postJson({ url, headers: this.#headers(options.headers), values, signal, timeoutMs })
    const mapping = { metadataKey: metadataKey(this.#settings.name, options.providerOptions), includeRawChunks: options.includeRawChunks === true, warnings, arbiter: this.#arbiter }
    return { response, mapping, ctx: { url, values, responseHeaders: headers, signal, timeoutMs } }
  }

  /** The SDK's headers: content type, bearer key, the call's own headers (an undefined one removes it), a user agent. */
  #headers(call: Record<string, string | undefined> | undefined): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (this.#settings.apiKey) headers.authorization = `Bearer ${this.#settings.apiKey}`
    headers['user-agent'] = `ai-sdk-openai-compatible/${VERSION}`
    for (const [name, value] of Object.entries(call ?? {})) {
      if (value == null) delete headers[name.toLowerCase()]
      else headers[name.toLowerCase()] = value
    }
    headers['user-agent'] = [headers['user-agent'], 'agent-session-gateway-lean', RUNTIME_AGENT].filter(Boolean).join(' ')
    return headers
  }
}

/** The SDK's providerMetadata key: the camelCase name when the call's providerOptions use it. */
function metadataKey(name: string, providerOptions: Record<string, unknown> | undefined): string {
  const camel = name.replace(/[_-]([a-z])/g, (g) => g[1].toUpperCase())
  return camel !== name && providerOptions?.[camel] != null ? camel : name
}

interface SafeParser {
  safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: unknown }
}

/**
 * The SDK model's chunk schema as the judge of chunks the fast check did not accept (rare: error
 * chunks and malformed ones), so they are accepted, refused and worded as the SDK would. The schema
 * is a private field of the SDK model; without it, a refusal names the chunk only.
 */
function arbiterOf(sdk: SdkChatModel): Arbiter {
  const schema = (sdk as unknown as { chunkSchema?: SafeParser }).chunkSchema
  if (typeof schema?.safeParse !== 'function') {
    return (value) => ({ success: false, error: new TypeValidationError({ value, cause: new Error('not a chat completion chunk') }) })
  }
  return (value) => {
    const result = schema.safeParse(value)
    return result.success ? { success: true, value: result.data } : { success: false, error: TypeValidationError.wrap({ value, cause: result.error }) }
  }
}
