/**
 * One streamed model call (a "leg") of a turn. Text deltas go out as they arrive (only when the
 * session asked for partial messages); the call's usage is counted once per call. Tools are
 * offered without `execute`, so a tool call ends the leg and the runner decides who answers it
 * (engine-facts §3: continuation is replay).
 *
 * The call is the AI SDK's single model call (`experimental_streamLanguageModelCall`: the prompt
 * conversion, tool preparation and tool-call parsing `streamText` runs for each step) under the
 * SDK's own retry policy (`prepareRetries`, which `streamText` wraps around that same call). A leg
 * is one step with no tool executed here, so `streamText`'s step loop, tool execution and the
 * stream stages it adds per part do nothing for it but cost: 2-3× the CPU per delta of the call
 * alone (bench/README.md). On the lean OpenAI-compatible model (the default client of such
 * profiles) the call is lean-call.ts: the same steps and parts, without the web-stream hops.
 */
import { experimental_streamLanguageModelCall as streamModelCall, type LanguageModel, type ModelMessage, type ToolSet } from 'ai'
import { prepareRetries } from 'ai/internal'
import type { Usage } from '../../protocol/index.ts'
import type { StreamEventWriter } from '../stream-events.ts'
import { LeanChatModel } from './lean-model/lean-chat-model.ts'
import { leanModelCall, type CallPart } from './lean-model/lean-call.ts'

export interface LegToolCall {
  toolCallId: string
  toolName: string
  input: unknown
}

export interface TurnOutcome {
  text: string
  toolCalls: LegToolCall[]
  usage: Usage
  error?: string
  aborted: boolean
}

export interface TurnInput {
  model: LanguageModel
  messages: ModelMessage[]
  system?: string
  signal: AbortSignal
  maxRetries: number
  tools?: ToolSet
  /** Receives the leg's deltas as protocol 7's raw stream events (events.11); absent: no deltas. */
  stream?: StreamEventWriter
}

export interface ModelCall {
  model: LanguageModel
  messages: ModelMessage[]
  system?: string
  abortSignal: AbortSignal
  tools?: ToolSet
}

/** One model call's parts: the lean model's own call (lean-call.ts, no web streams), else the SDK's. */
export function openModelCall({ model, ...call }: ModelCall): Promise<{ stream: AsyncIterable<CallPart> }> {
  return model instanceof LeanChatModel ? leanModelCall({ model, ...call }) : streamModelCall({ model, ...call })
}

export async function runTurn(input: TurnInput): Promise<TurnOutcome> {
  let text = ''
  const toolCalls: LegToolCall[] = []
  let usage: Usage = {}
  let error: string | undefined
  const toolNames = new Map<string, string>()
  const stream = input.stream
  try {
    const { retry } = prepareRetries({ maxRetries: input.maxRetries, abortSignal: input.signal })
    // Errors (a refused call after its retries, or an error part mid-stream) become the turn's result.
    const call = { model: input.model, messages: input.messages, system: input.system, abortSignal: input.signal, tools: input.tools }
    const result = await retry(() => openModelCall(call))
    for await (const part of result.stream) {
      if (part.type === 'text-delta') {
        text += part.text
        stream?.text(part.text)
      } else if (part.type === 'reasoning-delta') {
        stream?.thinking(part.text)
      } else if (part.type === 'text-end' || part.type === 'reasoning-end' || part.type === 'tool-input-end') {
        stream?.end()
      } else if (part.type === 'tool-input-start') {
        toolNames.set(part.id, part.toolName)
        stream?.toolInput(part.id, part.toolName, '')
      } else if (part.type === 'tool-input-delta') {
        stream?.toolInput(part.id, toolNames.get(part.id) ?? '', part.delta)
      } else if (part.type === 'tool-call') {
        toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input })
      } else if (part.type === 'model-call-end') {
        usage = toUsage(part.usage)
      } else if (part.type === 'error') {
        error = messageOf(part.error)
      }
    }
  } catch (err) {
    if (!input.signal.aborted) error = messageOf(err)
  }
  // The Messages API's stop reasons; an aborted or failed call has none.
  stream?.finish(input.signal.aborted || error ? undefined : toolCalls.length ? 'tool_use' : 'end_turn')
  return { text, toolCalls, usage, error, aborted: input.signal.aborted }
}

function toUsage(total: { inputTokens?: number; outputTokens?: number; inputTokenDetails?: { cacheReadTokens?: number; cacheWriteTokens?: number } }): Usage {
  const usage: Usage = { input_tokens: total.inputTokens ?? 0, output_tokens: total.outputTokens ?? 0 }
  const cacheRead = total.inputTokenDetails?.cacheReadTokens
  const cacheWrite = total.inputTokenDetails?.cacheWriteTokens
  if (cacheRead) usage.cache_read_input_tokens = cacheRead
  if (cacheWrite) usage.cache_creation_input_tokens = cacheWrite
  return usage
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message || err.name
  if (typeof err === 'object' && err !== null && 'message' in err) return String((err as { message: unknown }).message)
  return String(err)
}
