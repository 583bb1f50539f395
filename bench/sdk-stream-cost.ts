/**
 * The AI SDK's own CPU per streamed delta, without the gateway: the fake model server in
 * its own process, this process consuming one call's stream through each layer the provider runner
 * could use, and reporting this process's CPU per delta. It tells what floor the SDK leaves to the
 * gateway's share; `leanDoStream` and `leanCall` are the gateway's lean OpenAI-compatible model
 * (lean-model/) alone and under the SDK's model call, `leanRunnerCall` the runner's call on it
 * (turn.ts openModelCall: lean-call.ts, no web streams), beside the SDK model's `doStream` and
 * `streamLanguageModelCall`. `npx tsx bench/sdk-stream-cost.ts [deltas] [--paced] [--streams N] [layer…]`
 * (`--streams N`: N calls at once, as a loaded gateway runs them, so wake-ups are shared).
 */
import { createOpenAICompatible, OpenAICompatibleChatLanguageModel } from '@ai-sdk/openai-compatible'
import { experimental_streamLanguageModelCall, experimental_streamTextLowMemory, streamText } from 'ai'
import { request } from 'node:http'
import { loadavg } from 'node:os'
import { LeanChatModel } from '../gateway/engines/provider/lean-model/lean-chat-model.ts'
import { openModelCall } from '../gateway/engines/provider/turn.ts'
import { startModelProcess } from './operator-gateway.ts'
import { pacedScenario, unpacedScenario } from './stream-client.ts'

const deltas = Number(process.argv.find((a, i) => /^\d+$/.test(a) && process.argv[i - 1] !== '--streams') ?? 5000)
const paced = process.argv.includes('--paced')
const streamsAt = process.argv.indexOf('--streams')
const streams = streamsAt >= 0 ? Number(process.argv[streamsAt + 1]) : 1
const model = await startModelProcess()
const provider = createOpenAICompatible({ name: 'fake', baseURL: model.baseURL, includeUsage: true })
// The gateway's lean model for the same wire (the default client of openai-compatible profiles).
const lean = new LeanChatModel(provider.chatModel('fake-small') as OpenAICompatibleChatLanguageModel, { name: 'fake', baseURL: model.baseURL, includeUsage: true })
const text = paced ? pacedScenario(deltas) : unpacedScenario(deltas)
const messages = [{ role: 'user' as const, content: text }]

type Layer = 'streamText' | 'streamTextLowMemory' | 'streamLanguageModelCall' | 'doStream' | 'leanCall' | 'leanRunnerCall' | 'leanDoStream' | 'fetch' | 'http'
async function consume(layer: Layer): Promise<number> {
  let seen = 0
  if (layer === 'http') {
    // No SDK at all: node:http reading the SSE bytes, each read's events counted (the floor of
    // any Node process that reads this stream).
    const body = JSON.stringify({ model: 'fake-small', stream: true, messages: [{ role: 'user', content: text }] })
    return new Promise<number>((resolve, reject) => {
      const req = request(`${model.baseURL}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        res.on('data', (chunk: Buffer) => { for (let at = chunk.indexOf('"content":'); at >= 0; at = chunk.indexOf('"content":', at + 1)) seen++ })
        res.on('end', () => resolve(seen - 1))
      })
      req.on('error', reject)
      req.end(body)
    })
  }
  if (layer === 'fetch') {
    // undici's fetch alone, its body read as a web stream, no SDK.
    const res = await fetch(`${model.baseURL}/chat/completions`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake-small', stream: true, messages: [{ role: 'user', content: text }] }),
    })
    const reader = res.body!.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      const chunk = Buffer.from(value.buffer, value.byteOffset, value.byteLength)
      for (let at = chunk.indexOf('"content":'); at >= 0; at = chunk.indexOf('"content":', at + 1)) seen++
    }
    return seen - 1
  }
  if (layer === 'doStream' || layer === 'leanDoStream') {
    const chat = layer === 'doStream' ? provider.chatModel('fake-small') : lean
    const { stream } = await chat.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text }] }] })
    const reader = stream.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      if (value.type === 'text-delta') seen++
    }
    return seen
  }
  if (layer === 'leanRunnerCall') {
    // The call the provider runner makes per leg on the lean model (turn.ts openModelCall: lean-call.ts, no web streams).
    const { stream } = await openModelCall({ model: lean, messages, abortSignal: new AbortController().signal })
    for await (const part of stream) if (part.type === 'text-delta') seen++
    return seen
  }
  if (layer === 'streamLanguageModelCall' || layer === 'leanCall') {
    // The call the provider runner makes per leg (turn.ts), on the SDK's model or on the lean one.
    const chat = layer === 'leanCall' ? lean : provider.chatModel('fake-small')
    const { stream } = await experimental_streamLanguageModelCall({ model: chat, messages })
    for await (const part of stream) if (part.type === 'text-delta') seen++
    return seen
  }
  const run = layer === 'streamText' ? streamText : experimental_streamTextLowMemory
  const result = run({ model: provider.chatModel('fake-small'), messages, maxRetries: 0, onError: () => {} })
  for await (const part of result.stream) if (part.type === 'text-delta') seen++
  return seen
}

const only = process.argv.filter((a) => ['streamText', 'streamTextLowMemory', 'streamLanguageModelCall', 'doStream', 'leanCall', 'leanRunnerCall', 'leanDoStream', 'fetch', 'http'].includes(a)) as Layer[]
const layers: Layer[] = only.length ? only : ['streamText', 'streamTextLowMemory', 'streamLanguageModelCall', 'doStream']
for (const layer of [...layers, ...layers]) {
  await consume(layer) // warm-up of this layer
  const before = process.cpuUsage()
  const seen = (await Promise.all(Array.from({ length: streams }, () => consume(layer)))).reduce((a, b) => a + b, 0)
  const used = process.cpuUsage(before)
  console.log(`${layer.padEnd(20)} ${((used.user + used.system) / seen).toFixed(1)} µs/delta (${seen} deltas${paced ? ', paced' : ''}, ${streams} at once; load ${loadavg()[0].toFixed(1)})`)
}
await model.close()
