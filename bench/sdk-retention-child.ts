/**
 * The AI SDK alone, no gateway (bench/README.md § Memory returned): `streamText` calls (or plain
 * `fetch` calls, argv[3] = 'fetch'; with the gateway's shared tool set, 'tools') against the fake model server at argv[2]; heap and resident
 * memory after an ordinary full gc, before and after argv[4] calls, then after a last-resort gc.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { streamText } from 'ai'
import { sharedTools, toolSetOf } from '../gateway/engines/provider/tools.ts'

const gc = (globalThis as { gc?: (options?: object) => void }).gc
if (!gc) throw new Error('run with --expose-gc')
const [baseURL, mode, calls] = [process.argv[2], process.argv[3], Number(process.argv[4] ?? 1000)]
const tools = mode === 'tools' ? toolSetOf(sharedTools({}, ['deliver_file'], true)) : undefined
const provider = createOpenAICompatible({ name: 'fake', baseURL, includeUsage: true })
const usage = () => {
  const { heapUsed, rss } = process.memoryUsage()
  return `heap ${(heapUsed / 1e6).toFixed(1)} MB, rss ${(rss / 1e6).toFixed(1)} MB`
}
const measure = async (lastResort = false) => {
  for (let i = 0; i < 4; i++) {
    await new Promise((r) => setTimeout(r, 50))
    gc({ type: 'major', execution: 'sync', flavor: lastResort ? 'last-resort' : 'regular' }) // never gc(undefined): a young-generation gc only
  }
  return usage()
}
const call = async () => {
  const abort = new AbortController()
  if (mode === 'fetch') {
    const body = JSON.stringify({ model: 'fake-small', stream: true, messages: [{ role: 'user', content: 'hello' }] })
    await (await fetch(`${baseURL}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: abort.signal })).text()
    return
  }
  const result = streamText({ model: provider.chatModel('fake-small'), messages: [{ role: 'user', content: 'hello' }], abortSignal: abort.signal, tools, onError: () => {} })
  for await (const _ of result.stream) { /* drained as the runner drains it */ }
}
for (let i = 0; i < 400; i++) await call() // warm-up
console.log(`before ${calls} calls, ordinary gc:   ${await measure()}`)
for (let i = 0; i < calls; i++) await call()
console.log(`after, ordinary gc:              ${await measure()}`)
console.log(`after, last-resort gc:           ${await measure(true)}`)
