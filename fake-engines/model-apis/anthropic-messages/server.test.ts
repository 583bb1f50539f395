/**
 * The fake Anthropic Messages API on its own (the real CLI's tests skip when the CLI cannot be
 * installed; these never do): SSE event order, tool use by leg, the last *user* message selects,
 * adjacent text steps are one answer, and the prompt after an interrupt is played.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { startFakeAnthropicServer, type FakeAnthropicServer } from './server.ts'

let api: FakeAnthropicServer | undefined
afterEach(async () => { await api?.close() })

/** Polls until `ready` holds (fake-engines import nothing from gateway/, so not its test harness). */
async function waitFor(ready: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const TOOLS = [{ name: 'Bash', input_schema: { type: 'object' } }]

async function sse(body: unknown): Promise<Array<{ event: string; data: any }>> {
  const res = await fetch(`${api!.url}/v1/messages?beta=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  expect(res.headers.get('content-type')).toBe('text/event-stream')
  return (await res.text()).trim().split('\n\n').map((chunk) => {
    const [event, data] = chunk.split('\n')
    return { event: event.slice('event: '.length), data: JSON.parse(data.slice('data: '.length)) }
  })
}

describe('fake Anthropic Messages API', () => {
  it('streams a text scenario as the real API does, acting on the last user message despite an appended system message', async () => {
    api = await startFakeAnthropicServer()
    const events = await sse({ model: 'claude-x', stream: true, tools: TOOLS, messages: [
      { role: 'user', content: [{ type: 'text', text: '<system-reminder>context</system-reminder>' }, { type: 'text', text: 'scenario:hello' }] },
      { role: 'system', content: 'Primary working directory: /work' },
    ] })
    // hello's two text steps are one answer in two deltas (each step's chunk size), as on the provider fake.
    expect(events.map((e) => e.event)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop'])
    expect(events.filter((e) => e.event === 'content_block_delta').map((e) => e.data.delta.text)).toEqual(['Hello, ', 'world!'])
    expect(events.find((e) => e.event === 'message_delta')!.data).toMatchObject({ delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 4 } })
    const whole = await fetch(`${api.url}/v1/messages`, { method: 'POST', body: JSON.stringify({ tools: TOOLS, messages: [{ role: 'user', content: 'scenario:hello' }] }) })
    expect(((await whole.json()) as { content: unknown }).content).toEqual([{ type: 'text', text: 'Hello, world!' }])
  })

  it('plays the first prompt after an interrupted streaming request, which the CLI sends in one user message with the interrupted one', async () => {
    api = await startFakeAnthropicServer()
    const aborted = new AbortController()
    const hanging = fetch(`${api.url}/v1/messages?beta=true`, { method: 'POST', body: JSON.stringify({ stream: true, tools: TOOLS, messages: [{ role: 'user', content: 'scenario:hang' }] }), signal: aborted.signal })
    await waitFor(() => api!.requests.length === 1, 'the hanging request reached the API')
    aborted.abort()
    await expect(hanging).rejects.toThrow()
    const text = (events: Array<{ event: string; data: any }>) => events.filter((e) => e.event === 'content_block_delta').map((e) => e.data.delta.text).join('')
    const next = await sse({ stream: true, tools: TOOLS, messages: [{ role: 'user', content: [
      { type: 'text', text: 'scenario:hang' }, { type: 'text', text: '[Request interrupted by user]' },
      { type: 'text', text: 'scenario:hello' }, { type: 'text', text: '<system-reminder>context</system-reminder>' },
    ] }] })
    expect(text(next)).toBe('Hello, world!')
    // Interrupted at a permission prompt: the refused call's result and the marker come first.
    const afterTool = await sse({ stream: true, tools: TOOLS, messages: [
      { role: 'user', content: 'scenario:touch' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'The user doesn\'t want to proceed', is_error: true },
        { type: 'text', text: '[Request interrupted by user for tool use]' }, { type: 'text', text: 'scenario:hello' }] },
    ] })
    expect(text(afterTool)).toBe('Hello, world!')
  })

  it('plays a tool leg, then the next leg once the tool result is in', async () => {
    api = await startFakeAnthropicServer()
    const first = await sse({ stream: true, tools: TOOLS, messages: [{ role: 'user', content: 'scenario:touch' }] })
    const start = first.find((e) => e.event === 'content_block_start')!.data
    expect(start.content_block).toMatchObject({ type: 'tool_use', name: 'Bash' })
    expect(JSON.parse(first.find((e) => e.event === 'content_block_delta')!.data.delta.partial_json)).toEqual({ command: 'touch touched.txt', description: 'Create touched.txt' })
    expect(first.find((e) => e.event === 'message_delta')!.data.delta.stop_reason).toBe('tool_use')
    const second = await sse({ stream: true, tools: TOOLS, messages: [
      { role: 'user', content: 'scenario:touch' },
      { role: 'assistant', content: [{ type: 'tool_use', id: start.content_block.id, name: 'Bash', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: start.content_block.id, content: '' }] },
    ] })
    expect(second.filter((e) => e.event === 'content_block_delta').map((e) => e.data.delta.text).join('')).toBe('Touched.')
  })

  it('answers count_tokens and unknown paths 404, a failing scenario with its status, side calls without tools with text', async () => {
    api = await startFakeAnthropicServer()
    expect((await fetch(`${api.url}/v1/messages/count_tokens`, { method: 'POST', body: '{}' })).status).toBe(404)
    const failed = await fetch(`${api.url}/v1/messages`, { method: 'POST', body: JSON.stringify({ tools: TOOLS, messages: [{ role: 'user', content: 'scenario:model-error' }] }) })
    expect(failed.status).toBe(500)
    expect(await failed.json()).toEqual({ type: 'error', error: { type: 'api_error', message: 'the fake model is having a bad day' } })
    const side = await fetch(`${api.url}/v1/messages`, { method: 'POST', body: JSON.stringify({ messages: [{ role: 'user', content: 'scenario:touch' }] }) })
    expect(((await side.json()) as { content: unknown }).content).toEqual([{ type: 'text', text: 'ok' }])
    expect(api.requests.map((r) => r.path)).toEqual(['/v1/messages/count_tokens', '/v1/messages', '/v1/messages'])
  })
})
