/**
 * The tool variations' round trip: the fake model, offered the tools as another gateway defines
 * them (tool-shapes.ts), binds each scenario intent through those definitions, and the call maps
 * back to exactly the call our gateway's own tool takes.
 */
import { describe, expect, it } from 'vitest'
import { bindCall, toolsOf } from '../../fake-engines/provider-model/tool-binding.ts'
import { fromModel, toModel } from '../variants/tool-shapes.ts'

const fn = (name: string, properties: Record<string, object>, required: string[] = []) => ({ type: 'function', function: { name, description: name, parameters: { type: 'object', properties, required } } })
/** Our gateway's provider tools as its engine offers them to the model. */
const GATEWAY_TOOLS = [
  fn('eval_script', { code: { type: 'string' }, input: {} }, ['code']),
  fn('web_fetch', { url: { type: 'string' } }, ['url']),
  fn('download', { url: { type: 'string' }, path: { type: 'string' } }, ['url', 'path']),
  fn('deliver_file', { path: { type: 'string' }, content: { type: 'string' } }, ['path']),
  fn('peers_send', { sessionId: { type: 'string' }, text: { type: 'string' } }, ['sessionId', 'text']),
  fn('peers_peek', { sessionId: { type: 'string' }, limit: { type: 'number' } }, ['sessionId']),
  fn('deferred_task', {}),
  fn('mcp__docs__lookup', { query: { type: 'string' } }, ['query']),
]
const offered = GATEWAY_TOOLS.map((t) => t.function.name)

function roundTrip(intent: { name: string; input: Record<string, unknown> }, o: { reshape: boolean; handover: boolean }) {
  const call = bindCall(intent, toolsOf(GATEWAY_TOOLS.map((t) => toModel(t, o))))
  return { call, back: fromModel(call.name, call.input, offered, o) }
}

describe('the fake model binds the reshaped tools, and the calls map back', () => {
  const o = { reshape: true, handover: false }
  it.each([
    [{ name: 'eval_script', input: { code: '6 * 7' } }, { name: 'eval_script', args: { code: '6 * 7' } }, 'source'],
    [{ name: 'web_fetch', input: { url: 'http://x.test/' } }, { name: 'web_fetch', args: { url: 'http://x.test/' } }, 'address'],
    [{ name: 'download', input: { url: 'http://x.test/a', path: '/a' } }, { name: 'download', args: { url: 'http://x.test/a', path: '/a' } }, 'save_as'],
    [{ name: 'peers_send', input: { sessionId: 's1', text: 'hi' } }, { name: 'peers_send', args: { sessionId: 's1', text: 'hi' } }, 'recipient'],
    [{ name: 'peers_peek', input: { sessionId: 's1' } }, { name: 'peers_peek', args: { sessionId: 's1' } }, 'peer'],
    [{ name: 'deferred_task', input: {} }, { name: 'deferred_task', args: {} }, undefined],
    [{ name: 'lookup', input: { query: 'q' } }, { name: 'mcp__docs__lookup', args: { query: 'q' } }, undefined],
  ] as const)('%o', (intent, expected, reshapedArg) => {
    const { call, back } = roundTrip({ name: intent.name, input: { ...intent.input } }, o)
    if (reshapedArg) expect(Object.keys(call.input)).toContain(reshapedArg)
    expect(call.name).not.toMatch(/^mcp__/)
    expect(back).toEqual(expected)
  })
  it('names host and MCP tools otherwise', () => {
    expect(roundTrip({ name: 'deferred_task', input: {} }, o).call.name).toBe('ext_deferred_task')
    expect(roundTrip({ name: 'lookup', input: { query: 'q' } }, o).call.name).toBe('docs-lookup')
  })
  it('hands over an existing file: deliver_file takes no content', () => {
    const { call, back } = roundTrip({ name: 'deliver_file', input: { path: '/out/a.md', content: 'text' } }, { reshape: false, handover: true })
    expect(call).toEqual({ name: 'deliver_file', input: { file_path: '/out/a.md' } })
    expect(back).toEqual({ name: 'deliver_file', args: { path: '/out/a.md' } })
  })
})
