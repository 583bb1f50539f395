/**
 * The session handle against our gateway on the fake engines: reconnect after a dropped socket
 * resumes from the last seq seen with no gap and no duplicate (websocket-framing.1), waits start
 * after a seq and honour the caller's timeout and AbortSignal, every command reaches the gateway
 * (commands.*), and the tool bridge answers bridged calls (websocket-framing.1, commands.8-9).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTranscript, GatewayError, TimeoutError, type SessionEvent, type SessionHandle, type WebSocketFactory, type WebSocketLike } from '../index.ts'
import { globalWebSocket } from '../transport.ts'
import { inline, startTestGateway, type TestGateway } from './gateway.ts'

let gw: TestGateway
const handles: SessionHandle[] = []

beforeAll(async () => {
  gw = await startTestGateway()
}, 60_000)
afterAll(async () => {
  for (const h of handles) h.detach()
  await gw?.target.close()
})

const WAIT = { timeoutMs: 15_000 }
const seqs = (events: SessionEvent[]) => events.map((e) => e.seq)
const contiguous = (events: SessionEvent[]) => seqs(events).every((s, i, all) => i === 0 || s === all[i - 1] + 1)

/** A factory that records every socket it opened and can hold the next open until `release`. */
function recordingFactory(transform: (url: string, n: number) => string = (url) => url) {
  const sockets: WebSocketLike[] = []
  const urls: string[] = []
  let hold: Promise<void> | undefined
  const factory: WebSocketFactory = async (url, headers) => {
    const n = urls.length
    urls.push(transform(url, n))
    if (n > 0 && hold) await hold
    const ws = await globalWebSocket(urls[n], headers)
    sockets.push(ws)
    return ws
  }
  return { factory, sockets, urls, holdNext: (until: Promise<void>) => { hold = until } }
}

async function idleAfterTurn(id: string, turns: number): Promise<void> {
  const client = gw.client()
  for (;;) {
    const info = await client.getSession(id)
    if (info.numTurns >= turns && info.status === 'idle') return
    await new Promise((r) => setTimeout(r, 25))
  }
}

describe('SessionHandle reconnect', () => {
  it('resumes from the last seq seen after the socket drops mid-stream: every event once, in order, none missing', async () => {
    const rec = recordingFactory()
    const client = gw.client('operator', { webSocket: rec.factory })
    const session = await client.createSession({ ...gw.provider, includePartialMessages: true })
    const handle = await client.attach(session.id, { reconnect: { initialDelayMs: 10 } })
    handles.push(handle)
    await handle.waitForEvent('status_changed', { afterSeq: 0, where: (e) => e.status === 'idle', ...WAIT })
    let seqAtDrop = 0
    const turnDone = idleAfterTurn(session.id, 1)
    // The next attach waits until the whole turn ran on the gateway, so its events arrive only by the replay.
    rec.holdNext(turnDone)
    const dropped = new Promise<void>((resolve) => {
      const off = handle.on('event', (e) => {
        if (e.type !== 'stream_delta') return
        off()
        seqAtDrop = handle.lastSeq
        rec.sockets[0].close() // the network drops: the handle did not ask for it
        resolve()
      })
    })
    handle.sendMessage('scenario:long-text')
    await dropped
    const result = await handle.waitForTurn({ afterSeq: seqAtDrop, ...WAIT })
    await handle.waitForEvent('status_changed', { afterSeq: result.seq - 1, where: (e) => e.status === 'idle', ...WAIT })

    expect(handle.reconnects).toBe(1)
    expect(rec.urls[1]).toContain(`afterSeq=${seqAtDrop}`)
    expect(new Set(seqs(handle.events)).size).toBe(handle.events.length)
    expect(handle.events[0].seq).toBe(1)
    expect(contiguous(handle.events)).toBe(true)
    // Events the gateway logged while the socket was down came by the replay.
    expect(handle.events.filter((e) => e.seq > seqAtDrop && e.type === 'stream_delta').length).toBeGreaterThan(5)

    // The same events, field for field, as a fresh attach replaying the whole log sees them.
    const fresh = await gw.client().attach(session.id, { afterSeq: 0 })
    handles.push(fresh)
    await fresh.waitFor((e) => e.seq === handle.lastSeq, { afterSeq: 0, ...WAIT })
    fresh.detach()
    expect(fresh.events.filter((e) => e.seq <= handle.lastSeq)).toEqual(handle.events)
    const text = handle.events.filter((e) => e.type === 'stream_delta').map((e) => (e as any).event?.delta?.text ?? '').join('')
    expect(text).toBe((handle.events.find((e) => e.type === 'assistant_message') as any).message.content.map((b: any) => b.text).join(''))
    // The transcript a UI renders from the handle's events: the prompt, the whole reply, the turn's end.
    const transcript = buildTranscript(handle.events)
    expect(transcript.rows.map((r) => r.kind)).toEqual(['user', 'assistant', 'turn_end'])
    expect(transcript.rows[1]).toMatchObject({ kind: 'assistant', text })
    expect(transcript.streaming).toBe('')
  })

  it('delivers no duplicate when a gateway replays more than was asked for', async () => {
    // Re-attaches ask for afterSeq=0 here, so the replay overlaps everything already seen.
    const rec = recordingFactory((url, n) => (n > 0 ? url.replace(/afterSeq=\d+/, 'afterSeq=0') : url))
    const client = gw.client('operator', { webSocket: rec.factory })
    const session = await client.createSession(gw.provider)
    const handle = await client.attach(session.id, { reconnect: { initialDelayMs: 10 } })
    handles.push(handle)
    handle.sendMessage('hello')
    await handle.waitForTurn({ afterSeq: 0, ...WAIT })
    const before = handle.events.length
    rec.sockets[0].close()
    await new Promise<void>((resolve) => handle.on('state', (s) => s === 'open' && resolve()))
    handle.sendMessage('again')
    await handle.waitForTurn(WAIT)
    expect(rec.urls[1]).toContain('afterSeq=0')
    expect(new Set(seqs(handle.events)).size).toBe(handle.events.length)
    expect(contiguous(handle.events)).toBe(true)
    expect(handle.events.length).toBeGreaterThan(before)
  })

  it('gives up with a typed 404 when the session is gone by the time it re-attaches, and ends pending waits with it', async () => {
    const rec = recordingFactory()
    const client = gw.client('operator', { webSocket: rec.factory })
    const session = await client.createSession(gw.provider)
    const handle = await client.attach(session.id, { reconnect: { initialDelayMs: 10, maxAttempts: 3 } })
    handles.push(handle)
    const errors: Error[] = []
    handle.on('error', (e) => errors.push(e))
    const pending = handle.waitForTurn()
    // The re-attach starts only once another client deleted the session.
    rec.holdNext(gw.client().deleteSession(session.id).then(() => {}))
    rec.sockets[0].close()
    const err = await pending.catch((e: unknown) => e)
    expect(err).toBeInstanceOf(GatewayError)
    expect(err).toMatchObject({ status: 404, code: 'session_not_found' })
    expect(handle.state).toBe('closed')
    expect(errors).toEqual([err])
    expect(rec.urls).toHaveLength(2) // no retry after a 404
  })

  it('ends with the session: session_closed closes the handle and ends waits still pending', async () => {
    const client = gw.client()
    const session = await client.createSession(gw.provider)
    const handle = await client.attach(session.id)
    handles.push(handle)
    const pending = expect(handle.waitForTurn()).rejects.toThrow(/session closed/)
    await client.deleteSession(session.id)
    await pending
    expect(handle.state).toBe('closed')
    expect(handle.events.at(-1)?.type).toBe('session_closed')
  })
})

describe('SessionHandle attach and waits', () => {
  it('refuses to attach to another tenant\'s session with the typed 404 (authentication.3)', async () => {
    const session = await gw.client('tenantA').createSession(gw.provider)
    const err = await gw.client('tenantB').attach(session.id).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(GatewayError)
    expect(err).toMatchObject({ status: 404 })
    const unauth = await gw.client('operator', { token: 'not-a-token' }).attach(session.id).catch((e: unknown) => e)
    expect(unauth).toMatchObject({ status: 401, code: 'unauthorized' })
  })

  it('waits start after the given seq (default: the last seen), and end on the caller\'s timeout or abort', async () => {
    const client = gw.client()
    const session = await client.createSession(gw.provider)
    const handle = await client.attach(session.id)
    handles.push(handle)
    handle.sendMessage('first')
    const first = await handle.waitForTurn(WAIT)
    // An earlier turn_result is history: a wait begun now is for the next one.
    const next = handle.waitForTurn(WAIT)
    handle.sendMessage('second')
    const second = await next
    expect(second.seq).toBeGreaterThan(first.seq)
    expect(second.numTurns).toBe(2)
    // With afterSeq, history counts: the first turn_result after seq 0 is the first turn's.
    expect((await handle.waitForTurn({ afterSeq: 0 })).seq).toBe(first.seq)

    await expect(handle.waitForTurn({ timeoutMs: 50 })).rejects.toBeInstanceOf(TimeoutError)
    const controller = new AbortController()
    const aborted = handle.waitForTurn({ signal: controller.signal })
    controller.abort(new Error('the user left'))
    await expect(aborted).rejects.toThrow('the user left')
    // Listeners and the async iterator see the same live events.
    const seen: number[] = []
    const off = handle.on('event', (e) => seen.push(e.seq))
    const iterated: number[] = []
    const iterating = (async () => {
      for await (const event of handle) {
        iterated.push(event.seq)
        if (event.type === 'turn_result') break
      }
    })()
    handle.sendMessage('third')
    await iterating
    off()
    expect(iterated.length).toBeGreaterThan(2)
    expect(seen.slice(0, iterated.length)).toEqual(iterated)
  })
})

describe('SessionHandle commands', () => {
  it('user_message with an uploaded attachment, set_model, set_permission_mode, clear_context, interrupt and close', async () => {
    const client = gw.client()
    const session = await client.createSession(gw.provider)
    const handle = await client.attach(session.id)
    handles.push(handle)
    const attachment = await client.uploadAttachment(session.id, 'notes for the model', { name: 'notes.txt', mediaType: 'text/plain' })
    handle.sendMessage('read this', { attachmentIds: [attachment.id] })
    const message = await handle.waitForEvent('user_message', WAIT)
    expect(message.attachments).toEqual([expect.objectContaining({ id: attachment.id, name: 'notes.txt', mediaType: 'text/plain' })])
    await handle.waitForTurn({ afterSeq: message.seq, ...WAIT })

    handle.setModel('fake-large')
    expect((await handle.waitForEvent('model_changed', WAIT)).model).toBe('fake-large')
    handle.setModel()
    expect((await handle.waitForEvent('model_changed', WAIT)).model).toBeUndefined()
    handle.setPermissionMode('dontAsk')
    expect((await handle.waitForEvent('permission_mode_changed', WAIT)).mode).toBe('dontAsk')
    handle.clearContext()
    await handle.waitForEvent('conversation_reset', WAIT)

    handle.sendMessage(inline([{ type: 'sleep', ms: 5000 }, { type: 'text', text: 'too late' }]))
    await handle.waitForEvent('status_changed', { where: (e) => e.status === 'running', ...WAIT })
    handle.interrupt()
    const interrupted = await handle.waitForTurn(WAIT)
    expect(interrupted.result ?? '').not.toContain('too late')

    handle.closeSession()
    expect((await handle.waitForEvent('session_closed', WAIT)).reason).toBe('client')
    expect(handle.state).toBe('closed')
    expect(() => handle.sendMessage('after the end')).toThrow()
  })

  it('answers a permission over the socket by the request id, and bridged tool calls with the handler', async () => {
    const client = gw.client()
    const primary = await client.createSession(gw.primary)
    const p = await client.attach(primary.id)
    handles.push(p)
    p.sendMessage('scenario:permission')
    const request = await p.nextPermission(WAIT)
    p.allow(request, { command: 'echo edited' })
    expect(await p.waitForEvent('permission_resolved', WAIT)).toMatchObject({ requestId: request.id, behavior: 'allow', resolvedBy: 'client' })
    expect((await p.waitForTurn(WAIT)).result).toContain('echo edited')

    const bridged = await client.createSession(gw.provider)
    const b = await client.attach(bridged.id, { onToolCall: (call) => ({ output: { type: 'json', value: (call.input as { code: string }).code === '6 * 7' ? 42 : 0 } }) })
    handles.push(b)
    b.sendMessage('scenario:bridge')
    expect((await b.waitForTurn(WAIT)).result).toBe('The client answered: 42')
    b.onToolCall(() => ({ reason: 'unsupported', error: 'no sandbox here' }))
    b.sendMessage('scenario:bridge')
    expect((await b.waitForTurn(WAIT)).result).toContain('no sandbox here')
    expect(await b.waitForEvent('execution_failed', { afterSeq: 0 })).toMatchObject({ reason: 'unsupported', error: 'no sandbox here' })
  })
})
