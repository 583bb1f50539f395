/**
 * The lean OpenAI-compatible model against `@ai-sdk/openai-compatible`'s, on the same recorded
 * streams from a loopback server: the same stream parts (text, reasoning, tool calls split at
 * every point, several calls, usage, every finish reason, error chunks, malformed chunks, a body
 * cut short, an abort) and the same request on the wire (body and headers), or the same error.
 */
import { createOpenAICompatible, OpenAICompatibleChatLanguageModel } from '@ai-sdk/openai-compatible'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LeanChatModel } from './lean-chat-model.ts'
import { startReplayServer, type RecordedRequest, type ReplayServer, type Reply } from './replay-server.ts'
import type { CallOptions, LanguageModelV4, StreamPart } from './types.ts'

const KEY = 'sk-differential'
let server: ReplayServer
let sdk: OpenAICompatibleChatLanguageModel
let lean: LeanChatModel
beforeAll(async () => {
  server = await startReplayServer()
  sdk = createOpenAICompatible({ name: 'fake', baseURL: server.baseURL, apiKey: KEY, includeUsage: true }).chatModel('m-1') as OpenAICompatibleChatLanguageModel
  lean = new LeanChatModel(sdk, { name: 'fake', baseURL: server.baseURL, apiKey: KEY, includeUsage: true })
})
afterAll(() => server?.close())

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}.sse`, import.meta.url), 'utf8')

/** Everything the gateway's calls carry, and a few options more (the request must be the SDK's). */
const options = (): CallOptions => ({
  prompt: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: [{ type: 'text', text: 'Echo ping.' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'Calling.' }, { type: 'tool-call', toolCallId: 'call_0', toolName: 'echo', input: { text: 'ping' } }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_0', toolName: 'echo', output: { type: 'json', value: { text: 'ping' } } }] },
    { role: 'user', content: [{ type: 'text', text: 'Again.' }] },
  ],
  tools: [{ type: 'function', name: 'echo', description: 'Echoes its input.', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }],
  toolChoice: { type: 'auto' },
  maxOutputTokens: 256,
  temperature: 0.2,
  topP: 0.9,
  stopSequences: ['END'],
  seed: 7,
  headers: { 'user-agent': 'ai/test', 'x-trace': 'abc' },
})

interface Outcome {
  parts: unknown[]
  thrown?: unknown
  streamError?: unknown
  requestBody?: unknown
  wire?: { url: string; body: unknown; headers: Record<string, unknown> }
}

/** An error as far as a caller can tell errors apart. */
function errorShape(err: unknown): unknown {
  if (!(err instanceof Error)) return err
  const e = err as Error & Record<string, unknown>
  return { name: e.name, message: e.message, statusCode: e.statusCode, isRetryable: e.isRetryable, responseBody: e.responseBody, data: e.data, url: e.url, requestBodyValues: e.requestBodyValues, value: e.value }
}

// Ids the SDK generates (16 characters) differ run to run; wire ids stay as they are.
const generated = (id: unknown) => (typeof id === 'string' && /^[0-9A-Za-z]{16}$/.test(id) ? 'generated' : id)
function shape(part: StreamPart): unknown {
  if (part.type === 'error') return { type: 'error', error: errorShape(part.error) }
  if (part.type === 'tool-call') return { ...part, toolCallId: generated(part.toolCallId) }
  if ('id' in part) return { ...part, id: generated(part.id) }
  return part
}

async function play(model: LanguageModelV4, reply: Reply | undefined, call = options(), onPart?: (p: StreamPart) => void): Promise<Outcome> {
  if (reply) server.reply(reply)
  const before = server.requests.length
  const outcome: Outcome = { parts: [] }
  try {
    const result = await model.doStream(call)
    outcome.requestBody = result.request?.body
    const reader = result.stream.getReader()
    try {
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        outcome.parts.push(shape(next.value))
        onPart?.(next.value)
      }
    } catch (err) {
      outcome.streamError = errorShape(err)
    }
  } catch (err) {
    outcome.thrown = errorShape(err)
  }
  const wire: RecordedRequest | undefined = server.requests[before]
  if (wire) {
    // Transport headers (fetch's own accept*, sec-fetch-mode; host, connection, length) are no part of the request's meaning.
    const { 'user-agent': agent, host: _h, connection: _c, 'content-length': _l, accept: _a, 'accept-encoding': _e, 'accept-language': _g, 'sec-fetch-mode': _m, ...headers } = wire.headers
    outcome.wire = { url: wire.url, body: JSON.parse(wire.body), headers: { ...headers, agent: String(agent).split(' ')[0] } }
  }
  return outcome
}

async function both(reply: () => Reply, call?: () => CallOptions): Promise<[Outcome, Outcome]> {
  const theirs = await play(sdk, reply(), call?.())
  const ours = await play(lean, reply(), call?.())
  return [ours, theirs]
}

const sse = (text: string, then?: Reply['then']): Reply => ({ pieces: [text], then })
const chunk = (delta: unknown, finish: string | null = null) => `data: ${JSON.stringify({ id: 's-1', created: 1764000010, model: 'm-1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`

describe('lean model vs @ai-sdk/openai-compatible: recorded streams', () => {
  for (const name of ['text', 'reasoning', 'tool-calls', 'tool-name-late', 'error-chunk', 'malformed', 'refusal', 'no-finish']) {
    it(`${name}: the same parts and the same request`, async () => {
      const [ours, theirs] = await both(() => sse(fixture(name)))
      expect(ours).toEqual(theirs)
      expect(ours.parts.length).toBeGreaterThan(2)
    })
  }

  it('the request on the wire is the SDK body with stream and include_usage, the bearer key and the call headers', async () => {
    const [ours] = await both(() => sse(fixture('text')))
    expect(ours.wire).toMatchObject({
      url: '/v1/chat/completions',
      body: { model: 'm-1', stream: true, stream_options: { include_usage: true }, max_tokens: 256, temperature: 0.2, tool_choice: 'auto' },
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'x-trace': 'abc', agent: 'ai/test' },
    })
  })

  it('a body written in 7-byte pieces (multi-byte characters split) reads the same', async () => {
    const bytes = Buffer.from(fixture('text'))
    const pieces = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) => bytes.subarray(i * 7, i * 7 + 7))
    const [ours, theirs] = await both(() => ({ pieces }))
    expect(ours).toEqual(theirs)
  })

  it('raw chunks when asked, a malformed one included', async () => {
    const [ours, theirs] = await both(() => sse(fixture('malformed')), () => ({ ...options(), includeRawChunks: true }))
    expect(ours).toEqual(theirs)
    expect(ours.parts.filter((p) => (p as StreamPart).type === 'raw')).toHaveLength(5)
  })

  it("provider options under the provider's camelCase name: the same body and metadata key", async () => {
    const base = createOpenAICompatible({ name: 'my-llm', baseURL: server.baseURL, apiKey: KEY, includeUsage: true }).chatModel('m-1') as OpenAICompatibleChatLanguageModel
    const mine = new LeanChatModel(base, { name: 'my-llm', baseURL: server.baseURL, apiKey: KEY, includeUsage: true })
    const call = (): CallOptions => ({ ...options(), providerOptions: { myLlm: { user: 'u-1', reasoningEffort: 'low', custom_flag: true } } })
    const theirs = await play(base, sse(fixture('reasoning')), call())
    const ours = await play(mine, sse(fixture('reasoning')), call())
    expect(ours).toEqual(theirs)
    expect(ours.wire?.body).toMatchObject({ user: 'u-1', reasoning_effort: 'low', custom_flag: true })
    expect(ours.parts.at(-1)).toMatchObject({ type: 'finish', providerMetadata: { myLlm: { acceptedPredictionTokens: 1 } } })
  })

  for (const finish of ['content_filter', 'eos']) {
    it(`finish reason '${finish}' maps the same`, async () => {
      const [ours, theirs] = await both(() => sse(fixture('text').replace('"finish_reason":"stop"', `"finish_reason":"${finish}"`)))
      expect(ours).toEqual(theirs)
    })
  }

  it('tool-call arguments split at every point, the name first or late, several calls in one response', async () => {
    const args = '{"text":"pi\\"ng","n":[1,{}]}'
    for (let at = 0; at <= args.length; at++) {
      const stream = (lateName: boolean) => [
        chunk({ tool_calls: [{ index: 0, id: 'call_x', type: 'function', function: { ...(lateName ? {} : { name: 'echo' }), arguments: args.slice(0, at) } }] }),
        chunk({ tool_calls: [{ index: 0, function: { ...(lateName ? { name: 'echo' } : {}), arguments: args.slice(at) } }, { index: 1, id: 'call_y', function: { name: 'add', arguments: args.slice(0, at) } }] }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: args.slice(at) } }] }),
        chunk({}, 'tool_calls'),
      ].join('')
      for (const late of [false, true]) {
        const [ours, theirs] = await both(() => sse(stream(late)))
        expect(ours, `split at ${at}${late ? ', name late' : ''}`).toEqual(theirs)
      }
    }
  })
})

describe('lean model vs @ai-sdk/openai-compatible: failures', () => {
  it('HTTP errors: the same APICallError (status, message, body, data, retryable)', async () => {
    const replies: Reply[] = [
      { status: 429, contentType: 'application/json', pieces: ['{"error":{"message":"slow down","type":"rate_limit","code":"429","extra":1}}'] },
      { status: 500, contentType: 'text/plain', pieces: ['upstream exploded'] },
      { status: 503, pieces: [] },
      { status: 401, contentType: 'application/json', pieces: ['{"error":{"message":7}}'] },
    ]
    for (const reply of replies) {
      const [ours, theirs] = await both(() => reply)
      expect(ours).toEqual(theirs)
      expect(ours.thrown).toMatchObject({ name: 'AI_APICallError', statusCode: reply.status })
    }
  })

  it('a body cut short: the same retryable error after the same parts', async () => {
    const text = fixture('text').split('\n\n').slice(0, 3).map((e) => `${e}\n\n`)
    const [ours, theirs] = await both(() => ({ pieces: text, then: 'cut' }))
    expect(ours).toEqual(theirs)
    expect(ours.streamError).toMatchObject({ name: 'AI_APICallError', isRetryable: true })
  })

  it('an unreachable server: the same retryable error', async () => {
    const closed = await startReplayServer()
    await closed.close()
    const at = (model: 'sdk' | 'lean') => {
      const base = createOpenAICompatible({ name: 'fake', baseURL: closed.baseURL, apiKey: KEY, includeUsage: true }).chatModel('m-1') as OpenAICompatibleChatLanguageModel
      return model === 'sdk' ? base : new LeanChatModel(base, { name: 'fake', baseURL: closed.baseURL, apiKey: KEY, includeUsage: true })
    }
    const theirs = await play(at('sdk'), undefined)
    const ours = await play(at('lean'), undefined)
    expect(ours).toEqual(theirs)
    expect(ours.thrown).toMatchObject({ name: 'AI_APICallError', isRetryable: true })
  })

  it('an abort mid-stream: the same parts, then the same AbortError; an abort before the call rejects alike', async () => {
    const text = fixture('text').split('\n\n').slice(0, 3).map((e) => `${e}\n\n`)
    const run = async (model: LanguageModelV4) => {
      const controller = new AbortController()
      let deltas = 0
      const outcome = await play(model, { pieces: text, then: 'hang' }, { ...options(), abortSignal: controller.signal }, (part) => {
        if (part.type === 'text-delta' && ++deltas === 2) controller.abort()
      })
      const early = new AbortController()
      early.abort()
      const before = await play(model, undefined, { ...options(), abortSignal: early.signal })
      return [outcome, before.thrown]
    }
    const theirs = await run(sdk)
    const ours = await run(lean)
    expect(ours).toEqual(theirs)
    expect((ours[0] as Outcome).streamError).toMatchObject({ name: 'AbortError' })
    expect(ours[1]).toMatchObject({ name: 'AbortError' })
  })

  it("a silent server fails the call, a stalled body the stream, after the timeout (undici's, retryable)", async () => {
    const model = new LeanChatModel(sdk, { name: 'fake', baseURL: server.baseURL, apiKey: KEY, includeUsage: true, timeoutMs: 100 })
    const silent = await play(model, { pieces: [], silent: true })
    expect(silent.thrown).toMatchObject({ name: 'AI_APICallError', isRetryable: true, message: 'Cannot connect to API: Headers Timeout Error' })
    const stalled = await play(model, { pieces: fixture('text').split('\n\n').slice(0, 2).map((e) => `${e}\n\n`), then: 'hang' })
    expect(stalled.parts).toContainEqual({ type: 'text-delta', id: 'txt-0', delta: 'Hello, ' })
    expect(stalled.streamError).toMatchObject({ name: 'AI_APICallError', isRetryable: true, message: 'Failed to process successful response' })
  })

  it('generate (not streamed) is the SDK model\'s own call', async () => {
    const completion = { id: 'g-1', created: 1, model: 'm-1', choices: [{ message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1 } }
    const reply = (): Reply => ({ contentType: 'application/json', pieces: [JSON.stringify(completion)] })
    server.reply(reply())
    const theirs = await sdk.doGenerate(options())
    server.reply(reply())
    const ours = await lean.doGenerate(options())
    expect(ours.content).toEqual(theirs.content)
    expect(ours.finishReason).toEqual(theirs.finishReason)
  })
})
