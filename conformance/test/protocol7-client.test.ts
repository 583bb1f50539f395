/**
 * Our gateway driven by agent-session-client (client/), the protocol-7 client the kit's
 * compatibility cases use, through every flow where
 * protocol 7 fixes a shape the spec leaves open: a bridged tool answered with
 * `output: {type:'json', value:42}` reaching the model as the value, permissions answered over the
 * WebSocket and over REST by the request's `id`, a deny carrying its message, and live text rebuilt
 * from raw `stream_delta` events equal to the turn's final text, on both engines that stream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTranscript, GatewayClient, streamedText, type SessionHandle } from '../../client/index.ts'
import { startSelfTarget, type SelfTarget } from '../target/self.ts'

let target: SelfTarget
let client: GatewayClient
const connections: SessionHandle[] = []
const WAIT = { timeoutMs: 15_000 }

beforeAll(async () => {
  target = await startSelfTarget()
  client = new GatewayClient({ baseUrl: target.manifest.baseUrl, token: target.manifest.tokens.operator })
}, 60_000)
afterAll(async () => {
  for (const c of connections) c.detach()
  await target?.close()
})

async function open(body: Record<string, unknown>): Promise<{ id: string; conn: SessionHandle }> {
  const session = await client.createSession(body)
  const conn = await client.attach(session.id)
  connections.push(conn)
  await conn.waitForEvent('status_changed', { afterSeq: 0, where: (e) => e.status === 'idle', ...WAIT })
  return { id: session.id, conn }
}

/** The turn's text rebuilt from raw stream deltas, and as its assistant message carries it. */
function liveAndFinal(conn: SessionHandle): { live: string; final: string } {
  const live = conn.events.map((e) => (e.type === 'stream_delta' && e.parentToolUseId == null ? streamedText(e.event) ?? '' : '')).join('')
  const assistant = buildTranscript(conn.events).rows.filter((r) => r.kind === 'assistant')
  return { live, final: assistant.map((r) => (r.kind === 'assistant' ? r.text : '')).join('') }
}

const provider = () => ({ profile: target.manifest.profiles.provider })
const primary = () => ({ profile: target.manifest.profiles.cli_primary, cwd: target.manifest.cwdRoot })

describe('a protocol-7 client against our gateway', () => {
  it('answers a bridged tool with output {type:json, value:42}: the model receives 42, execution_result keeps the typed output', async () => {
    const { conn } = await open(provider())
    conn.onToolCall((request) => {
      expect(request).toMatchObject({ toolName: 'client_eval', input: { code: '6 * 7' } })
      return { output: { type: 'json', value: 42 }, logs: ['evaluated'] }
    })
    conn.sendMessage('scenario:bridge')
    const result = await conn.waitForTurn(WAIT)
    expect(result.result).toBe('The client answered: 42')
    expect(await conn.waitForEvent('execution_result', { afterSeq: 0 })).toMatchObject({ output: { type: 'json', value: 42 }, logs: ['evaluated'] })
    expect(await conn.waitForEvent('execution_dispatched', { afterSeq: 0 })).toMatchObject({ toolName: 'client_eval', backend: 'browser' })
    expect(conn.frames.some((f) => f.type === 'protocol_error')).toBe(false)
  })

  it('answers a bridged tool with a text output and with tool_call_error {reason, error}', async () => {
    const { conn } = await open(provider())
    let calls = 0
    conn.onToolCall(() => (++calls === 1 ? { output: { type: 'text', value: 'forty-two' } } : { reason: 'unsupported', error: 'no sandbox in this tab' }))
    conn.sendMessage('scenario:bridge')
    expect((await conn.waitForTurn(WAIT)).result).toBe('The client answered: "forty-two"')
    conn.sendMessage('scenario:bridge')
    expect((await conn.waitForTurn(WAIT)).result).toBe('The client answered: unsupported: no sandbox in this tab')
    expect(await conn.waitForEvent('execution_failed', { afterSeq: 0 })).toMatchObject({ reason: 'unsupported', error: 'no sandbox in this tab' }) // the bare error, as protocol 7 sends it
  })

  it('answers a permission over the WebSocket by its id: resolvedBy client, the edited input runs', async () => {
    const { id, conn } = await open(primary())
    conn.sendMessage('scenario:permission')
    const request = await conn.nextPermission(WAIT)
    expect(typeof request.id).toBe('string')
    expect(request).toMatchObject({ toolName: 'Bash', input: { command: 'echo hello' }, toolUseId: expect.any(String) })
    expect((await client.getSession(id)).pendingPermissionCount).toBe(1)
    conn.decide(request, { behavior: 'allow', updatedInput: { command: 'echo edited' } })
    expect(await conn.waitForEvent('permission_resolved', WAIT)).toMatchObject({ requestId: request.id, behavior: 'allow', resolvedBy: 'client' })
    expect((await conn.waitForTurn({ afterSeq: 0, ...WAIT })).result).toContain('echo edited')
  })

  it('answers a permission over REST by its id, and a deny carries its message on permission_resolved', async () => {
    const { id, conn } = await open(primary())
    conn.sendMessage('scenario:permission')
    const first = await conn.nextPermission(WAIT)
    // The resolution may reach the socket before the REST answer does: wait from before the answer.
    const asked = conn.lastSeq
    expect(await client.resolvePermission(id, first, { behavior: 'allow' })).toEqual({ resolved: true })
    expect(await conn.waitForEvent('permission_resolved', { afterSeq: asked, ...WAIT })).toMatchObject({ requestId: first.id, resolvedBy: 'client' })
    await conn.waitForTurn({ afterSeq: 0, ...WAIT })

    // Each wait starts after the last seq seen: no hand-kept seq is needed for the second request.
    conn.sendMessage('scenario:permission')
    const second = await conn.nextPermission(WAIT)
    expect(second.id).not.toBe(first.id)
    conn.deny(second, { message: 'not today' })
    const denied = await conn.waitForEvent('permission_resolved', { where: (e) => e.requestId === second.id, ...WAIT })
    expect(denied).toMatchObject({ behavior: 'deny', resolvedBy: 'client', message: 'not today' })
    expect((await conn.waitForTurn({ afterSeq: denied.seq, ...WAIT })).result).toBe('Tool said: not today')
    // Answered once: a second answer by the same id is a 404.
    await expect(client.resolvePermission(id, second, { behavior: 'allow' })).rejects.toMatchObject({ status: 404 })
  })

  it('rebuilds live text from raw stream_delta events equal to the final text (provider engine)', async () => {
    const { conn } = await open({ ...provider(), includePartialMessages: true })
    conn.sendMessage('scenario:long-text')
    await conn.waitForTurn(WAIT)
    const turn = liveAndFinal(conn)
    expect(turn.final.length).toBeGreaterThan(20)
    expect(turn.live).toBe(turn.final)
    const delta = conn.events.find((e) => e.type === 'stream_delta' && (e as any).event.type === 'content_block_delta') as any
    expect(delta).toMatchObject({ parentToolUseId: null, uuid: expect.any(String), event: { index: 0, delta: { type: 'text_delta', text: expect.any(String) } } })
  })

  it('rebuilds live text from raw stream_delta events equal to the final text (cli_primary engine)', async () => {
    const { conn } = await open({ ...primary(), includePartialMessages: true })
    conn.sendMessage('scenario:hello')
    await conn.waitForTurn(WAIT)
    const turn = liveAndFinal(conn)
    expect(turn.final).toBe('Hello, world!')
    expect(turn.live).toBe(turn.final)
  })
})
