/**
 * GatewayClient against our gateway on the fake engines: every route of the spec's Endpoints
 * section answers through its typed method, and refusals arrive as GatewayError carrying the
 * spec's status and the gateway's code (errors.*).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GatewayError, type GatewayClient, type QueueServerFrame, type SessionHandle } from '../index.ts'
import { startTestGateway, type TestGateway } from './gateway.ts'

let gw: TestGateway
let op: GatewayClient
const handles: SessionHandle[] = []
const WAIT = { timeoutMs: 15_000 }

beforeAll(async () => {
  gw = await startTestGateway()
  op = gw.client()
}, 60_000)
afterAll(async () => {
  for (const h of handles) h.detach()
  await gw?.target.close()
})

async function attached(client: GatewayClient, id: string): Promise<SessionHandle> {
  const handle = await client.attach(id)
  handles.push(handle)
  return handle
}

/** The GatewayError a call rejects with. */
async function refusal(call: Promise<unknown>): Promise<GatewayError> {
  const err = await call.then(() => undefined, (e: unknown) => e)
  expect(err).toBeInstanceOf(GatewayError)
  return err as GatewayError
}

describe('GatewayClient: sessions', () => {
  it('creates (201), lists within the caller\'s scope, reads, renames with the three-state title, deletes', async () => {
    const a = gw.client('tenantA')
    const created = await a.createSession({ ...gw.provider, meta: { title: 'Invoices' } })
    expect(created).toMatchObject({ profile: gw.provider.profile, engine: 'provider', status: expect.any(String), lastSeq: expect.any(Number) })
    expect((await a.listSessions()).map((s) => s.id)).toContain(created.id)
    expect((await gw.client('tenantB').listSessions()).map((s) => s.id)).not.toContain(created.id)
    expect((await a.getSession(created.id)).title).toBe('Invoices')
    expect((await a.updateSession(created.id, { title: 'Renamed' })).title).toBe('Renamed')
    expect((await a.updateSession(created.id, { title: null })).title).not.toBe('Renamed')
    const closed = await a.deleteSession(created.id)
    expect(closed.id).toBe(created.id)
    expect((await refusal(a.getSession(created.id))).status).toBe(404)
  })

  it('uploads an attachment and reads its bytes back; lists and downloads a delivered scratch file', async () => {
    const s = await op.createSession(gw.provider)
    const attachment = await op.uploadAttachment(s.id, new TextEncoder().encode('hello bytes'), { name: 'hello.txt', mediaType: 'text/plain' })
    expect(attachment).toMatchObject({ id: expect.any(String), name: 'hello.txt', mediaType: 'text/plain', bytes: 11 })
    const back = await op.downloadAttachment(s.id, attachment.id)
    expect(new TextDecoder().decode(back.bytes)).toBe('hello bytes')
    expect(back.mediaType).toContain('text/plain')

    const h = await attached(op, s.id)
    h.sendMessage('scenario:deliver')
    const delivered = await h.waitForEvent('file_delivered', WAIT)
    expect((await op.listSessionFiles(s.id)).map((f) => f.path)).toContain(delivered.path)
    const file = await op.downloadSessionFile(s.id, delivered.path)
    expect(new TextDecoder().decode(file.bytes)).toContain('All good.')
    expect(file.fileName).toBe('report.md')
  })

  it('reads MCP servers; an action the engine does not offer is a typed 501', async () => {
    const s = await op.createSession(gw.provider)
    expect(Array.isArray(await op.mcpServers(s.id))).toBe(true)
    const err = await refusal(op.mcpServerAction(s.id, 'anything', 'reconnect'))
    expect(err).toMatchObject({ status: 501, code: 'not_implemented' })
  })

  it('answers a permission over REST by id, lists and downloads the produced file, serves the project icon', async () => {
    const project = gw.target.manifest.project!
    const s = await op.createSession({ profile: gw.primary.profile, cwd: project.cwd })
    expect(s.project?.name).toBe(project.name)
    expect((await op.projectIcon(s.id)).mediaType).toContain('svg')
    const h = await attached(op, s.id)
    h.sendMessage('scenario:write-file')
    const request = await h.nextPermission(WAIT)
    expect(await op.resolvePermission(s.id, request, { behavior: 'allow' })).toEqual({ resolved: true })
    const produced = await h.waitForEvent('file_produced', WAIT)
    const listed = await op.listProducedFiles(s.id)
    expect(listed).toContainEqual(expect.objectContaining({ fileId: produced.fileId, path: produced.path }))
    expect(new TextDecoder().decode((await op.downloadProducedFile(s.id, produced.fileId)).bytes)).toContain('Written by the agent.')
    // Answered once: the same id again is a typed 404.
    expect(await refusal(op.resolvePermission(s.id, request.id, { behavior: 'deny', message: 'late' }))).toMatchObject({ status: 404, code: 'permission_request_not_found' })
  })

  it('delivers a deferred result by executionId, and fetches a stored tool result whole', async () => {
    const s = await op.createSession(gw.provider)
    const h = await attached(op, s.id)
    h.sendMessage('scenario:deferred')
    const dispatched = await h.waitForEvent('execution_dispatched', WAIT)
    expect(dispatched.deferred).toBe(true)
    expect(await op.submitExecutionResult(dispatched.executionId, { status: 'ok', output: { type: 'text', value: 'approved' } })).toEqual({ applied: true, sessionId: s.id })
    expect((await h.waitForTurn(WAIT)).result).toContain('approved')
    const carrying = h.events.find((e) => e.type === 'user_message' && e.synthetic && Array.isArray(e.message.content) && e.message.content.some((b) => b.type === 'tool_result'))
    expect(carrying).toBeDefined()
    const stored = await op.toolResult(s.id, carrying!.seq, dispatched.executionId)
    expect(stored).toMatchObject({ seq: carrying!.seq, toolUseId: dispatched.executionId, isError: false })
    expect(JSON.stringify(stored.content)).toContain('approved')
    expect(await refusal(op.submitExecutionResult('no-such-execution', { status: 'failed', reason: 'x', error: 'y' }))).toMatchObject({ status: 404 })
  })
})

describe('GatewayClient: profiles, host files, engine sessions', () => {
  it('lists and reads profiles; a manager creates, edits and deletes a managed one; others get a typed 403', async () => {
    const listed = await op.listProfiles()
    expect(listed.profiles.map((p) => p.name)).toContain(gw.provider.profile)
    expect(typeof listed.canManage).toBe('boolean')
    expect((await op.getProfile(gw.provider.profile)).profile.name).toBe(gw.provider.profile)
    const manager = gw.client('manager')
    const name = `client-test-${Date.now()}`
    const model = gw.target.manifest.models?.provider?.[0] ?? 'fake-small'
    expect(await manager.createProfile({ name, engine: 'provider', provider: { id: 'fake', model } })).toMatchObject({ name, managed: true })
    expect(await manager.updateProfile(name, { description: 'edited' })).toMatchObject({ name, description: 'edited' })
    expect(await refusal(gw.client('tenantA').deleteProfile(name))).toMatchObject({ status: 403 })
    await manager.deleteProfile(name)
    expect(await refusal(op.getProfile(name))).toMatchObject({ status: 404, code: 'profile_not_found' })
  })

  it('host files: roots, list, find, read, conditional write (409 without the hash); engine sessions list', async () => {
    const roots = await op.hostRoots()
    expect(roots.roots.length).toBeGreaterThan(0)
    const root = gw.target.manifest.cwdRoot!
    const path = `${root}/client-test.txt`
    const written = await op.writeHostFile({ path, content: 'one' })
    expect(written).toMatchObject({ path: expect.any(String), bytes: 3, hash: expect.any(String) })
    expect(await refusal(op.writeHostFile({ path, content: 'two' }))).toMatchObject({ status: 409, code: 'conflict' })
    const read = await op.readHostFile(path)
    expect(read).toMatchObject({ content: 'one', encoding: 'utf8', hash: written.hash })
    expect((await op.writeHostFile({ path, content: 'two', expectedHash: read.hash })).bytes).toBe(3)
    expect((await op.listHostDir(root)).entries.map((e) => e.name)).toContain('client-test.txt')
    expect((await op.findHostFiles(root, 'client-test')).matches.map((m) => m.relative)).toContain('client-test.txt')
    expect(Array.isArray((await op.listSdkSessions({ profile: gw.primary.profile })).sdkSessions)).toBe(true)
    // A scoped principal is refused the host routes with the same 404 as an unconfigured server (authentication.4).
    expect(await refusal(gw.client('tenantA').hostRoots())).toMatchObject({ status: 404 })
  })
})

describe('GatewayClient: jobs and queue', () => {
  it('submits, reads, lists and cancels jobs, reads queue stats, and watches the queue socket', async () => {
    const frames: QueueServerFrame[] = []
    const watch = await op.watchQueue({ onFrame: (f) => frames.push(f) })
    expect(typeof watch.stats.maxConcurrency).toBe('number')
    const job = await op.createJob({ session: { profile: gw.provider.profile, cwd: gw.target.manifest.cwdRoot!, prompt: 'hello' } })
    expect(job).toMatchObject({ id: expect.any(String), status: expect.any(String) })
    expect((await op.getJob(job.id)).id).toBe(job.id)
    expect((await op.listJobs()).map((j) => j.id)).toContain(job.id)
    expect(typeof (await op.queueStats()).running).toBe('number')
    const slow = await op.createJob({ session: { profile: gw.provider.profile, cwd: gw.target.manifest.cwdRoot!, prompt: 'scenario:{"name":"x","steps":[{"type":"sleep","ms":5000},{"type":"text","text":"late"}]}' } })
    expect((await op.cancelJob(slow.id)).id).toBe(slow.id)
    await expect.poll(() => frames.some((f) => f.type === 'job_event' && f.event.jobId === job.id), { timeout: 10_000 }).toBe(true)
    expect(frames[0].type).toBe('queue_attached')
    watch.close()
  })
})

describe('GatewayClient: typed errors', () => {
  it('carries the spec\'s status and the gateway\'s code: 401, 404 (unknown and out of scope alike), 400, 403', async () => {
    expect(await refusal(gw.client('operator', { token: 'wrong' }).listSessions())).toMatchObject({ status: 401, code: 'unauthorized' })
    const mine = await gw.client('tenantA').createSession(gw.provider)
    const other = await refusal(gw.client('tenantB').getSession(mine.id))
    const unknown = await refusal(gw.client('tenantB').getSession('no-such-session'))
    expect([other.status, other.code]).toEqual([unknown.status, unknown.code])
    expect(other).toMatchObject({ status: 404, code: 'session_not_found', method: 'GET' })
    expect(await refusal(op.createSession({ ...gw.provider, permissionMode: 'acceptEdits' }))).toMatchObject({ status: 400, code: 'permission_mode_not_supported' })
    expect(await refusal(op.createSession({ ...gw.provider, permissionMode: 'bypassPermissions', allowDangerouslySkipPermissions: true }))).toMatchObject({ status: 403 })
    const err = await refusal(op.getSession('no-such-session'))
    expect(err.message).toContain('404')
    expect(err.body).toMatchObject({ error: expect.any(String) })
  })

  it('derives the code from the status when a gateway sends no code (the spec leaves the error body open)', () => {
    expect(GatewayError.fromAnswer('GET', '/x', 404, { error: 'gone' })).toMatchObject({ status: 404, code: 'not_found' })
    expect(GatewayError.fromAnswer('POST', '/x', 409, 'plain text')).toMatchObject({ status: 409, code: 'conflict', body: 'plain text' })
    expect(GatewayError.fromAnswer('POST', '/x', 400, { error: 'no', code: 'profile_required' }).code).toBe('profile_required')
    expect(GatewayError.fromAnswer('POST', '/x', 400, { error: 'no', code: 'made_up' }).code).toBe('invalid_request')
  })
})
