/**
 * The fake Responses API streams what codex reads (§13): items, text deltas, escalated exec_command
 * calls, usage; adjacent text steps are one message; the prompt after an interrupt is played.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { startFakeResponsesServer, type FakeResponsesServer } from './server.ts'

const servers: FakeResponsesServer[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close()
})

async function post(server: FakeResponsesServer, input: unknown[], extra: Record<string, unknown> = {}): Promise<Array<Record<string, any>>> {
  const res = await fetch(`${server.baseURL}/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', input, stream: true, ...extra }) })
  expect(res.headers.get('content-type')).toBe('text/event-stream')
  return (await res.text()).split('\n\n').filter(Boolean).map((block) => JSON.parse(block.split('\n').find((l) => l.startsWith('data: '))!.slice(6)))
}

const user = (...texts: string[]) => ({ type: 'message', role: 'user', content: texts.map((text) => ({ type: 'input_text', text })) })
const TURN_ABORTED = '<turn_aborted>\nThe user interrupted the previous turn on purpose.\n</turn_aborted>'
const streamedText = (events: Array<Record<string, any>>) => events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join('')

/** Polls until `ready` holds (fake-engines import nothing from gateway/, so not its test harness). */
async function waitFor(ready: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe('fake OpenAI Responses API', () => {
  it('plays a text scenario as deltas and message items, with the scenario usage on response.completed', async () => {
    const server = await startFakeResponsesServer()
    servers.push(server)
    const events = await post(server, [user('<environment_context>x</environment_context>'), user('scenario:hello')])
    expect(events[0].type).toBe('response.created')
    expect(events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta)).toEqual(['Hello, ', 'world!'])
    // hello's two text steps are one answer, one message item, as on the provider fake: codex's result is the whole text.
    const items = events.filter((e) => e.type === 'response.output_item.done').map((e) => e.item)
    expect(items).toEqual([expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: 'Hello, world!' })] })])
    expect(events.filter((e) => e.type === 'response.output_item.added')).toHaveLength(1)
    expect(events.at(-1)).toMatchObject({ type: 'response.completed', response: { usage: { input_tokens: 12, output_tokens: 4 }, output: items } })
    expect(server.requests).toHaveLength(1)
  })

  it('plays the first prompt after an interrupted streaming request, whether the interrupt marker has a message of its own or shares the prompt\'s', async () => {
    const server = await startFakeResponsesServer()
    servers.push(server)
    const aborted = new AbortController()
    const hanging = fetch(`${server.baseURL}/responses`, { method: 'POST', body: JSON.stringify({ model: 'm', stream: true, input: [user('scenario:hang')] }), signal: aborted.signal })
    await waitFor(() => server.requests.length === 1, 'the hanging request reached the API')
    aborted.abort()
    await expect(hanging).rejects.toThrow()
    expect(streamedText(await post(server, [user('scenario:hang'), user(TURN_ABORTED), user('scenario:hello')]))).toBe('Hello, world!')
    expect(streamedText(await post(server, [user('scenario:hang'), user(TURN_ABORTED, 'scenario:hello')]))).toBe('Hello, world!')
    expect(streamedText(await post(server, [user('scenario:hang'), user('scenario:hello', '<environment_context>x</environment_context>')]))).toBe('Hello, world!')
  })

  it('a command is an escalated exec_command; the next leg follows its output; a patch is an apply_patch heredoc', async () => {
    const server = await startFakeResponsesServer()
    servers.push(server)
    const first = await post(server, [user('scenario:permission')])
    const call = first.find((e) => e.type === 'response.output_item.done')!.item
    expect(call).toMatchObject({ type: 'function_call', name: 'exec_command' })
    expect(JSON.parse(call.arguments)).toMatchObject({ cmd: 'echo hello', sandbox_permissions: 'require_escalated' })
    const second = await post(server, [user('scenario:permission'), call, { type: 'function_call_output', call_id: call.call_id, output: 'hello' }])
    expect(second.find((e) => e.type === 'response.output_item.done')!.item.content[0].text).toBe('Tool said: hello')
    const patch = (await post(server, [user('scenario:write-file')])).find((e) => e.type === 'response.output_item.done')!.item
    expect(JSON.parse(patch.arguments).cmd).toContain('*** Add File: notes.md\n+# Notes')
  })

  it("answers codex's reviewer call with an allow verdict, and a model failure with an HTTP error", async () => {
    const server = await startFakeResponsesServer()
    servers.push(server)
    const review = await post(server, [user('review this')], { text: { format: { type: 'json_schema', name: 'verdict', schema: {} } } })
    expect(JSON.parse(review.find((e) => e.type === 'response.output_item.done')!.item.content[0].text)).toMatchObject({ outcome: 'allow' })
    const res = await fetch(`${server.baseURL}/responses`, { method: 'POST', body: JSON.stringify({ input: [user('scenario:model-error')] }) })
    expect(res.status).toBe(500)
  })
})
