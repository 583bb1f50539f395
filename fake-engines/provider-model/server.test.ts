import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeModelServer, type FakeModelServer } from './server.ts'

let server: FakeModelServer
beforeAll(async () => { server = await startFakeModelServer() })
afterAll(async () => { await server?.close() })

async function chat(body: unknown) {
  const res = await fetch(`${server.baseURL}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return res
}

async function sse(res: Response): Promise<any[]> {
  const text = await res.text()
  return text.split('\n\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).map((d) => (d === '[DONE]' ? d : JSON.parse(d)))
}

describe('fake OpenAI-compatible model server', () => {
  it('echoes a plain message without streaming', async () => {
    const res = await chat({ model: 'fake-small', messages: [{ role: 'user', content: 'hi there' }] })
    expect(res.status).toBe(200)
    const body: any = await res.json()
    expect(body.choices[0].message.content).toBe('echo: hi there')
    expect(body.choices[0].finish_reason).toBe('stop')
    expect(body.usage.total_tokens).toBeGreaterThan(0)
  })

  it('streams a named scenario in its chunks, then usage, then [DONE]', async () => {
    const res = await chat({ model: 'fake-small', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'scenario:hello' }] })
    expect(res.headers.get('content-type')).toContain('text/event-stream')
    const events = await sse(res)
    const text = events.filter((e) => e !== '[DONE]' && e.choices[0]?.delta?.content).map((e) => e.choices[0].delta.content)
    expect(text).toEqual(['Hello, ', 'world!'])
    expect(events.at(-2).usage).toEqual({ prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 })
    expect(events.at(-1)).toBe('[DONE]')
  })

  it('hands a tool call over, then plays the next leg once the result is in the conversation', async () => {
    const first: any = await (await chat({ model: 'm', messages: [{ role: 'user', content: 'scenario:tool-echo' }] })).json()
    const call = first.choices[0].message.tool_calls[0]
    expect(first.choices[0].finish_reason).toBe('tool_calls')
    expect(call.function).toEqual({ name: 'echo', arguments: '{"text":"ping"}' })
    const second: any = await (await chat({ model: 'm', messages: [
      { role: 'user', content: 'scenario:tool-echo' },
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: call.id, content: 'ping' },
    ] })).json()
    expect(second.choices[0].message.content).toBe('The tool answered.')
  })

  it('plays inline scenarios and fails with the scripted status', async () => {
    const inline: any = await (await chat({ model: 'm', messages: [{ role: 'user', content: 'scenario:{"name":"x","steps":[{"type":"text","text":"inline!"}]}' }] })).json()
    expect(inline.choices[0].message.content).toBe('inline!')
    const failed = await chat({ model: 'm', messages: [{ role: 'user', content: 'scenario:model-error' }] })
    expect(failed.status).toBe(500)
    expect(((await failed.json()) as any).error.message).toBe('the fake model is having a bad day')
  })

  it('answers bad requests with 400 and an OpenAI-style error naming the problem', async () => {
    expect((await chat({ messages: [] })).status).toBe(400)
    const unknown = await chat({ model: 'm', messages: [{ role: 'user', content: 'scenario:no-such-thing' }] })
    expect(unknown.status).toBe(400)
    expect(((await unknown.json()) as any).error.message).toBe("unknown scenario 'no-such-thing'")
    const badStep = await chat({ model: 'm', messages: [{ role: 'user', content: 'scenario:{"name":"x","steps":[{"type":"text"}]}' }] })
    expect(((await badStep.json()) as any).error.message).toMatch(/^inline scenario: step 0:/)
    const notJson = await fetch(`${server.baseURL}/chat/completions`, { method: 'POST', body: '{' })
    expect(notJson.status).toBe(400)
  })

  it('lists its models', async () => {
    const body: any = await (await fetch(`${server.baseURL}/models`)).json()
    expect(body.data.map((m: { id: string }) => m.id)).toEqual(['fake-small', 'fake-large'])
  })
})
