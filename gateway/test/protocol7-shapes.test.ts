/**
 * The four protocol-7 shapes docs/compatibility.md lists, on our wire: `executionId` is the tool call's own id
 * (and stays unambiguous across sessions), `execution_failed.error` is the bare error, a deny
 * without a message resolves with 'Denied', and the attach views `truncateResults=1` /
 * `imageRefs=1` with `GET /sessions/:id/events/:seq/result` behind them (docs/compatibility.md).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createCliPrimaryAdapter } from '../engines/cli-primary/index.ts'
import { createMemorySessionStore } from '../sessions/stores/memory-store.ts'
import type { SessionStore } from '../sessions/session-store.ts'
import { TOOL_RESULT_HEAD_CHARS } from '../sessions/tool-result-views.ts'
import { openSocket, startTestGateway, TOKENS, until, type TestGateway, type TestSocket } from './harness.ts'
import { FAKE_CLAUDE } from './fake-claude.ts'

const DEFERRED = { deferred_task: { expiresInMs: 60_000 }, deferred_short: { expiresInMs: 150 } }
const FAKE_CLI = FAKE_CLAUDE

const gateways: TestGateway[] = []
afterEach(async () => {
  for (const g of gateways.splice(0)) await g.close()
})

/** The fake model server's tool-call ids (`call_<random>_<n>`) rewritten to one fixed id per call index. */
const sameToolCallIds: typeof fetch = async (input, init) => {
  const res = await fetch(input, init)
  const text = (await res.text()).replace(/call_[0-9a-f]{8}_(\d+)/g, 'call_fixed_$1')
  return new Response(text, { status: res.status, headers: res.headers })
}

async function start(options: { store?: SessionStore; fixedIds?: boolean } = {}) {
  const g = await startTestGateway(
    { parking: { parkDelayMs: 20, ...(options.store ? { store: options.store } : {}) } },
    { deferredTools: DEFERRED, bridgedTools: { client_eval: {} }, ...(options.fixedIds ? { fetch: sameToolCallIds } : {}) },
  )
  gateways.push(g)
  return g
}

const status = (g: TestGateway, id: string) => g.request('GET', `/sessions/${id}`).then((r) => r.body?.session?.status)

/** The id of the tool_use block the event's call came from. */
function toolUseIds(events: any[]): string[] {
  return events.filter((e) => e.type === 'assistant_message').flatMap((e) => e.message.content.filter((b: any) => b.type === 'tool_use').map((b: any) => b.id))
}

/** A provider session on `scenario:bridge` whose `client_eval` call is answered by `answer`. */
async function bridged(g: TestGateway, answer: Record<string, unknown>): Promise<{ id: string; ws: TestSocket }> {
  const session = await g.createSession({})
  const ws = await g.attach(session.id)
  ws.send({ type: 'user_message', text: 'scenario:bridge' })
  const request = await ws.waitFor((f) => f.type === 'tool_call_request')
  ws.send({ type: answer.error ? 'tool_call_error' : 'tool_call_result', executionId: request.executionId, ...answer })
  await ws.waitForEvent('turn_result')
  return { id: session.id, ws }
}

describe('executionId is the tool_use block id (events.14, commands.8)', () => {
  it('names bridged calls by their tool_use id on tool_call_request and every execution_* event', async () => {
    const g = await start()
    const { ws } = await bridged(g, { output: { type: 'json', value: 42 } })
    const [toolUseId] = toolUseIds(ws.events())
    expect(toolUseId).toMatch(/^call_/)
    const request: any = ws.frames.find((f) => f.type === 'tool_call_request')
    expect(request.executionId).toBe(toolUseId)
    const executions = ws.events().filter((e) => e.type.startsWith('execution_'))
    expect(executions.map((e) => [e.type, e.executionId])).toEqual([['execution_dispatched', toolUseId], ['execution_result', toolUseId]])
    const result = ws.events().find((e) => e.type === 'user_message' && e.synthetic)
    expect(result.message.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: toolUseId })
  })

  it('names deferred calls by their tool_use id: dispatch, POST /executions/:id/result, the result event', async () => {
    const g = await start()
    const session = await g.createSession({})
    const ws = await g.attach(session.id)
    ws.send({ type: 'user_message', text: 'scenario:deferred' })
    const dispatched = await ws.waitForEvent('execution_dispatched')
    const [toolUseId] = toolUseIds(ws.events())
    expect(dispatched.executionId).toBe(toolUseId)
    const res = await g.request('POST', `/executions/${toolUseId}/result`, { body: { status: 'ok', output: { type: 'text', value: 'done' } } })
    expect(res.body).toEqual({ applied: true, sessionId: session.id })
    expect(await ws.waitForEvent('execution_result')).toMatchObject({ executionId: toolUseId })
  })

  it('keeps the global lookup unambiguous when two sessions get the same tool-call id: the second is suffixed -2', async () => {
    const g = await start({ fixedIds: true })
    const parkedOn = async () => {
      const session = await g.createSession({})
      const ws = await g.attach(session.id)
      ws.send({ type: 'user_message', text: 'scenario:deferred' })
      const dispatched = await ws.waitForEvent('execution_dispatched')
      return { id: session.id as string, ws, dispatched, toolUseId: toolUseIds(ws.events())[0] }
    }
    const a = await parkedOn()
    const b = await parkedOn()
    expect([a.toolUseId, b.toolUseId]).toEqual(['call_fixed_0', 'call_fixed_0'])
    expect(a.dispatched.executionId).toBe('call_fixed_0')
    expect(b.dispatched.executionId).toBe('call_fixed_0-2')
    const toB = await g.request('POST', '/executions/call_fixed_0-2/result', { body: { status: 'ok', output: { type: 'text', value: 'for b' } } })
    expect(toB.body).toEqual({ applied: true, sessionId: b.id })
    const toA = await g.request('POST', '/executions/call_fixed_0/result', { body: { status: 'ok', output: { type: 'text', value: 'for a' } } })
    expect(toA.body).toEqual({ applied: true, sessionId: a.id })
    expect((await a.ws.waitForEvent('turn_result')).result).toBe('The task answered: "for a"')
    expect((await b.ws.waitForEvent('turn_result')).result).toBe('The task answered: "for b"')
  })
})

describe('execution_failed.error is the bare error (events.14, commands.9)', () => {
  it("a tool_call_error's error and reason arrive apart; the model still reads `<reason>: <error>`", async () => {
    const g = await start()
    const { ws } = await bridged(g, { reason: 'unsupported', error: 'no sandbox in this client' })
    expect(ws.events().find((e) => e.type === 'execution_failed')).toMatchObject({ reason: 'unsupported', error: 'no sandbox in this client' })
    expect(ws.events().find((e) => e.type === 'turn_result').result).toBe('The client answered: unsupported: no sandbox in this client')
  })

  it("a lapsed deferred deadline and a failed POST result carry no 'timeout: ' or '<reason>: ' prefix", async () => {
    const g = await start()
    const lapsing = await g.createSession({})
    const ws = await g.attach(lapsing.id)
    ws.send({ type: 'user_message', text: 'scenario:deferred-short' })
    const timedOut = await ws.waitForEvent('execution_failed')
    expect(timedOut).toMatchObject({ reason: 'timeout', error: "deferred execution 'deferred_short' produced no result before its deadline" })
    expect((await ws.waitForEvent('turn_result')).result).toMatch(/^After the deadline: timeout: deferred execution/)

    ws.send({ type: 'user_message', text: 'scenario:deferred' })
    const dispatched = await ws.waitForEvent('execution_dispatched', (e) => e.toolName === 'deferred_task')
    await g.request('POST', `/executions/${dispatched.executionId}/result`, { body: { status: 'failed', reason: 'rejected', error: 'the approver said no' } })
    expect(await ws.waitForEvent('execution_failed', (e) => e.executionId === dispatched.executionId)).toMatchObject({ reason: 'rejected', error: 'the approver said no' })
    expect((await ws.waitForEvent('turn_result', (e) => e.numTurns === 2)).result).toBe('The task answered: rejected: the approver said no')
  })
})

describe("a deny without a message resolves with 'Denied' (events.13, other-shapes.2)", () => {
  it('over the WebSocket and over REST, and a deny with a message keeps it', async () => {
    const g = await startTestGateway({ engines: { cli_primary: createCliPrimaryAdapter(FAKE_CLI) } })
    gateways.push(g)
    const session = await g.createSession({ profile: 'primary', cwd: g.cwdRoot })
    const ws = await g.attach(session.id)
    ws.send({ type: 'user_message', text: 'scenario:permission' })
    const first = await ws.waitForEvent('permission_requested')
    ws.send({ type: 'permission_decision', requestId: first.request.id, behavior: 'deny' })
    expect(await ws.waitForEvent('permission_resolved')).toMatchObject({ requestId: first.request.id, behavior: 'deny', resolvedBy: 'client', message: 'Denied' })
    expect((await ws.waitForEvent('turn_result')).result).toContain('Denied')

    ws.send({ type: 'user_message', text: 'scenario:permission' })
    const second = await ws.waitForEvent('permission_requested', (e) => e.request.id !== first.request.id)
    await g.request('POST', `/sessions/${session.id}/permissions/${second.request.id}`, { body: { behavior: 'deny' } })
    expect(await ws.waitForEvent('permission_resolved', (e) => e.requestId === second.request.id)).toMatchObject({ message: 'Denied' })
    await ws.waitForEvent('turn_result', (e) => e.numTurns === 2)

    ws.send({ type: 'user_message', text: 'scenario:permission' })
    const third = await ws.waitForEvent('permission_requested', (e) => ![first.request.id, second.request.id].includes(e.request.id))
    ws.send({ type: 'permission_decision', requestId: third.request.id, behavior: 'deny', message: 'not today' })
    expect(await ws.waitForEvent('permission_resolved', (e) => e.requestId === third.request.id)).toMatchObject({ message: 'not today' })
  })
})

describe('attach views truncateResults=1 and imageRefs=1, and the result route behind them (websocket-framing.1)', () => {
  const LONG = 'x'.repeat(TOOL_RESULT_HEAD_CHARS + 1000)

  it('truncates an oversized tool_result on replay only; GET …/events/:seq/result serves it whole', async () => {
    const g = await start()
    const { id, ws } = await bridged(g, { output: { type: 'text', value: LONG } })
    const whole = JSON.stringify(LONG)
    const live = ws.events().find((e) => e.type === 'user_message' && e.synthetic)
    expect(live.message.content[0].content).toBe(whole) // live events are never cut
    expect(live.message.content[0].truncated).toBeUndefined()

    const replay = await attachWith(g, id, 'afterSeq=0&truncateResults=1')
    await replay.waitForEvent('turn_result')
    const cut = replay.events().find((e) => e.type === 'user_message' && e.synthetic)
    const block = cut.message.content[0]
    expect(block).toMatchObject({ type: 'tool_result', truncated: true, total_chars: whole.length })
    expect(block.content).toBe(whole.slice(0, TOOL_RESULT_HEAD_CHARS))

    const plain = await attachWith(g, id, 'afterSeq=0')
    await plain.waitForEvent('turn_result')
    expect(plain.events().find((e) => e.type === 'user_message' && e.synthetic).message.content[0].content).toBe(whole)

    const url = `/sessions/${id}/events/${cut.seq}/result`
    const full = await g.request('GET', `${url}?toolUseId=${encodeURIComponent(block.tool_use_id)}`)
    expect(full.status).toBe(200)
    expect(full.body).toEqual({ seq: cut.seq, toolUseId: block.tool_use_id, content: whole, isError: false })
    expect((await g.request('GET', url)).status).toBe(400)
    expect((await g.request('GET', `${url}?toolUseId=someone-else`)).status).toBe(404)
    expect((await g.request('GET', `/sessions/${id}/events/1/result?toolUseId=${block.tool_use_id}`)).status).toBe(404)
    expect((await g.request('GET', `/sessions/${id}/events/99999/result?toolUseId=${block.tool_use_id}`)).status).toBe(404)
    expect((await g.request('GET', `/sessions/${id}/events/x/result?toolUseId=${block.tool_use_id}`)).status).toBe(404)
    expect((await g.request('POST', `${url}?toolUseId=${block.tool_use_id}`, { body: {} })).status).toBe(405)
    expect((await g.request('GET', `${url}?toolUseId=${block.tool_use_id}`, { who: 'tenantB' })).status).toBe(404)
  })

  it('imageRefs=1 replaces a base64 image with an image_ref, and part=N serves its bytes, from a parked session too', async () => {
    const store = createMemorySessionStore()
    const g1 = await start({ store })
    const session = await g1.createSession({})
    const ws = await g1.attach(session.id)
    ws.send({ type: 'user_message', text: 'scenario:deferred' })
    await ws.waitForEvent('execution_dispatched')
    ws.close()
    await until(async () => store.load(session.id), (r) => r !== undefined, 'parked and stored')
    // A stored tool result with an image, as an engine whose tools return images logs it.
    const record = (await store.load(session.id))!
    const png = Buffer.from('89504e470d0a1a0a', 'hex')
    const seq = record.snapshot.seq + 1
    record.snapshot.events.push({
      type: 'user_message', seq, ts: Date.now(), parentToolUseId: null, synthetic: true,
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_img', content: [{ type: 'text', text: 'a chart' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } }] }] },
    } as any)
    record.snapshot.seq = seq
    await store.save(record)
    await g1.close()
    gateways.splice(gateways.indexOf(g1), 1)

    const g2 = await start({ store })
    expect(await status(g2, session.id)).toBe('parked')
    const url = `/sessions/${session.id}/events/${seq}/result?toolUseId=toolu_img`
    const bytes = await fetch(`${g2.url}${url}&part=1`, { headers: { authorization: `Bearer ${TOKENS.operator}` } })
    expect(bytes.status).toBe(200)
    expect(bytes.headers.get('content-type')).toBe('image/png')
    expect(Buffer.from(await bytes.arrayBuffer())).toEqual(png)
    expect((await g2.request('GET', `${url}&part=0`)).status).toBe(404) // a text part has no bytes to serve
    expect((await g2.request('GET', `${url}&imageRefs=1`)).body.content[1]).toEqual({ type: 'image_ref', mediaType: 'image/png', bytes: png.byteLength, index: 1 })
    expect(await status(g2, session.id)).toBe('parked') // reads never wake it

    const viewer = await attachWith(g2, session.id, 'afterSeq=0&imageRefs=1')
    const viewed = await viewer.waitForEvent('user_message', (e) => e.seq === seq)
    expect(viewed.message.content[0].content).toEqual([{ type: 'text', text: 'a chart' }, { type: 'image_ref', mediaType: 'image/png', bytes: png.byteLength, index: 1 }])
  })
})

/** Attaches with a raw query string (the harness's attach knows only afterSeq). */
function attachWith(g: TestGateway, id: string, query: string): Promise<TestSocket> {
  return openSocket(`${g.url.replace(/^http/, 'ws')}/sessions/${id}/ws?${query}`, { authorization: `Bearer ${TOKENS.operator}` })
}
