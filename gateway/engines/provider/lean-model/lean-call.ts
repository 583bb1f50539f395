/**
 * The provider runner's model call (turn.ts) on the lean model, without web streams: what
 * `experimental_streamLanguageModelCall` does for the runner's legs, done by the SDK's own steps
 * (`standardizePrompt`, `convertToLanguageModelPrompt`, `prepareTools`, `prepareToolChoice`,
 * `parseToolCall`, `asLanguageModelUsage`), with the model's parts pushed into a plain queue
 * (LeanChatModel.doStreamInto) instead of a ReadableStream piped through a TransformStream and read
 * by an async iterator: three web-stream hops per streamed delta, about half the CPU of a paced
 * delta's whole model call (bench/README.md, rows i and k).
 *
 * The parts are the SDK call's, part for part, as far as the runner reads them (text and reasoning
 * deltas, block ends, tool-input parts, parsed tool calls, `model-call-end` usage, errors);
 * lean-call.differential.test.ts holds the runner's outcome and stream events equal to the SDK
 * call's on the recorded streams. Left out, as nothing in a leg reads them: the `tool-error` that
 * follows an invalid tool call (the call itself still comes, `invalid` set), the call's
 * performance figures and `onLanguageModelCallEnd`. A call that asks for what it leaves out (a tool
 * choice other than `auto`, which the runner never makes) goes to the SDK's call.
 */
import { experimental_streamLanguageModelCall as streamModelCall, StreamProviderError, type ModelMessage, type ToolSet } from 'ai'
import { asLanguageModelUsage, convertToLanguageModelPrompt, parseToolCall, prepareToolChoice, prepareTools, standardizePrompt } from 'ai/internal'
import type { LeanChatModel } from './lean-chat-model.ts'
import type { PartPump, PartSink } from './sse-parts.ts'
import type { StreamPart } from './types.ts'

export interface LeanCallInput {
  model: LeanChatModel
  messages: ModelMessage[]
  system?: string
  abortSignal: AbortSignal
  tools?: ToolSet
}

/** A part of the SDK call's stream, as `experimental_streamLanguageModelCall` types it. */
export type CallPart = Awaited<ReturnType<typeof streamModelCall>>['stream'] extends AsyncIterable<infer P> ? P : never

/** Unread parts above which the model's socket pauses (it reads again once the queue is empty). */
const HIGH_WATER = 64

export async function leanModelCall(input: LeanCallInput): Promise<{ stream: AsyncIterable<CallPart> }> {
  const { model, abortSignal, tools } = input
  const toolChoice = prepareToolChoice({ toolChoice: undefined })
  const standardized = await standardizePrompt({ system: input.system, messages: input.messages })
  const prompt = await convertToLanguageModelPrompt({
    prompt: { instructions: standardized.instructions, messages: standardized.messages },
    supportedUrls: await model.supportedUrls,
    download: undefined,
    abortSignal,
    provider: model.provider.split('.')[0],
  })
  const stepTools = await prepareTools({ tools, toolOrder: undefined, toolsContext: undefined, experimental_sandbox: undefined })
  const queue = new PartQueue(async (part) => {
    if (part.type !== 'tool-call') return mapPart(part, tools)
    try {
      return (await parseToolCall({ toolCall: part, tools, repairToolCall: undefined, refineToolInput: undefined, instructions: standardized.instructions, messages: standardized.messages, abortSignal })) as CallPart
    } catch (error) {
      return { type: 'error', error }
    }
  })
  queue.pump = await model.doStreamInto({ tools: stepTools, toolChoice, prompt, abortSignal } as Parameters<LeanChatModel['doStream']>[0], queue)
  return { stream: queue }
}

/** The SDK call's mapping of a model part (its stream transform), for every part but a tool call. */
function mapPart(part: StreamPart, tools: ToolSet | undefined): CallPart {
  switch (part.type) {
    case 'tool-input-start': {
      const tool = tools && Object.hasOwn(tools, part.toolName) ? tools[part.toolName] : undefined
      return { ...part, dynamic: part.dynamic ?? tool?.type === 'dynamic', title: tool?.title, ...(tool?.metadata != null ? { toolMetadata: tool.metadata } : {}) } as CallPart
    }
    case 'stream-start':
      return { type: 'model-call-start', warnings: part.warnings } as CallPart
    case 'response-metadata':
      return { type: 'model-call-response-metadata', id: part.id, timestamp: part.timestamp, modelId: part.modelId } as CallPart
    case 'text-delta':
      return { type: 'text-delta', id: part.id, text: part.delta, providerMetadata: part.providerMetadata }
    case 'reasoning-delta':
      return { type: 'reasoning-delta', id: part.id, text: part.delta, providerMetadata: part.providerMetadata }
    case 'finish':
      return { type: 'model-call-end', finishReason: part.finishReason.unified, rawFinishReason: part.finishReason.raw, usage: asLanguageModelUsage(part.usage), providerMetadata: part.providerMetadata } as CallPart
    case 'error':
      return { type: 'error', error: streamError(part.error) }
    default:
      return part as CallPart
  }
}

/** The SDK's reading of an error part (normalizeStreamProviderError): a provider's error object becomes a StreamProviderError with its message. */
function streamError(error: unknown): unknown {
  if (error instanceof Error || typeof error !== 'object' || error === null) return error
  const outer = error as Record<string, unknown>
  const record = (v: unknown) => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined)
  const details = record(record(outer.response)?.error) ?? record(outer.error) ?? outer
  if (typeof details.message !== 'string') return error
  const code = details.code ?? outer.code
  const status = [details.statusCode, outer.statusCode, details.status_code, outer.status_code, details.status, outer.status, details.code, outer.code]
    .find((v): v is number => typeof v === 'number' && v >= 100 && v <= 599)
  return new StreamProviderError({
    message: details.message,
    type: typeof details.type === 'string' ? details.type : typeof outer.type === 'string' ? outer.type : undefined,
    code: typeof code === 'string' || typeof code === 'number' ? code : undefined,
    statusCode: status,
    data: error,
  })
}

/**
 * The model's parts in arrival order, read as an async iterator. As a web stream's error does,
 * an error drops the parts not yet read and is thrown at the next read.
 */
class PartQueue implements PartSink, AsyncIterableIterator<CallPart> {
  pump: PartPump | undefined
  readonly #map: (part: StreamPart) => CallPart | Promise<CallPart>
  #parts: StreamPart[] = []
  #head = 0
  #closed = false
  #failure: { error: unknown } | undefined
  #wake: (() => void) | undefined

  constructor(map: (part: StreamPart) => CallPart | Promise<CallPart>) {
    this.#map = map
  }

  enqueue(part: StreamPart): void {
    this.#parts.push(part)
    this.#wakeReader()
  }

  error(error: unknown): void {
    this.#failure = { error }
    this.#parts = []
    this.#head = 0
    this.#wakeReader()
  }

  close(): void {
    this.#closed = true
    this.#wakeReader()
  }

  full(): boolean {
    return this.#parts.length - this.#head >= HIGH_WATER
  }

  async next(): Promise<IteratorResult<CallPart>> {
    for (;;) {
      if (this.#head < this.#parts.length) {
        const part = this.#parts[this.#head++]
        if (this.#head === this.#parts.length) {
          this.#parts = []
          this.#head = 0
          this.pump?.resume()
        }
        return { value: await this.#map(part), done: false }
      }
      if (this.#failure) throw this.#failure.error
      if (this.#closed) return { value: undefined, done: true }
      await new Promise<void>((resolve) => { this.#wake = resolve })
    }
  }

  async return(): Promise<IteratorResult<CallPart>> {
    if (!this.#closed && !this.#failure) this.pump?.cancel()
    return { value: undefined, done: true }
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  #wakeReader(): void {
    const wake = this.#wake
    this.#wake = undefined
    wake?.()
  }
}
