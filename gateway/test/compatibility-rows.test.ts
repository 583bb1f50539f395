/**
 * docs/compatibility.md, re-checked against our wire. Every row whose protocol-7
 * column says "the same" (or whose difference is "—") names a check: one run here against a
 * gateway on the fake engines, an existing test or kit case that observes the shape (the kit runs
 * against this gateway in `npm start`), or the reason the shape cannot be observed. A new row of
 * that kind without a check fails the first test, so the document cannot drift from the wire.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ALL_CASES } from '../../conformance/cases/index.ts'
import { createCliPrimaryAdapter } from '../engines/cli-primary/index.ts'
import { startTestGateway, until, type TestGateway, type TestSocket } from './harness.ts'

const ROOT = new URL('../../', import.meta.url)
const FAKE_CLI = {
  pathToClaudeCodeExecutable: fileURLToPath(new URL('fake-engines/claude-cli/main.ts', ROOT)),
  executable: process.execPath,
  executableArgs: ['--import', fileURLToPath(import.meta.resolve('tsx'))],
}

interface Row { section: string; shape: string; ours: string; protocol7: string; difference: string }

/** The rows of every table; the last table puts protocol 7 before ours. */
function rowsOf(markdown: string): Row[] {
  const rows: Row[] = []
  let section = ''
  for (const line of markdown.split('\n')) {
    if (line.startsWith('## ')) section = line.slice(3).trim()
    if (!line.startsWith('| ') || /^\| (Shape|Behaviour) \|/.test(line)) continue
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim())
    const [shape, a, b, difference] = cells
    const flipped = section === 'Where we deliberately differ'
    rows.push({ section, shape, ours: flipped ? b : a, protocol7: flipped ? a : b, difference })
  }
  return rows
}

const sameRows = rowsOf(readFileSync(new URL('docs/compatibility.md', ROOT), 'utf8'))
  .filter((r) => r.protocol7.startsWith('the same') || r.ours.startsWith('the same') || r.difference === '—')

type Pointer = { test: string; file: string } | { kit: string } | { unobservable: string }

/** Rows observed elsewhere: by an existing test (named exactly), a kit case, or not at all (why). */
const ELSEWHERE: Record<string, Pointer> = {
  '`stream_delta`': { kit: 'compat-stream-delta-provider' },
  '`system_init`': { kit: 'compat-system-init-and-capabilities' },
  '`capabilities`': { kit: 'compat-system-init-and-capabilities' },
  '`skills`': { file: 'gateway/test/cli-primary.test.ts', test: 'announces skills and tool titles, and serves a written file by its produced id only' },
  '`sdk_event`': { kit: 'compat-sdk-event-payload' },
  '`POST /executions/:id/result`': { file: 'gateway/test/parking.test.ts', test: 'parks once the last client leaves, answers reads from the snapshot, and a result rebuilds it mid-turn' },
  '`GET /sessions/:id/events/:seq/result?toolUseId=`': { file: 'gateway/test/protocol7-shapes.test.ts', test: 'truncates an oversized tool_result on replay only; GET …/events/:seq/result serves it whole' },
  '`GET /profiles/:name`': { kit: 'profile-config-snapshot' },
  '`PATCH /profiles/:name`, `DELETE`': { kit: 'profiles-managed-lifecycle' },
  '`GET /sdk-sessions`': { kit: 'cli-primary-sdk-sessions-and-resume' },
  '`/fs/roots`, `/fs/list`, `/fs/find`, `/fs/read`, `PUT /fs/write`': { kit: 'compat-host-file-shapes' },
  'Host-file limits': { unobservable: 'defaults of 1 MiB and 5000 entries show only by writing a 1 MiB file or 5000 entries into a root; the values are constants in gateway/host/host-files.ts' },
  'Jobs and queue': { kit: 'jobs-lifecycle-and-webhook-order' },
  'Job webhook `progress`': { file: 'gateway/test/queue.test.ts', test: 'suppresses progress on the webhook with progress: completion, and never sends job_submitted' },
  'Queue WS': { file: 'gateway/test/queue.test.ts', test: 'streams queue_attached, job events and refreshed stats on /queue/ws to operators only' },
  '`SessionNotification`': { kit: 'notifications-turn-and-close' },
  'Preflight': { kit: 'auth-cors-preflight-before-auth' },
  'Settled execution ids after a restart': { kit: 'parking-survives-restart' },
  'Bridged tool with nobody attached, or a client that never answers': { file: 'gateway/test/parking.test.ts', test: 'cancels a bridged call the client never answers, and the turn goes on with the timeout as tool output' },
  'Resume of an engine session whose transcript is gone': { unobservable: 'needs a real engine-side transcript store; the fake CLI keeps none to delete' },
  '`tool_call_request.limits`': { unobservable: 'optional, and the provider engine sets no limits on a bridged call, so no frame carries it; the frame keys are checked under `tool_call_canceled.reason`' },
}

let g: TestGateway
beforeAll(async () => {
  g = await startTestGateway(
    { engines: { cli_primary: createCliPrimaryAdapter(FAKE_CLI) }, parking: { parkDelayMs: 20 } },
    { deferredTools: { deferred_task: { expiresInMs: 60_000 }, deferred_short: { expiresInMs: 150 } }, bridgedTools: { client_eval: {}, client_eval_short: { expiresInMs: 80 } } },
  )
})
afterAll(() => g.close())

async function attached(body: Record<string, unknown> = {}): Promise<{ id: string; ws: TestSocket; session: any }> {
  const session = await g.createSession(body)
  const ws = await g.attach(session.id)
  await ws.waitForEvent('status_changed', (e) => e.status === 'idle')
  return { id: session.id, ws, session }
}

/** A bridged `client_eval` turn answered with `answer`; the turn's result. */
async function bridgedTurn(answer: Record<string, unknown>): Promise<{ ws: TestSocket; result: any }> {
  const { ws } = await attached()
  ws.send({ type: 'user_message', text: 'scenario:bridge' })
  const request = await ws.waitFor((f) => f.type === 'tool_call_request')
  ws.send({ type: 'error' in answer ? 'tool_call_error' : 'tool_call_result', executionId: request.executionId, ...answer })
  return { ws, result: await ws.waitForEvent('turn_result') }
}

const inline = (steps: unknown[]) => `scenario:${JSON.stringify({ name: 'inline', steps })}`

async function askedPermission(): Promise<{ id: string; ws: TestSocket; request: any }> {
  const { id, ws } = await attached({ profile: 'primary', cwd: g.cwdRoot })
  ws.send({ type: 'user_message', text: 'scenario:permission' })
  const { request } = await ws.waitForEvent('permission_requested')
  return { id, ws, request }
}

/** Checks run here, by the row's first column. */
const HERE: Record<string, () => Promise<void>> = {
  'What the model receives for a bridged or deferred answer': async () => {
    expect((await bridgedTurn({ output: { type: 'json', value: 42 } })).result.result).toBe('The client answered: 42')
    expect((await bridgedTurn({ output: { type: 'text', value: 'forty-two' } })).result.result).toBe('The client answered: "forty-two"')
  },
  'What the model receives for a failure (`tool_call_error`, a failed result, a deferred deadline)': async () => {
    expect((await bridgedTurn({ reason: 'unsupported', error: 'no sandbox' })).result.result).toBe('The client answered: unsupported: no sandbox')
    const { ws } = await attached()
    ws.send({ type: 'user_message', text: 'scenario:deferred-short' })
    expect((await ws.waitForEvent('turn_result')).result).toMatch(/^After the deadline: timeout: deferred execution 'deferred_short'/)
  },
  '`tool_call_canceled.reason`': async () => {
    const interrupted = await attached()
    interrupted.ws.send({ type: 'user_message', text: 'scenario:bridge' })
    const request: any = await interrupted.ws.waitFor((f) => f.type === 'tool_call_request')
    expect(Object.keys(request).every((k) => ['type', 'executionId', 'toolName', 'input', 'vfsSeed', 'limits', 'expiresAt'].includes(k))).toBe(true)
    interrupted.ws.send({ type: 'interrupt' })
    expect(await interrupted.ws.waitFor((f) => f.type === 'tool_call_canceled')).toEqual({ type: 'tool_call_canceled', executionId: request.executionId, reason: 'aborted' })
    const lapsed = await attached()
    lapsed.ws.send({ type: 'user_message', text: inline([{ type: 'bridge', name: 'client_eval_short', input: {} }, { type: 'text', text: 'after' }]) })
    expect(await lapsed.ws.waitFor((f) => f.type === 'tool_call_canceled')).toMatchObject({ reason: 'timeout' })
    const deleted = await attached()
    deleted.ws.send({ type: 'user_message', text: 'scenario:bridge' })
    await deleted.ws.waitFor((f) => f.type === 'tool_call_request')
    await g.request('DELETE', `/sessions/${deleted.id}`)
    expect(await deleted.ws.waitFor((f) => f.type === 'tool_call_canceled')).toMatchObject({ reason: 'session_closed' })
  },
  '`PermissionRequest`': async () => {
    const { request } = await askedPermission()
    expect(request).toMatchObject({ id: expect.any(String), toolName: 'Bash', input: { command: 'echo hello' }, toolUseId: expect.any(String) })
    expect(request.requestId).toBe(request.id)
  },
  '`permission_decision.requestId` and `POST /sessions/:id/permissions/:requestId`': async () => {
    const ws1 = await askedPermission()
    ws1.ws.send({ type: 'permission_decision', requestId: ws1.request.id, behavior: 'allow' })
    expect(await ws1.ws.waitForEvent('permission_resolved')).toMatchObject({ requestId: ws1.request.id, behavior: 'allow', resolvedBy: 'client' })
    const rest = await askedPermission()
    expect((await g.request('POST', `/sessions/${rest.id}/permissions/${rest.request.id}`, { body: { behavior: 'allow' } })).body).toEqual({ resolved: true })
  },
  '`permission_resolved`': async () => {
    const { ws, request } = await askedPermission()
    ws.send({ type: 'permission_decision', requestId: request.id, behavior: 'deny' })
    expect(await ws.waitForEvent('permission_resolved')).toEqual(expect.objectContaining({ requestId: request.id, behavior: 'deny', resolvedBy: 'client', message: 'Denied' }))
  },
  '`turn_result.subtype`': async () => {
    const { ws } = await attached()
    ws.send({ type: 'user_message', text: 'scenario:bridge' })
    await ws.waitFor((f) => f.type === 'tool_call_request')
    ws.send({ type: 'interrupt' })
    expect(await ws.waitForEvent('turn_result')).toMatchObject({ subtype: 'error_during_execution', isError: true, errors: ['interrupted'] })
  },
  '`execution_dispatched.backend`': async () => {
    const { ws } = await bridgedTurn({ output: { type: 'json', value: 1 } })
    expect(ws.events().find((e) => e.type === 'execution_dispatched').backend).toBe('browser')
    const deferred = await attached()
    deferred.ws.send({ type: 'user_message', text: 'scenario:deferred' })
    expect(await deferred.ws.waitForEvent('execution_dispatched')).toMatchObject({ backend: 'remote', deferred: true, expiresAt: expect.any(Number) })
  },
  '`execution_failed.reason`': async () => {
    const reasons: string[] = []
    const interrupted = await attached()
    interrupted.ws.send({ type: 'user_message', text: 'scenario:bridge' })
    await interrupted.ws.waitFor((f) => f.type === 'tool_call_request')
    interrupted.ws.send({ type: 'interrupt' })
    reasons.push((await interrupted.ws.waitForEvent('execution_failed')).reason)
    const lapsed = await attached()
    lapsed.ws.send({ type: 'user_message', text: 'scenario:deferred-short' })
    reasons.push((await lapsed.ws.waitForEvent('execution_failed')).reason)
    // Nobody attached: the bridged call fails at once.
    const alone = await g.createSession({ prompt: 'scenario:bridge' })
    await until(() => g.request('GET', `/sessions/${alone.id}`).then((r) => r.body.session.status), (s) => s === 'idle', 'idle')
    const replay = await g.attach(alone.id, { afterSeq: 0 })
    reasons.push((await replay.waitForEvent('execution_failed')).reason)
    expect(reasons).toEqual(['interrupted', 'timeout', 'no_client'])
  },
  '`execution_failed.error`': async () => {
    const { ws } = await bridgedTurn({ reason: 'unsupported', error: 'no sandbox' })
    expect(ws.events().find((e) => e.type === 'execution_failed')).toMatchObject({ reason: 'unsupported', error: 'no sandbox' })
  },
  '`session_closed.reason`': async () => {
    const byClient = await attached()
    byClient.ws.send({ type: 'close' })
    expect(await byClient.ws.waitForEvent('session_closed')).toMatchObject({ reason: 'client' })
    const byServer = await attached()
    await g.request('DELETE', `/sessions/${byServer.id}`)
    expect(await byServer.ws.waitForEvent('session_closed')).toMatchObject({ reason: 'server' })
  },
  '`attached`': async () => {
    const { ws, id } = await attached()
    const first: any = ws.frames[0]
    expect(Object.keys(first).sort()).toEqual(['protocolVersion', 'replayingFrom', 'session', 'type'])
    expect(first).toMatchObject({ type: 'attached', protocolVersion: 7, replayingFrom: 0, session: { id } })
  },
  '`protocol_error`': async () => {
    const { ws } = await attached()
    ws.send('{not json')
    ws.send({ type: 'dance' })
    ws.send({ type: 'user_message', text: 'hi', attachmentIds: ['nope'] })
    await until(async () => ws.frames.filter((f) => f.type === 'protocol_error').length, (n) => n === 3, 'three protocol errors')
    expect(ws.frames.filter((f) => f.type === 'protocol_error')).toEqual([
      { type: 'protocol_error', message: 'invalid JSON frame' },
      { type: 'protocol_error', message: 'unknown command: dance' },
      { type: 'protocol_error', message: 'unknown attachment(s): nope' },
    ])
  },
  'The socket after `close` and after a `protocol_error`': async () => {
    const { ws } = await attached()
    ws.send({ type: 'dance' })
    await ws.waitFor((f) => f.type === 'protocol_error')
    ws.send({ type: 'close' })
    await ws.waitForEvent('status_changed', (e) => e.status === 'closed')
    expect(ws.ws.readyState).toBe(ws.ws.OPEN)
  },
  'Replay on attach': async () => {
    const { id, ws } = await attached()
    ws.send({ type: 'user_message', text: 'scenario:hello' })
    await ws.waitForEvent('turn_result')
    ws.send({ type: 'clear_context' })
    const reset = await ws.waitForEvent('conversation_reset')
    ws.send({ type: 'user_message', text: 'scenario:hello' })
    const second = await ws.waitForEvent('turn_result', (e) => e.seq > reset.seq)
    const all = await g.attach(id, { afterSeq: 0 })
    await all.waitFor((f) => f.type === 'event' && f.event.seq === second.seq)
    const replayed = all.events()
    expect(replayed.some((e) => e.seq < reset.seq && ['user_message', 'assistant_message', 'turn_result'].includes(e.type))).toBe(false)
    expect(replayed.some((e) => e.seq < reset.seq && e.type === 'status_changed')).toBe(true) // state events replay
    const tail = await g.attach(id, { afterSeq: reset.seq })
    await tail.waitFor((f) => f.type === 'event' && f.event.seq === second.seq)
    expect(tail.events().every((e) => e.seq > reset.seq)).toBe(true)
  },
  'Session envelopes': async () => {
    const created = await g.request('POST', '/sessions', { body: {} })
    expect(created.status).toBe(201)
    expect(Object.keys(created.body)).toEqual(['session'])
    const id = created.body.session.id
    expect(Object.keys((await g.request('GET', '/sessions')).body)).toEqual(['sessions'])
    for (const [method, body] of [['GET', undefined], ['PATCH', { title: 't' }], ['DELETE', undefined]] as const) {
      const res = await g.request(method, `/sessions/${id}`, { body })
      expect(Object.keys(res.body), method).toEqual(['session'])
    }
  },
  '`DELETE /sessions/:id`': async () => {
    const { id, ws } = await attached()
    const res = await g.request('DELETE', `/sessions/${id}`)
    expect(res.status).toBe(200)
    expect(res.body.session).toMatchObject({ id, status: 'closed' })
    expect(await ws.waitForEvent('session_closed')).toMatchObject({ reason: 'server' })
  },
  '`PATCH /sessions/:id`': async () => {
    const session = await g.createSession({ prompt: 'Plan the launch' })
    const patch = (body: unknown) => g.request('PATCH', `/sessions/${session.id}`, { body }).then((r) => r.body.session.title)
    const derived = session.title
    expect(await patch({ title: '  Launch  ' })).toBe('Launch')
    expect(await patch({ other: 1 })).toBe('Launch')
    expect(await patch({ title: '' })).toBe(derived)
    await patch({ title: 'again' })
    expect(await patch({ title: null })).toBe(derived)
  },
  '`SessionInfo.cwd`': async () => {
    expect((await g.createSession({})).cwd).toBe('')
  },
  '`GET /sessions` query parameters': async () => {
    await g.createSession({})
    await g.createSession({})
    expect((await g.request('GET', '/sessions?limit=1&status=closed')).body.sessions.length).toBeGreaterThan(1)
  },
  'Closed sessions in the list': async () => {
    const { id, ws } = await attached()
    ws.send({ type: 'close' })
    await ws.waitForEvent('session_closed')
    expect((await g.request('GET', '/sessions')).body.sessions.find((s: any) => s.id === id)).toMatchObject({ status: 'closed' })
  },
  '`POST /sessions/:id/permissions/:requestId`': async () => {
    const live = await attached()
    expect((await g.request('POST', `/sessions/${live.id}/permissions/nope`, { body: { behavior: 'maybe' } })).status).toBe(400)
    expect((await g.request('POST', `/sessions/${live.id}/permissions/nope`, { body: { behavior: 'allow' } })).status).toBe(404)
    live.ws.send({ type: 'user_message', text: 'scenario:deferred' })
    await live.ws.waitForEvent('execution_dispatched')
    live.ws.close()
    await until(async () => g.gateway.context.parking.isParked(live.id), (p) => p, 'parked')
    expect((await g.request('POST', `/sessions/${live.id}/permissions/nope`, { body: { behavior: 'maybe' } })).status).toBe(400)
    expect((await g.request('POST', `/sessions/${live.id}/permissions/nope`, { body: { behavior: 'allow' } })).status).toBe(409)
  },
  '`GET /sessions/:id/files`': async () => {
    const { id, ws } = await attached()
    ws.send({ type: 'user_message', text: 'scenario:deliver' })
    await ws.waitForEvent('turn_result')
    const listed = (await g.request('GET', `/sessions/${id}/files`)).body
    expect(Object.keys(listed)).toEqual(['files'])
    expect(listed.files).toContainEqual({ path: '/report.md', bytes: expect.any(Number) })
  },
  'Attachment upload': async () => {
    const session = await g.createSession({})
    const res = await g.request('POST', `/sessions/${session.id}/attachments?name=note.txt`, { raw: 'hello', headers: { 'content-type': 'text/plain' } })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({ attachment: { id: expect.any(String), name: 'note.txt', mediaType: 'text/plain', bytes: 5 } })
  },
  '`GET /sessions/:id/mcp`, `POST …/mcp/:name`': async () => {
    const session = await g.createSession({})
    expect((await g.request('GET', `/sessions/${session.id}/mcp`)).body).toEqual({ servers: [] })
  },
  '`GET /sessions/:id/produced`': async () => {
    const session = await g.createSession({})
    expect((await g.request('GET', `/sessions/${session.id}/produced`)).body).toEqual({ files: [] })
  },
  '`GET /profiles`': async () => {
    expect(Object.keys((await g.request('GET', '/profiles')).body).sort()).toEqual(['canManage', 'profiles'])
  },
  'ProfileInfo': async () => {
    const profile = (await g.request('GET', '/profiles')).body.profiles.find((p: any) => p.name === 'default')
    for (const key of ['name', 'engine', 'provider', 'capabilities', 'models', 'defaultModel', 'managed']) expect(profile, key).toHaveProperty(key)
    expect(profile).not.toHaveProperty('available') // no credential check configured, so no verdict
    expect(Object.keys(profile.provider).sort()).toEqual(['id', 'model', 'models'])
  },
  'Create checks order': async () => {
    // Each request breaks two neighbouring checks; the earlier one's refusal wins.
    const create = (body: unknown, who: 'operator' | 'tenantA' = 'operator') => g.request('POST', '/sessions', { who, body }).then((r) => r.body.code)
    expect(await create({ scope: { tenant: 'b' }, profile: 'nope' }, 'tenantA')).toBe('scope_mismatch')
    expect(await create({ profile: 'nope', cwd: '/' })).toBe('unknown_profile')
    expect(await create({ profile: 'primary', cwd: '/', permissionMode: 'plan', maxTurns: 1, mcpServers: {} })).toBe('cwd_outside_roots')
    expect(await create({ profile: 'default', maxTurns: 1 })).toBe('field_not_supported') // the engine record, last
  },
  'Scoped principal on `/fs/*`, `/sdk-sessions`, `/queue`, `/queue/ws`': async () => {
    for (const path of ['/fs/roots', '/sdk-sessions', '/queue']) expect((await g.request('GET', path, { who: 'tenantA' })).status, path).toBe(404)
  },
}

describe('docs/compatibility.md rows re-checked against our wire', () => {
  it('gives every "the same" row a check: here, an existing test, a kit case, or why it cannot be observed', () => {
    const unchecked = sameRows.map((r) => r.shape).filter((shape) => !(shape in HERE) && !(shape in ELSEWHERE))
    expect(unchecked).toEqual([])
    const stale = [...Object.keys(HERE), ...Object.keys(ELSEWHERE)].filter((shape) => !sameRows.some((r) => r.shape === shape))
    expect(stale).toEqual([])
  })

  it('points only at tests and kit cases that exist', () => {
    const caseIds = new Set(ALL_CASES.map((c) => c.id))
    for (const [shape, pointer] of Object.entries(ELSEWHERE)) {
      if ('kit' in pointer) expect(caseIds.has(pointer.kit), shape).toBe(true)
      if ('file' in pointer) expect(readFileSync(new URL(pointer.file, ROOT), 'utf8'), shape).toContain(`it('${pointer.test}'`)
    }
  })

  for (const [shape, check] of Object.entries(HERE)) it(`row ${shape}`, check)
})
