import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeModelServer, type FakeModelServer } from './server.ts'

// The fake model reads the tools the gateway sends and fills the scenario's intent into them,
// so a target with its own tool names and argument shapes still receives the intent.
let server: FakeModelServer
let named: FakeModelServer
beforeAll(async () => {
  server = await startFakeModelServer()
  named = await startFakeModelServer({ toolNames: { eval_script: 'run_js' } })
})
afterAll(async () => { await server?.close(); await named?.close() })

const fn = (name: string, parameters: object, description?: string) => ({ type: 'function', function: { name, description, parameters } })

async function firstCall(base: FakeModelServer, prompt: string, tools?: object[], stream = false) {
  const res = await fetch(`${base.baseURL}/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'fake-small', stream, messages: [{ role: 'user', content: prompt }], ...(tools ? { tools } : {}) }),
  })
  expect(res.status).toBe(200)
  if (!stream) {
    const call = ((await res.json()) as any).choices[0].message.tool_calls[0].function
    return { name: call.name as string, args: JSON.parse(call.arguments) }
  }
  const chunks = (await res.text()).split('\n\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6)))
  const call = chunks.map((c) => c.choices?.[0]?.delta?.tool_calls?.[0]).find(Boolean).function
  return { name: call.name as string, args: JSON.parse(call.arguments) }
}

describe('the fake model fills the scenario intent into the target\'s tool schemas', () => {
  it('puts eval\'s code into a tool whose single required string property is named `script`', async () => {
    const tools = [fn('eval_script', { type: 'object', properties: { script: { type: 'string' }, input: {} }, required: ['script'] })]
    for (const stream of [false, true]) {
      const call = await firstCall(server, 'scenario:eval', tools, stream)
      expect(call).toEqual({ name: 'eval_script', args: { script: 'input.a * input.b', input: { a: 6, b: 7 } } })
    }
  })

  it('matches a property by its description when the names differ', async () => {
    const tools = [fn('deliver_file', { type: 'object', additionalProperties: false, properties: {
      filename: { type: 'string', description: 'The path of the file in the scratch filesystem' },
      body: { type: 'string', description: 'The file content' },
    }, required: ['filename'] })]
    const call = await firstCall(server, 'scenario:deliver', tools)
    expect(call).toEqual({ name: 'deliver_file', args: { filename: 'report.md', body: '# Report\n\nAll good.\n' } })
  })

  it('finds an MCP tool under another prefix than protocol 7\'s mcp__<server>__', async () => {
    const scenario = { name: 'mcp', steps: [{ type: 'tool', name: 'mcp__fake__lookup', input: { query: 'first' } }, { type: 'text', text: 'ok' }] }
    const tools = [fn('eval_script', { type: 'object', properties: { code: { type: 'string' } } }), fn('fake.lookup', { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] })]
    expect(await firstCall(server, `scenario:${JSON.stringify(scenario)}`, tools)).toEqual({ name: 'fake.lookup', args: { q: 'first' } })
    // A shorter tool name is no match: `deliver_file` never lands on a tool called `file`.
    expect((await firstCall(server, 'scenario:deliver', [fn('file', { type: 'object', properties: { path: { type: 'string' } } })])).name).toBe('deliver_file')
  })

  it('matches a property written in another case style', async () => {
    const scenario = { name: 'peer', steps: [{ type: 'tool', name: 'peers_send', input: { sessionId: 's2', text: 'hello peer' } }, { type: 'text', text: 'ok' }] }
    const tools = [fn('peers_send', { type: 'object', properties: { session_id: { type: 'string' }, message: { type: 'string', description: 'The text to send' } }, required: ['session_id', 'message'] })]
    expect(await firstCall(server, `scenario:${JSON.stringify(scenario)}`, tools)).toEqual({ name: 'peers_send', args: { session_id: 's2', message: 'hello peer' } })
  })

  it('uses a named mapping for a tool neither name nor suffix finds', async () => {
    const tools = [fn('run_js', { type: 'object', properties: { source: { type: 'string' }, input: {} }, required: ['source'] })]
    expect(await firstCall(named, 'scenario:eval', tools)).toEqual({ name: 'run_js', args: { source: 'input.a * input.b', input: { a: 6, b: 7 } } })
    // Without the mapping the intent goes out unchanged, so the target reports an unknown tool.
    expect(await firstCall(server, 'scenario:eval', tools)).toEqual({ name: 'eval_script', args: { code: 'input.a * input.b', input: { a: 6, b: 7 } } })
  })

  it('sends our own shapes unchanged to a target whose tools already match them', async () => {
    const tools = [fn('eval_script', { type: 'object', properties: { code: { type: 'string' }, input: {} }, required: ['code'] })]
    expect(await firstCall(server, 'scenario:eval', tools)).toEqual({ name: 'eval_script', args: { code: 'input.a * input.b', input: { a: 6, b: 7 } } })
    expect(await firstCall(server, 'scenario:tool-echo', tools)).toEqual({ name: 'echo', args: { text: 'ping' } })
  })
})
