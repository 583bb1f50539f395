/**
 * One `data:` line of the OpenAI-compatible chat-completions stream, parsed and checked with plain
 * `typeof` tests instead of a zod schema per chunk. `isSurelyValid` accepts only chunks the
 * `@ai-sdk/openai-compatible` chunk schema accepts too; anything else goes to that schema (the
 * arbiter), so a chunk is refused, and its error worded, exactly as the SDK model would.
 */
import { JSONParseError } from 'ai'

export interface WireToolCallDelta {
  index?: number | null
  id?: string | null
  function?: { name?: string | null; arguments?: string | null } | null
  extra_content?: { google?: { thought_signature?: string | null } | null } | null
}

export interface WireDelta {
  content?: string | Array<{ type: string; text?: unknown; thinking?: unknown }> | null
  refusal?: unknown
  reasoning_content?: string | null
  reasoning?: string | null
  tool_calls?: WireToolCallDelta[] | null
}

export interface WireUsage {
  prompt_tokens?: number | null
  completion_tokens?: number | null
  total_tokens?: number | null
  prompt_tokens_details?: { cached_tokens?: number | null } | null
  completion_tokens_details?: {
    reasoning_tokens?: number | null
    accepted_prediction_tokens?: number | null
    rejected_prediction_tokens?: number | null
  } | null
}

export interface WireChunk {
  id?: string | null
  created?: number | null
  model?: string | null
  choices: Array<{ delta?: WireDelta | null; finish_reason?: string | null }>
  usage?: WireUsage | null
  error?: unknown
}

/** The error chunk shape of the SDK's default error structure (openai-compatible-error). */
export interface WireErrorChunk {
  error: { message: string; type?: string | null; param?: unknown; code?: string | number | null }
}

// The same prototype-poisoning guard as the SDK's secure JSON parse (provider-utils secure-json-parse).
const suspectProto = /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/
const suspectConstructor = /"(?:c|\\u0063)(?:o|\\u006[Ff])(?:n|\\u006[Ee])(?:s|\\u0073)(?:t|\\u0074)(?:r|\\u0072)(?:u|\\u0075)(?:c|\\u0063)(?:t|\\u0074)(?:o|\\u006[Ff])(?:r|\\u0072)"\s*:/

/** JSON.parse with the SDK's guard; a failure is the SDK's JSONParseError for the same text. */
export function parseData(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text)
    if (value === null || typeof value !== 'object') return value
    if (!suspectProto.test(text) && !suspectConstructor.test(text)) return value
    rejectPrototypeKeys(value)
    return value
  } catch (cause) {
    throw new JSONParseError({ text, cause })
  }
}

function rejectPrototypeKeys(root: object): void {
  const has = (node: object, key: string) => Object.prototype.hasOwnProperty.call(node, key)
  for (let next: object[] = [root]; next.length;) {
    const nodes = next
    next = []
    for (const node of nodes) {
      const ctor = (node as { constructor?: unknown }).constructor
      if (has(node, '__proto__') || (has(node, 'constructor') && ctor !== null && typeof ctor === 'object' && has(ctor, 'prototype'))) {
        throw new SyntaxError('Object contains forbidden prototype property')
      }
      for (const key in node) {
        const value = (node as Record<string, unknown>)[key]
        if (value && typeof value === 'object') next.push(value)
      }
    }
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const optString = (v: unknown) => v == null || typeof v === 'string'
const optNumber = (v: unknown) => v == null || (typeof v === 'number' && Number.isFinite(v))

/** True only for a chunk the SDK's chunk schema (its base branch) surely accepts. */
export function isSurelyValid(value: unknown): value is WireChunk {
  if (!isObject(value) || !Array.isArray(value.choices)) return false
  if (!optString(value.id) || !optNumber(value.created) || !optString(value.model)) return false
  if (value.usage != null && !isUsage(value.usage)) return false
  for (const choice of value.choices) {
    if (!isObject(choice) || !optString(choice.finish_reason)) return false
    if (choice.delta != null && !isDelta(choice.delta)) return false
  }
  return true
}

function isDelta(delta: unknown): boolean {
  if (!isObject(delta)) return false
  if (delta.role != null && delta.role !== 'assistant' && delta.role !== '') return false
  if (!optString(delta.reasoning_content) || !optString(delta.reasoning)) return false
  const content = delta.content
  if (content != null && typeof content !== 'string') {
    if (!Array.isArray(content) || !content.every((part) => isObject(part) && typeof part.type === 'string')) return false
  }
  const calls = delta.tool_calls
  return calls == null || (Array.isArray(calls) && calls.every(isToolCallDelta))
}

function isToolCallDelta(call: unknown): boolean {
  if (!isObject(call) || !optNumber(call.index) || !optString(call.id)) return false
  const fn = call.function
  if (!isObject(fn) || !optString(fn.name) || !optString(fn.arguments)) return false
  const extra = call.extra_content
  if (extra == null) return true
  if (!isObject(extra)) return false
  return extra.google == null || (isObject(extra.google) && optString(extra.google.thought_signature))
}

function isUsage(usage: unknown): boolean {
  if (!isObject(usage)) return false
  if (!optNumber(usage.prompt_tokens) || !optNumber(usage.completion_tokens) || !optNumber(usage.total_tokens)) return false
  const prompt = usage.prompt_tokens_details
  if (prompt != null && !(isObject(prompt) && optNumber(prompt.cached_tokens))) return false
  const completion = usage.completion_tokens_details
  return completion == null || (isObject(completion) && optNumber(completion.reasoning_tokens)
    && optNumber(completion.accepted_prediction_tokens) && optNumber(completion.rejected_prediction_tokens))
}
