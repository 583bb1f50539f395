/**
 * Chat-completions chunks to LanguageModel stream parts, part for part what
 * `@ai-sdk/openai-compatible`'s chat model emits (its doStream transform): stream-start, raw
 * chunks when asked, response metadata once, reasoning before text, refusals as text, tool calls
 * through the tracker (deltas that arrive before their name are held until it comes), and on
 * the end the open blocks closed, the calls finished, the finish reason mapped and usage converted.
 * A chunk that fails to parse or validate is an error part and the stream goes on, as the SDK's.
 */
import { InvalidResponseDataError } from 'ai'
import { convertOpenAICompatibleChatUsage, getResponseMetadata, mapOpenAICompatibleFinishReason } from '@ai-sdk/openai-compatible/internal'
import { ToolCallTracker } from './tool-call-tracker.ts'
import type { StreamPart, Warning } from './types.ts'
import { isSurelyValid, parseData, type WireChunk, type WireDelta, type WireToolCallDelta, type WireUsage } from './wire-chunk.ts'

/** The SDK's own verdict on a chunk the fast check did not accept. */
export type Arbiter = (value: unknown) => { success: true; value: unknown } | { success: false; error: unknown }

export interface MapperOptions {
  metadataKey: string
  includeRawChunks: boolean
  warnings: Warning[]
  arbiter: Arbiter
}

type FinishReason = Extract<StreamPart, { type: 'finish' }>['finishReason']
interface Pending { id: string | null; args: string; extra: WireToolCallDelta['extra_content'] }

export class ChunkMapper {
  readonly #emit: (part: StreamPart) => void
  readonly #options: MapperOptions
  readonly #tools: ToolCallTracker
  readonly #pending = new Map<number, Pending>()
  readonly #forwarded = new Set<number>()
  #finishReason: FinishReason | undefined
  #rawFinishReason: string | undefined
  #usage: WireUsage | null | undefined
  #metadataSent = false
  #reasoning = false
  #text = false
  #refusal = false

  constructor(emit: (part: StreamPart) => void, options: MapperOptions) {
    this.#emit = emit
    this.#options = options
    this.#tools = new ToolCallTracker(emit, options.metadataKey)
    emit({ type: 'stream-start', warnings: options.warnings })
  }

  /** One SSE event's data. May throw (a tool call without a name), which ends the stream. */
  data(text: string): void {
    if (text === '[DONE]') return
    const chunk = this.#read(text)
    if (chunk === undefined) return
    if ('error' in chunk) return this.#fail(chunk.error)
    if (!this.#metadataSent) {
      const metadata = getResponseMetadata(chunk)
      if (Object.values(metadata).some(Boolean)) {
        this.#metadataSent = true
        this.#emit({ type: 'response-metadata', ...metadata })
      }
    }
    if (chunk.usage != null) this.#usage = chunk.usage
    const choice = chunk.choices[0]
    // Mapped at the end: a refusal in the same chunk as the finish reason turns stop into content-filter.
    if (choice?.finish_reason != null) this.#rawFinishReason = choice.finish_reason
    if (choice?.delta != null) this.#delta(choice.delta)
  }

  #read(text: string): WireChunk | undefined {
    let value: unknown
    try {
      value = parseData(text)
    } catch (error) {
      if (this.#options.includeRawChunks) this.#emit({ type: 'raw', rawValue: undefined })
      this.#fail(error)
      return undefined
    }
    if (this.#options.includeRawChunks) this.#emit({ type: 'raw', rawValue: value })
    if (isSurelyValid(value)) return value
    const verdict = this.#options.arbiter(value)
    if (!verdict.success) {
      this.#fail(verdict.error)
      return undefined
    }
    return verdict.value as WireChunk
  }

  #fail(error: unknown): void {
    this.#finishReason = { unified: 'error', raw: undefined }
    this.#rawFinishReason = undefined
    this.#emit({ type: 'error', error })
  }

  #delta(delta: WireDelta): void {
    const reasoning = delta.reasoning_content ?? delta.reasoning
    if (reasoning) this.#reasoningDelta(reasoning)
    const content = delta.content
    if (typeof content === 'string') {
      if (content.length > 0) this.#textDelta(content)
    } else if (content != null) {
      for (const part of content) {
        if (part.type === 'text' && typeof part.text === 'string') {
          if (part.text.length > 0) this.#textDelta(part.text)
        } else if (part.type === 'thinking' && Array.isArray(part.thinking)) {
          const thought = part.thinking.filter((c) => c != null && typeof c === 'object' && c.type === 'text' && typeof c.text === 'string').map((c) => c.text).join('')
          if (thought.length > 0) this.#reasoningDelta(thought)
        }
      }
    }
    if (typeof delta.refusal === 'string' && delta.refusal.length > 0) {
      this.#refusal = true
      this.#textDelta(delta.refusal)
    }
    const calls = delta.tool_calls
    if (calls != null && calls.length > 0) {
      this.#endReasoning()
      for (const call of calls) this.#toolCallDelta(call)
    }
  }

  #reasoningDelta(delta: string): void {
    this.#endText()
    if (!this.#reasoning) {
      this.#emit({ type: 'reasoning-start', id: 'reasoning-0' })
      this.#reasoning = true
    }
    this.#emit({ type: 'reasoning-delta', id: 'reasoning-0', delta })
  }

  #textDelta(delta: string): void {
    this.#endReasoning()
    if (!this.#text) {
      this.#emit({ type: 'text-start', id: 'txt-0' })
      this.#text = true
    }
    this.#emit({ type: 'text-delta', id: 'txt-0', delta })
  }

  #endReasoning(): void {
    if (!this.#reasoning) return
    this.#emit({ type: 'reasoning-end', id: 'reasoning-0' })
    this.#reasoning = false
  }

  #endText(): void {
    if (!this.#text) return
    this.#emit({ type: 'text-end', id: 'txt-0' })
    this.#text = false
  }

  /** Holds an index's deltas until its name arrives: some servers send the name later. */
  #toolCallDelta(delta: WireToolCallDelta): void {
    const index = delta.index
    if (index == null || this.#forwarded.has(index)) return this.#tools.processDelta(delta)
    let pending = this.#pending.get(index)
    if (pending == null) {
      this.#pending.set(index, (pending = { id: delta.id ?? null, args: '', extra: delta.extra_content ?? null }))
    } else {
      if (pending.id == null && delta.id != null) pending.id = delta.id
      if (pending.extra == null && delta.extra_content != null) pending.extra = delta.extra_content
    }
    if (delta.function?.arguments != null) pending.args += delta.function.arguments
    const name = delta.function?.name
    if (name == null) return
    this.#tools.processDelta({ index, id: pending.id, function: { name, arguments: pending.args }, extra_content: pending.extra ?? undefined })
    this.#pending.delete(index)
    this.#forwarded.add(index)
  }

  /** The end of the stream: closes what is open and emits the finish part (or the missing-finish error). */
  end(): void {
    if (this.#reasoning) this.#emit({ type: 'reasoning-end', id: 'reasoning-0' })
    if (this.#text) this.#emit({ type: 'text-end', id: 'txt-0' })
    for (const [index, pending] of this.#pending) this.#tools.processDelta({ index, id: pending.id, function: { arguments: pending.args } })
    this.#pending.clear()
    this.#tools.flush()
    if (this.#rawFinishReason != null) {
      this.#finishReason = { unified: mapOpenAICompatibleFinishReason(this.#rawFinishReason, { hasRefusal: this.#refusal }), raw: this.#rawFinishReason }
    }
    if (this.#finishReason == null) {
      this.#finishReason = { unified: 'error', raw: undefined }
      this.#emit({ type: 'error', error: new InvalidResponseDataError({ data: undefined, message: 'Response stream ended without a finish reason.' }) })
    }
    const key = this.#options.metadataKey
    const details = this.#usage?.completion_tokens_details
    const providerMetadata: Record<string, Record<string, number>> = { [key]: {} }
    if (details?.accepted_prediction_tokens != null) providerMetadata[key].acceptedPredictionTokens = details.accepted_prediction_tokens
    if (details?.rejected_prediction_tokens != null) providerMetadata[key].rejectedPredictionTokens = details.rejected_prediction_tokens
    this.#emit({ type: 'finish', finishReason: this.#finishReason, usage: convertOpenAICompatibleChatUsage(this.#usage), providerMetadata })
  }
}
