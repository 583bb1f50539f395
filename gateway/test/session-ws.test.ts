import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestGateway, type TestGateway } from './harness.ts'

let gw: TestGateway
beforeAll(async () => { gw = await startTestGateway({ disableBypassPermissions: true }) })
afterAll(async () => { await gw?.close() })

async function idleSession(body: Record<string, unknown> = {}) {
  const session = await gw.createSession(body)
  const socket = await gw.attach(session.id)
  await socket.waitForEvent('status_changed', (e) => e.status === 'idle')
  return { session, socket }
}

describe('attach and replay (websocket-framing.1)', () => {
  it('sends attached first with protocol 7, the session and replayingFrom', async () => {
    const { session, socket } = await idleSession()
    const [first] = socket.frames
    expect(first).toMatchObject({ type: 'attached', protocolVersion: 7, replayingFrom: 0 })
    expect((first as any).session.id).toBe(session.id)
    socket.close()
  })

  it('moves starting → running → idle over a text turn and numbers events from 1', async () => {
    const { socket } = await idleSession()
    socket.send({ type: 'user_message', text: 'hello there' })
    const result = await socket.waitForEvent('turn_result')
    expect(result.isError).toBe(false)
    await socket.waitForEvent('status_changed', (e) => e.status === 'idle' && e.seq > result.seq)
    const events = socket.events()
    expect(events[0].seq).toBe(1)
    events.forEach((e, i) => { if (i) expect(e.seq).toBe(events[i - 1].seq + 1) })
    const statuses = events.filter((e) => e.type === 'status_changed').map((e) => e.status)
    expect(statuses.slice(0, 1)).toEqual(['idle'])
    expect(statuses).toContain('running')
    expect(events.find((e) => e.type === 'assistant_message').message.content[0].text).toContain('hello there')
    socket.close()
  })

  it('replays only events with seq greater than afterSeq', async () => {
    const { session, socket } = await idleSession({ prompt: 'first' })
    await socket.waitForEvent('turn_result')
    const lastSeq = socket.events().at(-1).seq
    socket.close()
    const again = await gw.attach(session.id, { afterSeq: 3 })
    await again.waitFor((f) => f.type === 'event' && f.event.seq === lastSeq)
    expect((again.frames[0] as any).replayingFrom).toBe(3)
    expect(again.events().map((e) => e.seq)).toEqual(Array.from({ length: lastSeq - 3 }, (_, i) => i + 4))
    again.close()
  })

  it('keeps activityCount monotonic as rows accumulate', async () => {
    const { session, socket } = await idleSession()
    socket.send({ type: 'user_message', text: 'one' })
    await socket.waitForEvent('turn_result')
    const after1 = (await gw.request('GET', `/sessions/${session.id}`)).body.session.activityCount
    socket.send({ type: 'user_message', text: 'two' })
    await socket.waitForEvent('turn_result', (e) => e.numTurns === 2)
    const after2 = (await gw.request('GET', `/sessions/${session.id}`)).body.session.activityCount
    expect(after1).toBe(3) // user message, assistant text, turn result
    expect(after2).toBe(6)
    socket.close()
  })
})

describe('commands (commands.*)', () => {
  it('set_model emits model_changed and set_permission_mode emits permission_mode_changed', async () => {
    const { socket } = await idleSession()
    socket.send({ type: 'set_model', model: 'fake-large' })
    expect((await socket.waitForEvent('model_changed')).model).toBe('fake-large')
    socket.send({ type: 'set_permission_mode', mode: 'dontAsk' })
    expect((await socket.waitForEvent('permission_mode_changed')).mode).toBe('dontAsk')
    socket.close()
  })

  it('refuses a mode outside the record and bypass when disabled, with protocol_error', async () => {
    const { socket } = await idleSession()
    socket.send({ type: 'set_permission_mode', mode: 'acceptEdits' })
    await socket.waitFor((f) => f.type === 'protocol_error' && /not supported/.test(f.message))
    socket.send({ type: 'set_permission_mode', mode: 'bypassPermissions' })
    await socket.waitFor((f) => f.type === 'protocol_error' && /disableBypassPermissions/.test(f.message))
    socket.close()
  })

  it('interrupt ends a hanging turn with an error turn_result', async () => {
    const { socket } = await idleSession()
    socket.send({ type: 'user_message', text: 'scenario:hang' })
    await socket.waitForEvent('status_changed', (e) => e.status === 'running')
    socket.send({ type: 'interrupt' })
    const result = await socket.waitForEvent('turn_result')
    expect(result.isError).toBe(true)
    socket.close()
  })

  it('clear_context emits conversation_reset; a re-attach skips content below it but replays state', async () => {
    const { session, socket } = await idleSession({ prompt: 'before the reset' })
    await socket.waitForEvent('turn_result')
    socket.send({ type: 'set_model', model: 'fake-large' })
    await socket.waitForEvent('model_changed')
    socket.send({ type: 'clear_context' })
    const reset = await socket.waitForEvent('conversation_reset')
    socket.close()
    const again = await gw.attach(session.id)
    await again.waitFor((f) => f.type === 'event' && f.event.seq === reset.seq)
    const replayed = again.events()
    expect(replayed.some((e) => e.type === 'user_message' && e.seq < reset.seq)).toBe(false)
    expect(replayed.some((e) => e.type === 'model_changed')).toBe(true)
    expect(replayed.some((e) => e.type === 'status_changed' && e.seq < reset.seq)).toBe(true)
    again.close()
  })

  it('close ends the session with reason client and keeps the socket open', async () => {
    const { session, socket } = await idleSession()
    socket.send({ type: 'close' })
    expect((await socket.waitForEvent('session_closed')).reason).toBe('client')
    await socket.waitForEvent('status_changed', (e) => e.status === 'closed')
    expect(socket.ws.readyState).toBe(socket.ws.OPEN)
    socket.send({ type: 'user_message', text: 'too late' })
    await socket.waitFor((f) => f.type === 'protocol_error' && /closed/.test(f.message))
    expect((await gw.request('GET', `/sessions/${session.id}`)).body.session.status).toBe('closed')
    socket.close()
  })

  it('answers bad frames with protocol_error and stays usable', async () => {
    const { socket } = await idleSession()
    const bad = ['not json', '[]', '{"type":"nope"}', '{"type":"user_message"}', '{"type":"user_message","text":5}', '{"type":"set_model","model":7}', '{"type":"permission_decision","requestId":"r","behavior":"maybe"}', '42', 'null']
    for (const frame of bad) socket.send(frame)
    await socket.waitFor(() => socket.frames.filter((f) => f.type === 'protocol_error').length === bad.length)
    socket.send({ type: 'user_message', text: 'still here' })
    expect((await socket.waitForEvent('turn_result')).isError).toBe(false)
    socket.close()
  })

  it('refuses an unknown permission request with 404 over REST', async () => {
    const { session, socket } = await idleSession()
    const res = await gw.request('POST', `/sessions/${session.id}/permissions/nope`, { body: { behavior: 'allow' } })
    expect(res.status).toBe(404)
    expect((await gw.request('POST', `/sessions/${session.id}/permissions/nope`, { body: { behavior: 'x' } })).status).toBe(400)
    socket.close()
  })

  it('answers 501 for MCP server actions on an engine without them', async () => {
    const { session, socket } = await idleSession()
    expect((await gw.request('POST', `/sessions/${session.id}/mcp/x`, { body: { action: 'reconnect' } })).status).toBe(501)
    expect((await gw.request('GET', `/sessions/${session.id}/mcp`)).body).toEqual({ servers: [] })
    socket.close()
  })
})
