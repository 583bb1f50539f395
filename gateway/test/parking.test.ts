import { mkdtemp, readdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createFileSessionStore } from '../sessions/stores/file-store.ts'
import { createMemorySessionStore } from '../sessions/stores/memory-store.ts'
import { startTestGateway, until as untilWithin, type TestGateway } from './harness.ts'

const DEFERRED = { deferred_task: { expiresInMs: 60_000 }, deferred_short: { expiresInMs: 150 } }
const gateways: TestGateway[] = []
afterEach(async () => {
  for (const g of gateways.splice(0)) await g.close()
})

async function start(parking: Record<string, unknown> = {}) {
  const g = await startTestGateway({ parking: { parkDelayMs: 20, ...parking } }, { deferredTools: DEFERRED, bridgedTools: { client_eval: {} }, backends: { fetch: true } })
  gateways.push(g)
  return g
}

/** This file's waits keep their 10 s deadline. */
const until = <T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string) => untilWithin(read, ok, what, 10_000)

const status = (g: TestGateway, id: string) => g.request('GET', `/sessions/${id}`).then((r) => r.body?.session?.status)

/** Creates a session on `prompt` while attached, returns its first deferred executionId, then detaches. */
async function parkedSession(g: TestGateway, prompt: string) {
  // The prompt goes over the socket, so the dispatch surely happens while a client is attached.
  const session = await g.createSession({})
  const ws = await g.attach(session.id)
  ws.send({ type: 'user_message', text: prompt })
  const dispatched = await ws.waitForEvent('execution_dispatched')
  ws.close()
  await until(async () => g.gateway.context.parking.isParked(session.id), (p) => p, 'parked')
  expect(await status(g, session.id)).toBe('parked')
  return { id: session.id as string, executionId: dispatched.executionId as string, dispatched }
}

async function transcript(g: TestGateway, id: string) {
  const ws = await g.attach(id)
  await ws.waitForEvent('turn_result')
  const events = ws.events()
  ws.close()
  return events
}

describe('deferred execution and parking (session-status-values.*)', () => {
  it('parks once the last client leaves, answers reads from the snapshot, and a result rebuilds it mid-turn', async () => {
    const g = await start()
    const { id, executionId, dispatched } = await parkedSession(g, 'scenario:deferred')
    expect(dispatched).toMatchObject({ toolName: 'deferred_task', deferred: true })
    expect(dispatched.expiresAt).toBeGreaterThan(Date.now())
    expect((await g.request('GET', '/sessions')).body.sessions.find((s: any) => s.id === id).status).toBe('parked')
    expect((await g.request('PATCH', `/sessions/${id}`, { body: { title: 'x' } })).status).toBe(409)
    expect((await g.request('GET', `/sessions/${id}/mcp`)).status).toBe(409)

    const first = await g.request('POST', `/executions/${executionId}/result`, { body: { status: 'ok', output: { type: 'text', value: 'approved' } } })
    expect(first.status).toBe(200)
    expect(first.body).toEqual({ applied: true, sessionId: id })
    const again = await g.request('POST', `/executions/${executionId}/result`, { body: { status: 'ok', output: { type: 'text', value: 'twice' } } })
    expect(again.body).toEqual({ applied: false, sessionId: id })

    await until(() => status(g, id), (s) => s === 'idle', 'idle after the result')
    const events = await transcript(g, id)
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1)) // same numbering, no gap, no repeat
    expect(events.filter((e) => e.type === 'turn_result')).toHaveLength(1)
    expect(events.find((e) => e.type === 'turn_result')).toMatchObject({ subtype: 'success', result: 'The task answered: "approved"' })
    expect(events.some((e) => e.type === 'session_closed' || e.type === 'session_error')).toBe(false)
  })

  it('refuses malformed results with 400 and unknown ids with 404, and the session stays parked', async () => {
    const g = await start()
    const { id, executionId } = await parkedSession(g, 'scenario:deferred')
    for (const body of [{}, { status: 'ok' }, { status: 'ok', output: 'flat' }, { status: 'failed', reason: 'x' }, { status: 'maybe' }]) {
      const res = await g.request('POST', `/executions/${executionId}/result`, { body })
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(typeof res.body.error).toBe('string')
    }
    expect((await g.request('POST', '/executions/nope/result', { body: { status: 'ok', output: { value: 1 } } })).status).toBe(404)
    expect((await g.request('GET', `/executions/${executionId}/result`)).status).toBe(405)
    expect(await status(g, id)).toBe('parked')
  })

  it('hides an execution from a caller who cannot see its session (404), without waking it', async () => {
    const g = await start()
    const session = await g.createSession({ prompt: 'scenario:deferred' }, 'tenantA')
    const ws = await g.attach(session.id, { who: 'tenantA' })
    const { executionId } = await ws.waitForEvent('execution_dispatched')
    ws.close()
    await until(async () => g.gateway.context.parking.store.load(session.id), (r) => r !== undefined, 'parked and stored')
    const res = await g.request('POST', `/executions/${executionId}/result`, { who: 'tenantB', body: { status: 'ok', output: { value: 1 } } })
    expect(res.status).toBe(404)
    await expect(g.attach(session.id, { who: 'tenantB' })).rejects.toMatchObject({ status: 404 })
    expect(await status(g, session.id)).toBe('parked')
    expect(await g.gateway.context.parking.store.load(session.id)).toBeDefined()
  })

  it('wakes on attach, stays live while attached, and parks again after the client leaves', async () => {
    const g = await start()
    const { id } = await parkedSession(g, 'scenario:deferred')
    const ws = await g.attach(id, { afterSeq: 0 })
    await ws.waitFor((f) => f.type === 'attached')
    expect(g.gateway.context.parking.isParked(id)).toBe(false)
    expect(await g.gateway.context.parking.store.load(id)).toBeUndefined() // a park record is consumed on wake
    ws.close()
    await until(async () => g.gateway.context.parking.isParked(id), (p) => p, 'parked again')
  })

  it('drops stored state on DELETE, so a late result answers 404 and wakes nothing', async () => {
    const g = await start()
    const { id, executionId } = await parkedSession(g, 'scenario:deferred')
    const del = await g.request('DELETE', `/sessions/${id}`)
    expect(del.status).toBe(200)
    expect(del.body.session.status).toBe('closed')
    const late = await g.request('POST', `/executions/${executionId}/result`, { body: { status: 'ok', output: { value: 'late' } } })
    expect(late.status).toBe(404)
    expect((await g.request('GET', `/sessions/${id}`)).status).toBe(404)
    expect(await g.gateway.context.parking.store.load(id)).toBeUndefined()
  })

  it('feeds a lapsed deadline and a failed result to the agent as tool output, not a session error', async () => {
    const g = await start()
    const session = await g.createSession({ prompt: 'scenario:deferred-short' })
    await until(() => status(g, session.id), (s) => s === 'idle', 'idle after the deadline')
    const events = await transcript(g, session.id)
    expect(events.find((e) => e.type === 'execution_failed')).toMatchObject({ reason: 'timeout' })
    expect(events.find((e) => e.type === 'turn_result').result).toMatch(/^After the deadline: timeout: deferred execution 'deferred_short' produced no result/)
    expect(events.some((e) => e.type === 'session_error')).toBe(false)

    const { id, executionId } = await parkedSession(g, 'scenario:deferred')
    const res = await g.request('POST', `/executions/${executionId}/result`, { body: { status: 'failed', reason: 'rejected', error: 'the approver said no' } })
    expect(res.body.applied).toBe(true)
    await until(() => status(g, id), (s) => s === 'idle', 'idle')
    expect((await transcript(g, id)).find((e) => e.type === 'turn_result').result).toBe('The task answered: rejected: the approver said no')
  })

  it('runs eval_script in the sandbox and serves delivered files, live and from a parked snapshot', async () => {
    const g = await start()
    const evald = await g.createSession({ prompt: 'scenario:eval' })
    await until(() => status(g, evald.id), (s) => s === 'idle', 'idle')
    expect((await transcript(g, evald.id)).find((e) => e.type === 'turn_result').result).toBe('The sandbox answered: {"value":42,"logs":[]}')

    const inline = { name: 'deliver-then-wait', steps: [
      { type: 'deliver_file', path: 'out/report.md', content: '# Hi' },
      { type: 'deferred', name: 'deferred_task', input: {} },
      { type: 'text', text: 'done' },
    ] }
    const { id } = await parkedSession(g, `scenario:${JSON.stringify(inline)}`)
    const list = await g.request('GET', `/sessions/${id}/files`)
    expect(list.body).toEqual({ files: [{ path: '/out/report.md', bytes: 4 }] })
    const file = await g.request('GET', `/sessions/${id}/files/out/report.md`)
    expect(file.status).toBe(200)
    expect(file.text).toBe('# Hi')
    expect(file.headers.get('content-disposition')).toMatch(/^attachment;/)
    expect(file.headers.get('x-content-type-options')).toBe('nosniff')
    expect((await g.request('GET', `/sessions/${id}/files/out/missing.md`)).status).toBe(404)
    expect(await status(g, id)).toBe('parked') // reads never wake
  })

  it('bridges a sandboxed tool to the first attached client, and fails it at once when nobody is attached', async () => {
    const g = await start()
    const session = await g.createSession({})
    const first = await g.attach(session.id)
    const second = await g.attach(session.id)
    first.send({ type: 'user_message', text: 'scenario:bridge' })
    const request = await first.waitFor((f) => f.type === 'tool_call_request')
    expect(request).toMatchObject({ toolName: 'client_eval', input: { code: '6 * 7' } })
    expect(second.frames.some((f) => f.type === 'tool_call_request')).toBe(false)
    first.send({ type: 'tool_call_result', executionId: request.executionId })
    await first.waitFor((f) => f.type === 'protocol_error')
    first.send({ type: 'tool_call_result', executionId: request.executionId, result: 42 })
    const result = await first.waitForEvent('turn_result')
    expect(result.result).toBe('The client answered: 42')
    first.close()
    second.close()

    const unattended = await g.createSession({ prompt: 'scenario:bridge' })
    await until(() => status(g, unattended.id), (s) => s === 'idle', 'idle')
    expect((await transcript(g, unattended.id)).find((e) => e.type === 'turn_result').result).toBe('The client answered: no client is attached to run this tool')
  })

  it('cancels a bridged call the client never answers, and the turn goes on with the timeout as tool output', async () => {
    const g = await startTestGateway({}, { bridgedTools: { client_eval: { expiresInMs: 80 } } })
    gateways.push(g)
    const session = await g.createSession({})
    const ws = await g.attach(session.id)
    ws.send({ type: 'user_message', text: 'scenario:bridge' })
    const request = await ws.waitFor((f) => f.type === 'tool_call_request')
    expect(await ws.waitFor((f) => f.type === 'tool_call_canceled')).toEqual({ type: 'tool_call_canceled', executionId: request.executionId, reason: 'timeout' })
    expect((await ws.waitForEvent('turn_result')).result).toBe("The client answered: the client did not answer 'client_eval' within 80 ms")
    ws.send({ type: 'tool_call_result', executionId: request.executionId, result: 'too late' }) // ignored, no protocol_error
    ws.send({ type: 'user_message', text: 'still here' })
    expect((await ws.waitForEvent('turn_result', (e) => e.numTurns === 2)).result).toBe('echo: still here')
    expect(ws.frames.some((f) => f.type === 'protocol_error')).toBe(false)
    ws.close()
  })

  it('interrupting a turn that waits on a deferred execution fails the call and goes idle', async () => {
    const g = await start()
    const session = await g.createSession({ prompt: 'scenario:deferred' })
    const ws = await g.attach(session.id)
    const { executionId } = await ws.waitForEvent('execution_dispatched')
    ws.send({ type: 'interrupt' })
    expect(await ws.waitForEvent('turn_result')).toMatchObject({ subtype: 'error_during_execution', isError: true, errors: ['interrupted'] })
    await ws.waitForEvent('status_changed', (e) => e.status === 'idle')
    ws.send({ type: 'user_message', text: 'hello again' })
    expect((await ws.waitForEvent('turn_result', (e) => e.numTurns === 2)).result).toBe('echo: hello again')
    ws.close()
    expect((await g.request('POST', `/executions/${executionId}/result`, { body: { status: 'ok', output: { value: 1 } } })).body).toEqual({ applied: false, sessionId: session.id })
  })

  it('hands park and resume failures to parking.onError, and other sessions are unaffected', async () => {
    const failures: string[] = []
    const memory = createMemorySessionStore()
    const store = { ...memory, save: async () => { throw new Error('disk full') } }
    const g = await start({ store, onError: (_err: unknown, where: string) => failures.push(where) })
    const lost = await g.createSession({ prompt: 'scenario:deferred' })
    await until(async () => failures, (f) => f.includes('park'), 'onError(park)')
    expect(await status(g, lost.id)).toBe('parked')
    // Nothing was stored, so a wake finds nothing: the attach is refused, not a crash.
    await expect(g.attach(lost.id)).rejects.toMatchObject({ status: 404 })
    const other = await g.createSession({ prompt: 'hello' })
    await until(() => status(g, other.id), (s) => s === 'idle', 'another session still works')
  })

  it('keeps runner obligations: dispose on park, no re-seeding on rebuild, and a rebuild under another id is refused', async () => {
    let disposed = 0
    const g = await startTestGateway({ parking: { parkDelayMs: 20 } }, { deferredTools: DEFERRED, seedFiles: { '/seed.txt': 'seeded' }, onClose: () => { disposed++ } })
    gateways.push(g)
    const inline = { name: 'overwrite-then-wait', steps: [
      { type: 'deliver_file', path: 'seed.txt', content: 'changed by the agent' },
      { type: 'deferred', name: 'deferred_task', input: {} },
      { type: 'text', text: 'done' },
    ] }
    const { id, executionId } = await parkedSession(g, `scenario:${JSON.stringify(inline)}`)
    expect(disposed).toBe(1) // the close hook also runs on park (embedding-rules.9-10)
    expect((await g.request('POST', `/executions/${executionId}/result`, { body: { status: 'ok', output: { value: 1 } } })).body.applied).toBe(true)
    await until(() => status(g, id), (s) => s === 'idle', 'idle')
    expect((await g.request('GET', `/sessions/${id}/files/seed.txt`)).text).toBe('changed by the agent')

    const errors: string[] = []
    const rogue = await startTestGateway({ parking: { parkDelayMs: 20 }, onError: (_e: unknown, where: string) => errors.push(where) }, { deferredTools: DEFERRED })
    gateways.push(rogue)
    const original = rogue.gateway.context.factory.rebuild
    rogue.gateway.context.factory.rebuild = (record) => original({ ...record, config: { ...record.config, id: 'someone-else' } })
    const parkedRogue = await parkedSession(rogue, 'scenario:deferred')
    const res = await rogue.request('POST', `/executions/${parkedRogue.executionId}/result`, { body: { status: 'ok', output: { value: 1 } } })
    expect(res.status).toBe(502)
    expect(errors).toContain('resume')
    expect(await rogue.gateway.context.parking.store.load(parkedRogue.id)).toBeDefined() // kept for a later try
  })

  it('persistLive: a shutdown in the very tick of a turn_result still writes that turn', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gw-live-'))
    const g = await start({ store: createFileSessionStore({ dir }), persistLive: true })
    const session = await g.createSession({})
    const runner = g.gateway.context.registry.get(session.id)!
    let closing: Promise<void> | undefined
    runner.subscribe((event) => {
      if (event.type === 'turn_result' && !closing) closing = g.gateway.close() // same tick as the event
    }, runner.info().lastSeq)
    runner.sendMessage('remember me')
    await until(async () => closing !== undefined, (started) => started, 'turn_result')
    await closing
    gateways.splice(gateways.indexOf(g), 1)
    const stored = await createFileSessionStore({ dir }).load(session.id)
    expect(stored?.kind).toBe('live')
    expect(stored?.snapshot.events.some((e) => e.type === 'turn_result')).toBe(true)
  })

  it('persistLive: a park woken by its result keeps a durable record while its turn runs, so a restart then loses nothing before it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gw-woken-'))
    const a = await start({ store: createFileSessionStore({ dir }), persistLive: true })
    const hangAfterResult = `scenario:${JSON.stringify({ name: 'deferred-then-hang', steps: [{ type: 'deferred', name: 'deferred_task', input: {} }, { type: 'hang' }] })}`
    const { id, executionId } = await parkedSession(a, hangAfterResult)
    const parkedSeq = (await a.request('GET', `/sessions/${id}`)).body.session.lastSeq
    expect((await a.request('POST', `/executions/${executionId}/result`, { body: { status: 'ok', output: { value: 'first' } } })).body.applied).toBe(true)
    await until(() => status(a, id), (s) => s === 'running', 'the woken turn running')
    // The woken turn never ends here: before the fix the park was deleted at wake and nothing replaced it.
    const stored = await createFileSessionStore({ dir }).load(id)
    expect(stored?.kind).toBe('live')
    expect(stored?.seqReserved).toBeGreaterThan(parkedSeq)
    const shown = (await a.request('GET', `/sessions/${id}`)).body.session.lastSeq
    await a.close()
    gateways.splice(gateways.indexOf(a), 1)

    const b = await start({ store: createFileSessionStore({ dir }), persistLive: true })
    expect((await b.request('GET', `/sessions/${id}`)).status).toBe(200)
    // Rebuilt waiting on its execution again: the result the first process took is redelivered.
    expect((await b.request('POST', `/executions/${executionId}/result`, { body: { status: 'ok', output: { value: 'again' } } })).body).toEqual({ applied: true, sessionId: id })
    const ws = await b.attach(id)
    const user = await ws.waitForEvent('user_message')
    await until(async () => ws.events().at(-1)?.seq ?? 0, (seq) => seq > shown, 'an event of the turn after the restart')
    const after = ws.events().filter((e) => e.seq > parkedSeq)
    ws.close()
    expect(JSON.stringify(user)).toContain('deferred-then-hang')
    // No seq shown before the restart is given to another event after it (event-and-command-envelope.1).
    expect(after.every((e) => e.seq > shown)).toBe(true)
  })

  it('with a file store, a second process adopts the park and a result completes it with seq continuing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gw-parks-'))
    const a = await start({ store: createFileSessionStore({ dir }) })
    const { id, executionId } = await parkedSession(a, 'scenario:deferred')
    await until(() => readdir(dir), (files) => files.some((f) => f.endsWith('.json')), 'park written')
    const before = (await a.request('GET', `/sessions/${id}`)).body.session
    await a.close()
    gateways.splice(gateways.indexOf(a), 1)

    const b = await start({ store: createFileSessionStore({ dir }) })
    expect((await b.request('GET', `/sessions/${id}`)).body.session).toMatchObject({ status: 'parked', lastSeq: before.lastSeq })
    const res = await b.request('POST', `/executions/${executionId}/result`, { body: { status: 'ok', output: { value: 'after restart' } } })
    expect(res.body).toEqual({ applied: true, sessionId: id })
    await until(() => status(b, id), (s) => s === 'idle', 'idle')
    const events = await transcript(b, id)
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1))
    expect(events.find((e) => e.type === 'turn_result').result).toBe('The task answered: "after restart"')
  })
})
