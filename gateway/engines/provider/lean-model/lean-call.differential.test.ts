/**
 * The lean call (lean-call.ts) against the AI SDK's `experimental_streamLanguageModelCall` on
 * the same lean model and the same recorded streams: the same parts as far as the provider runner
 * reads them, and the same leg outcome and protocol-7 stream events (events.11) from `runTurn`, for
 * text, reasoning, tool calls (valid, invalid, unknown), error chunks, malformed chunks, a body cut
 * short, HTTP errors and an abort.
 */
import { createOpenAICompatible, OpenAICompatibleChatLanguageModel } from '@ai-sdk/openai-compatible'
import { experimental_streamLanguageModelCall as streamModelCall, jsonSchema, tool, type ModelMessage, type ToolSet } from 'ai'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { StreamEventWriter } from '../../stream-events.ts'
import { runTurn } from '../turn.ts'
import { LeanChatModel } from './lean-chat-model.ts'
import { leanModelCall, type CallPart } from './lean-call.ts'
import { startReplayServer, type ReplayServer, type Reply } from './replay-server.ts'
import type { LanguageModelV4 } from './types.ts'

let server: ReplayServer
let lean: LeanChatModel
/** The same lean model, not recognisable as one: runTurn gives it the SDK's call. */
let viaSdk: LanguageModelV4
beforeAll(async () => {
  server = await startReplayServer()
  const sdk = createOpenAICompatible({ name: 'fake', baseURL: server.baseURL, includeUsage: true }).chatModel('m-1') as OpenAICompatibleChatLanguageModel
  lean = new LeanChatModel(sdk, { name: 'fake', baseURL: server.baseURL, includeUsage: true })
  viaSdk = {
    specificationVersion: 'v4', modelId: lean.modelId, provider: lean.provider, supportedUrls: {},
    doStream: (options) => lean.doStream(options),
    doGenerate: (options) => lean.doGenerate(options),
  }
})
afterAll(() => server?.close())

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}.sse`, import.meta.url), 'utf8')
const sse = (text: string): Reply => ({ pieces: [text] })
const chunk = (delta: unknown, finish: string | null = null) => `data: ${JSON.stringify({ id: 's-1', created: 1764000010, model: 'm-1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`

const tools: ToolSet = {
  echo: tool({ description: 'Echoes its input.', inputSchema: jsonSchema<{ text: string }>({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }) }),
  add: tool({ description: 'Adds.', inputSchema: jsonSchema<{ a: number }>({ type: 'object', properties: { a: { type: 'number' } }, required: ['a'] }) }),
}
const messages: ModelMessage[] = [{ role: 'user', content: 'Echo ping.' }]

function errorShape(err: unknown): unknown {
  if (!(err instanceof Error)) return err
  const e = err as Error & Record<string, unknown>
  return { name: e.name, message: e.message, statusCode: e.statusCode, isRetryable: e.isRetryable, data: e.data }
}

// What the runner reads of each part (turn.ts); ids the SDK generates differ run to run.
const READ = new Set(['model-call-start', 'model-call-response-metadata', 'text-delta', 'reasoning-delta', 'text-end', 'reasoning-end', 'tool-input-start', 'tool-input-delta', 'tool-input-end', 'tool-call', 'model-call-end', 'error'])
const generated = (id: unknown) => (typeof id === 'string' && /^[0-9A-Za-z]{16}$/.test(id) ? 'generated' : id)
function shape(part: CallPart): unknown {
  if (part.type === 'error') return { type: 'error', error: errorShape(part.error) }
  if (part.type === 'model-call-end') return { type: part.type, finishReason: part.finishReason, rawFinishReason: part.rawFinishReason, usage: part.usage, providerMetadata: part.providerMetadata }
  if (part.type === 'tool-call') return { ...part, toolCallId: generated(part.toolCallId), error: errorShape((part as { error?: unknown }).error) }
  return 'id' in part ? { ...part, id: generated(part.id) } : part
}

async function parts(side: 'sdk' | 'lean', reply: Reply, abortAfterDeltas = 0): Promise<{ parts: unknown[]; thrown?: unknown }> {
  server.reply(reply)
  const controller = new AbortController()
  const out: { parts: unknown[]; thrown?: unknown } = { parts: [] }
  let deltas = 0
  try {
    const call = { messages, tools, abortSignal: controller.signal }
    const { stream } = side === 'sdk' ? await streamModelCall({ model: viaSdk, ...call }) : await leanModelCall({ model: lean, ...call })
    for await (const part of stream) {
      if (READ.has(part.type)) out.parts.push(shape(part))
      if (part.type === 'text-delta' && ++deltas === abortAfterDeltas) controller.abort()
    }
  } catch (err) {
    out.thrown = errorShape(err)
  }
  return out
}

async function leg(model: LanguageModelV4, reply: Reply, abortAfterDeltas = 0): Promise<unknown> {
  server.reply(reply)
  const controller = new AbortController()
  const events: unknown[] = []
  let deltas = 0
  const stream = new StreamEventWriter((event) => {
    events.push(event)
    if (event.type === 'content_block_delta' && ++deltas === abortAfterDeltas) controller.abort()
  }, 'm-1')
  const outcome = await runTurn({ model, messages, signal: controller.signal, maxRetries: 0, tools, stream })
  // Tool call ids the SDK generates (16 characters) differ run to run.
  return JSON.parse(JSON.stringify({ outcome, events }).replace(/"[0-9A-Za-z]{16}"/g, '"generated"'))
}

async function same(reply: () => Reply, abortAfterDeltas = 0): Promise<unknown[]> {
  const theirs = await parts('sdk', reply(), abortAfterDeltas)
  const ours = await parts('lean', reply(), abortAfterDeltas)
  expect(ours).toEqual(theirs)
  const theirLeg = await leg(viaSdk, reply(), abortAfterDeltas)
  const ourLeg = await leg(lean, reply(), abortAfterDeltas)
  expect(ourLeg).toEqual(theirLeg)
  return ours.parts
}

describe('lean call vs the AI SDK call on the lean model', () => {
  for (const name of ['text', 'reasoning', 'tool-calls', 'tool-name-late', 'error-chunk', 'malformed', 'refusal', 'no-finish']) {
    it(`${name}: the same parts the runner reads, the same leg outcome and stream events`, async () => {
      expect((await same(() => sse(fixture(name)))).length).toBeGreaterThan(1)
    })
  }

  it('tool calls with input the schema refuses and with an unknown tool: the same invalid calls', async () => {
    const stream = [
      chunk({ tool_calls: [{ index: 0, id: 'call_x', type: 'function', function: { name: 'add', arguments: '{"a":"not a number"}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_y', type: 'function', function: { name: 'nope', arguments: '{}' } }] }),
      chunk({ tool_calls: [{ index: 2, id: 'call_z', type: 'function', function: { name: 'echo', arguments: '{"text":' } }] }),
      chunk({}, 'tool_calls'),
    ].join('')
    const got = await same(() => sse(stream))
    expect(got.filter((p) => (p as { type: string }).type === 'tool-call')).toHaveLength(3)
  })

  it('an HTTP error, a body cut short and an abort mid-stream end the leg alike', async () => {
    await same(() => ({ status: 500, contentType: 'application/json', pieces: ['{"error":{"message":"upstream exploded"}}'] }))
    const head = fixture('text').split('\n\n').slice(0, 3).map((e) => `${e}\n\n`)
    await same(() => ({ pieces: head, then: 'cut' }))
    await same(() => ({ pieces: head, then: 'hang' }), 2)
  })
})
