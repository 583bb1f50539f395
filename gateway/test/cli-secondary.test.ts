/**
 * The cli_secondary engine end to end: the adapter spawning the fake `codex app-server` as a child
 * process (fake-engines/codex-app-server), through the gateway's REST and WebSocket routes.
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createCliSecondaryAdapter, type CliSecondaryOptions } from '../engines/cli-secondary/index.ts'
import type { ProfileConfig } from '../protocol/index.ts'
import { FAKE_CODEX } from './fake-codex.ts'
import { createMemoryProfileStore } from '../host/profile-store.ts'
import { PROVIDER_PROFILE, startTestGateway, until, type TestGateway } from './harness.ts'


const gateways: TestGateway[] = []
afterEach(async () => {
  for (const g of gateways.splice(0)) await g.close()
})

async function start(options: Partial<CliSecondaryOptions> = {}, server: Record<string, unknown> = {}) {
  const codexHome = await mkdtemp(join(tmpdir(), 'codex-home-'))
  const profiles: ProfileConfig[] = [PROVIDER_PROFILE, { name: 'codex', engine: 'cli_secondary', codexHome }]
  const g = await startTestGateway({ engines: { cli_secondary: createCliSecondaryAdapter({ ...FAKE_CODEX, ...options }) }, profiles, ...server })
  gateways.push(g)
  return { g, codexHome }
}

async function codexSession(g: TestGateway, body: Record<string, unknown> = {}) {
  const session = await g.createSession({ profile: 'codex', cwd: g.cwdRoot, ...body })
  const ws = await g.attach(session.id)
  return { session, ws }
}

/** The fake codex children of this test process (the gateway runs in-process). */
function fakeChildren(): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
  return out.split('\n').filter((l) => l.includes('codex-app-server/main.ts') && l.includes('app-server')).map((l) => Number(l.trim().split(/\s+/)[0]))
}

describe('engine cli_secondary on the fake codex app-server', () => {
  it('is no longer 501: a text turn gives system_init with the thread id, messages, usage from last, context_usage', async () => {
    const { g } = await start()
    const { session, ws } = await codexSession(g, { prompt: 'hello codex' })
    expect(session).toMatchObject({ engine: 'cli_secondary', profile: 'codex' })
    expect(session.capabilities).toMatchObject({ mcpServerActions: false, attachments: ['image', 'text'], permissionModes: ['default', 'acceptEdits', 'bypassPermissions', 'auto'] })
    const init = await ws.waitForEvent('system_init')
    expect(init).toMatchObject({ model: 'fake-codex-model', cwd: g.cwdRoot, permissionMode: 'default' })
    const result = await ws.waitForEvent('turn_result')
    expect(result).toMatchObject({ subtype: 'success', isError: false, result: 'echo: hello codex', numTurns: 1, usage: { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 0 } })
    expect(ws.events().filter((e) => e.type === 'user_message')).toHaveLength(1) // codex's own echo is dropped
    expect((await ws.waitForEvent('context_usage')).usage).toMatchObject({ totalTokens: 110, maxTokens: 258_400 })
    const info = (await g.request('GET', `/sessions/${session.id}`)).body.session
    expect(info).toMatchObject({ status: 'idle', sdkSessionId: init.sdkSessionId })
  })

  it('streams deltas as protocol-7 content_block_delta events with includePartialMessages, and maps cached input', async () => {
    const { g } = await start()
    const { ws } = await codexSession(g, { includePartialMessages: true })
    ws.send({ type: 'user_message', text: 'scenario:{"name":"x","steps":[{"type":"text","text":"abcdefgh","chunkSize":3},{"type":"usage","input":50,"output":7,"cacheRead":20}]}' })
    const result = await ws.waitForEvent('turn_result')
    const deltas = ws.events().filter((e) => e.type === 'stream_delta')
    // Protocol 7's raw stream shape (events.11): one message, one text block, a delta per codex chunk.
    expect(deltas.map((d) => d.event.type)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop'])
    expect(deltas.filter((d) => d.event.type === 'content_block_delta').map((d) => d.event)).toEqual(['abc', 'def', 'gh'].map((text) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })))
    expect(deltas.every((d) => d.parentToolUseId === null)).toBe(true)
    expect(result.usage).toEqual({ input_tokens: 50, cache_read_input_tokens: 20, cache_creation_input_tokens: 0, output_tokens: 7 })
  })

  it('rate-limit readings arrive as rate_limit; a text turn without readings reports none', async () => {
    const { g } = await start()
    const { ws } = await codexSession(g, { prompt: 'scenario:rate-limited' })
    expect((await ws.waitForEvent('rate_limit')).info).toMatchObject({ primary: { usedPercent: 80, windowDurationMins: 300 } })
    expect((await ws.waitForEvent('turn_result')).result).toBe('Within limits.')
    ws.send({ type: 'user_message', text: 'plain' })
    await ws.waitForEvent('turn_result', (e) => e.numTurns === 2)
    expect(ws.events().filter((e) => e.type === 'rate_limit')).toHaveLength(1)
  })

  it('a command approval: allow runs the command, deny declines it; requests anchor on the tool card', async () => {
    const { g } = await start()
    const { session, ws } = await codexSession(g)
    ws.send({ type: 'user_message', text: 'scenario:permission' })
    const asked = await ws.waitForEvent('permission_requested')
    const card = ws.events().find((e) => e.type === 'assistant_message' && e.message.content[0]?.type === 'tool_use')
    expect(asked.request).toMatchObject({ toolName: 'Bash', input: { command: "/bin/bash -lc 'echo hello'" }, toolUseId: card.message.content[0].id })
    await ws.waitForEvent('status_changed', (e) => e.status === 'awaiting_approval')
    const allow = await g.request('POST', `/sessions/${session.id}/permissions/${asked.request.requestId}`, { body: { behavior: 'allow' } })
    expect(allow.body).toEqual({ resolved: true })
    expect((await ws.waitForEvent('turn_result')).result).toBe('Tool said: hello\n')
    ws.send({ type: 'user_message', text: 'scenario:permission' })
    const second = await ws.waitForEvent('permission_requested', (e) => e.request.requestId !== asked.request.requestId)
    ws.send({ type: 'permission_decision', requestId: second.request.requestId, behavior: 'deny' })
    const denied = await ws.waitForEvent('turn_result', (e) => e.numTurns === 2)
    expect(denied.result).toBe('Tool said: rejected by user')
    const results = ws.events().filter((e) => e.type === 'user_message' && e.synthetic)
    expect(results.at(-1).message.content[0]).toMatchObject({ is_error: true, content: 'declined by the user' })
  })

  it('a file change asks in default mode and produces the file; acceptEdits applies without asking', async () => {
    const { g } = await start()
    const { session, ws } = await codexSession(g)
    ws.send({ type: 'user_message', text: 'scenario:write-file' })
    const asked = await ws.waitForEvent('permission_requested')
    expect(asked.request).toMatchObject({ toolName: 'apply_patch', title: 'Apply a patch' })
    ws.send({ type: 'permission_decision', requestId: asked.request.requestId, behavior: 'allow' })
    const produced = await ws.waitForEvent('file_produced')
    expect(produced.path).toBe(join(g.cwdRoot, 'notes.md'))
    expect(await readFile(join(g.cwdRoot, 'notes.md'), 'utf8')).toContain('Written by the agent.')
    await ws.waitForEvent('turn_result')
    const served = await g.request('GET', `/sessions/${session.id}/produced/${produced.fileId}`)
    expect(served.status).toBe(200)
    ws.send({ type: 'set_permission_mode', mode: 'acceptEdits' })
    await ws.waitForEvent('permission_mode_changed')
    ws.send({ type: 'user_message', text: 'scenario:{"name":"w","steps":[{"type":"produce_file","path":"second.md","content":"two"},{"type":"text","text":"done"}]}' })
    expect((await ws.waitForEvent('turn_result', (e) => e.numTurns === 2)).result).toBe('done')
    expect(ws.events().filter((e) => e.type === 'permission_requested')).toHaveLength(1)
    expect(existsSync(join(g.cwdRoot, 'second.md'))).toBe(true)
  })

  it('bypassPermissions runs commands unasked; auto lets codex review them (no permission request)', async () => {
    const { g } = await start()
    const bypass = await codexSession(g, { permissionMode: 'bypassPermissions', allowDangerouslySkipPermissions: true })
    bypass.ws.send({ type: 'user_message', text: 'scenario:permission' })
    expect((await bypass.ws.waitForEvent('turn_result')).result).toBe('Tool said: hello\n')
    const auto = await codexSession(g, { permissionMode: 'auto' })
    auto.ws.send({ type: 'user_message', text: 'scenario:permission' })
    expect((await auto.ws.waitForEvent('turn_result')).result).toBe('Tool said: hello\n')
    expect((await auto.ws.waitForEvent('sdk_event')).payload).toMatchObject({ type: 'codex_auto_review', review: { status: 'approved' } })
    for (const s of [bypass, auto]) expect(s.ws.events().some((e) => e.type === 'permission_requested')).toBe(false)
  })

  it('interrupt ends a hanging turn, and one waiting on an approval (the card is retired); the session stays usable', async () => {
    const { g } = await start()
    const { ws } = await codexSession(g)
    ws.send({ type: 'user_message', text: 'scenario:hang' })
    await ws.waitForEvent('status_changed', (e) => e.status === 'running')
    ws.send({ type: 'interrupt' })
    expect(await ws.waitForEvent('turn_result')).toMatchObject({ subtype: 'error_during_execution', isError: true, errors: ['interrupted'] })
    ws.send({ type: 'user_message', text: 'scenario:permission' })
    await ws.waitForEvent('permission_requested')
    ws.send({ type: 'interrupt' })
    expect(await ws.waitForEvent('permission_resolved')).toMatchObject({ behavior: 'deny', resolvedBy: 'policy' })
    expect(await ws.waitForEvent('turn_result', (e) => e.numTurns === 2)).toMatchObject({ errors: ['interrupted'] })
    ws.send({ type: 'user_message', text: 'after' })
    expect((await ws.waitForEvent('turn_result', (e) => e.numTurns === 3)).result).toBe('echo: after')
  })

  it('resumes a thread in a fresh codex process with its history replayed; an unknown thread fails the session', async () => {
    const { g } = await start()
    const first = await codexSession(g, { prompt: 'remember me' })
    const init = await first.ws.waitForEvent('system_init')
    await first.ws.waitForEvent('turn_result')
    await g.request('DELETE', `/sessions/${first.session.id}`)
    const second = await codexSession(g, { resume: init.sdkSessionId })
    await second.ws.waitForEvent('system_init')
    const replayed = second.ws.events().filter((e) => e.replay === true)
    expect(replayed.map((e) => [e.type, e.message.content])).toEqual([['user_message', 'remember me'], ['assistant_message', [{ type: 'text', text: 'echo: remember me' }]]])
    second.ws.send({ type: 'user_message', text: 'again' })
    const result = await second.ws.waitForEvent('turn_result')
    // The stale usage codex re-sends for the old turn is not added to the new one (reference §9).
    expect(result).toMatchObject({ result: 'echo: again', usage: { input_tokens: 100, output_tokens: 10 } })
    const listed = await g.request('GET', `/sdk-sessions?profile=codex&dir=${encodeURIComponent(g.cwdRoot)}`)
    expect(listed.status).toBe(200)
    expect(listed.body.sdkSessions[0]).toMatchObject({ sessionId: init.sdkSessionId, summary: 'remember me', cwd: g.cwdRoot })
    expect(listed.body.sdkSessions[0].lastModified).toBeGreaterThan(1e12) // milliseconds
    const unknown = await codexSession(g, { resume: '00000000-0000-0000-0000-000000000000' })
    expect((await unknown.ws.waitForEvent('session_error')).message).toContain('no rollout found')
    await unknown.ws.waitForEvent('status_changed', (e) => e.status === 'failed')
  })

  it('a SIGKILL of codex mid-turn ends the turn, not the session; the next turn works on the same thread; another session keeps working', async () => {
    const { g } = await start({ respawn: { backoffMs: 10 } })
    const before = fakeChildren()
    // A first turn stores the thread (codex writes none of a thread killed in its first turn).
    const doomed = await codexSession(g, { prompt: 'remember me' })
    const init = await doomed.ws.waitForEvent('system_init')
    const stored = await doomed.ws.waitForEvent('turn_result')
    doomed.ws.send({ type: 'user_message', text: 'scenario:hang' })
    await doomed.ws.waitForEvent('status_changed', (e) => e.status === 'running' && e.seq > stored.seq)
    const pid = await until(async () => fakeChildren().filter((p) => !before.includes(p)), (p) => p.length === 1, 'the doomed session child').then((p) => p[0])
    const other = await codexSession(g)
    process.kill(pid, 'SIGKILL')
    const failed = await doomed.ws.waitForEvent('turn_result', (e) => e.seq > stored.seq)
    expect(failed).toMatchObject({ isError: true, errors: [expect.stringMatching(/codex process exited \(signal SIGKILL\)/)] })
    other.ws.send({ type: 'user_message', text: 'still here' })
    expect((await other.ws.waitForEvent('turn_result')).result).toBe('echo: still here')
    doomed.ws.send({ type: 'user_message', text: 'after the kill' })
    expect((await doomed.ws.waitForEvent('turn_result', (e) => e.seq > failed.seq)).result).toBe('echo: after the kill')
    expect(doomed.ws.events().filter((e) => e.type === 'system_init').map((e) => e.sdkSessionId)).toEqual([init.sdkSessionId])
    expect(doomed.ws.events().some((e) => e.type === 'session_error')).toBe(false)
  })

  it('codex exiting mid-turn ends the turn with the stderr line; the next message respawns codex on the same thread', async () => {
    const { g } = await start({ respawn: { backoffMs: 10 } })
    const { session, ws } = await codexSession(g, { prompt: 'remember me' })
    const init = await ws.waitForEvent('system_init')
    await ws.waitForEvent('turn_result')
    const before = fakeChildren()
    ws.send({ type: 'user_message', text: 'scenario:crash' })
    const failed = await ws.waitForEvent('turn_result', (e) => e.isError)
    expect(failed).toMatchObject({ subtype: 'error_during_execution', errors: [expect.stringMatching(/code 1\): fake codex: crashing mid-turn/)] })
    await ws.waitForEvent('status_changed', (e) => e.status === 'idle' && e.seq > failed.seq)
    ws.send({ type: 'user_message', text: 'still there?' })
    expect((await ws.waitForEvent('turn_result', (e) => e.seq > failed.seq && !e.isError)).result).toBe('echo: still there?')
    expect(ws.events().some((e) => e.type === 'session_error')).toBe(false)
    // One system_init: the respawn resumed the same thread and replayed nothing.
    expect(ws.events().filter((e) => e.type === 'system_init')).toHaveLength(1)
    expect(ws.events().filter((e) => e.replay)).toHaveLength(0)
    expect((await g.request('GET', `/sessions/${session.id}`)).body.session).toMatchObject({ status: 'idle', sdkSessionId: init.sdkSessionId })
    expect(fakeChildren().some((pid) => !before.includes(pid))).toBe(true)
  })

  it('codex killed in the thread\'s first turn: the next message starts a new thread (codex stored none of the first)', async () => {
    const { g } = await start({ respawn: { backoffMs: 10 } })
    const { ws } = await codexSession(g)
    const init = await ws.waitForEvent('system_init')
    ws.send({ type: 'user_message', text: 'scenario:crash' })
    const failed = await ws.waitForEvent('turn_result', (e) => e.isError)
    ws.send({ type: 'user_message', text: 'fresh' })
    const next = await ws.waitForEvent('system_init', (e) => e.seq > failed.seq)
    expect(next.sdkSessionId).not.toBe(init.sdkSessionId)
    expect((await ws.waitForEvent('turn_result', (e) => e.seq > failed.seq && !e.isError)).result).toBe('echo: fresh')
  })

  it('a crash loop backs off and then fails the session with session_error', async () => {
    const { g } = await start({ respawn: { backoffMs: 10, maxDeaths: 2 } })
    const { ws } = await codexSession(g)
    await ws.waitForEvent('system_init')
    ws.send({ type: 'user_message', text: 'scenario:crash' })
    const first = await ws.waitForEvent('turn_result', (e) => e.isError)
    ws.send({ type: 'user_message', text: 'scenario:crash' })
    expect((await ws.waitForEvent('session_error')).message).toMatch(/codex kept exiting .*crashing mid-turn/)
    await ws.waitForEvent('status_changed', (e) => e.status === 'failed')
    expect(ws.events().filter((e) => e.type === 'turn_result' && e.seq > first.seq)).toHaveLength(0)
  })

  it('a model failure fails the turn, not the session; a handshake that never answers fails within the timeout', async () => {
    const { g } = await start()
    const { ws } = await codexSession(g)
    ws.send({ type: 'user_message', text: 'scenario:model-error' })
    expect(await ws.waitForEvent('turn_result')).toMatchObject({ isError: true, errors: ['the fake model is having a bad day'] })
    const { g: g2 } = await start({ executable: '/bin/sh', executableArgs: ['-c', 'cat > /dev/null'], requestTimeoutMs: 300 })
    const silent = await codexSession(g2)
    expect((await silent.ws.waitForEvent('session_error')).message).toMatch(/did not answer initialize within 300 ms/)
  })

  it('attachments: a text file is inlined, an image goes as a localImage, a PDF is 415', async () => {
    const { g } = await start()
    const { session, ws } = await codexSession(g)
    const up = async (body: string, type: string, name: string) => g.request('POST', `/sessions/${session.id}/attachments?name=${name}`, { raw: body, headers: { 'content-type': type } })
    expect((await up('%PDF-1.4', 'application/pdf', 'a.pdf')).status).toBe(415)
    const text = (await up('file body', 'text/plain', 'a.txt')).body.attachment
    ws.send({ type: 'user_message', text: 'see file', attachmentIds: [text.id] })
    expect((await ws.waitForEvent('turn_result')).result).toContain('<attachment name="a.txt">\nfile body\n</attachment>')
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')
    const image = (await g.request('POST', `/sessions/${session.id}/attachments?name=dot.png`, { raw: png as never, headers: { 'content-type': 'image/png' } })).body.attachment
    ws.send({ type: 'user_message', text: 'see image', attachmentIds: [image.id] })
    expect((await ws.waitForEvent('turn_result', (e) => e.numTurns === 2)).result).toBe('echo: see image [localImage 0-dot.png]')
  })

  it('an unanswered approval is declined at approvalTimeoutMs; GET /mcp lists config.toml servers by name only', async () => {
    const { g } = await start()
    const { session, ws } = await codexSession(g, { approvalTimeoutMs: 150 })
    ws.send({ type: 'user_message', text: 'scenario:permission' })
    expect(await ws.waitForEvent('permission_resolved')).toMatchObject({ behavior: 'deny', resolvedBy: 'timeout' })
    expect((await ws.waitForEvent('turn_result')).result).toBe('Tool said: rejected by user')
    await ws.waitForEvent('status_changed', (e) => e.status === 'idle')
    const mcp = await g.request('GET', `/sessions/${session.id}/mcp`)
    expect(mcp.status).toBe(200)
    expect(JSON.stringify(mcp.body)).toContain('"name":"docs"')
    expect(JSON.stringify(mcp.body)).toContain('"status":"connected"')
    expect(mcp.text).not.toContain('never-shown')
    expect((await g.request('POST', `/sessions/${session.id}/mcp/docs`, { body: { action: 'reconnect' } })).status).toBe(501)
  })

  it('a managed codex profile: codexHome inside allowedConfigDirRoots or none at all (exempt); outside is 403; its sessions run', async () => {
    const roots = await mkdtemp(join(tmpdir(), 'codex-roots-'))
    const outside = await mkdtemp(join(tmpdir(), 'codex-outside-'))
    const { g } = await start({}, { profileStore: createMemoryProfileStore(), allowedConfigDirRoots: [roots] })
    const create = (body: Record<string, unknown>) => g.request('POST', '/profiles', { who: 'manager', body: { engine: 'cli_secondary', ...body } })
    expect((await create({ name: 'cx-in', codexHome: roots })).status).toBe(200)
    expect((await create({ name: 'cx-out', codexHome: outside })).status).toBe(403)
    expect((await create({ name: 'cx-none' })).status).toBe(200)
    const session = await g.createSession({ profile: 'cx-in', cwd: g.cwdRoot, prompt: 'managed' })
    const ws = await g.attach(session.id)
    expect((await ws.waitForEvent('turn_result')).result).toBe('echo: managed')
    expect(execFileSync('find', [join(roots, 'sessions'), '-name', '*.jsonl'], { encoding: 'utf8' })).toContain('rollout-')
  })

  it('the credential probe reads codex login status; set_model reaches the next turn/start', async () => {
    const { g, codexHome } = await start()
    const adapter = createCliSecondaryAdapter(FAKE_CODEX)
    const profile = { name: 'codex', engine: 'cli_secondary' as const, codexHome }
    expect(await adapter.probeCredentials(profile)).toMatchObject({ available: false, reason: expect.stringContaining('not logged in') })
    await writeFile(join(codexHome, 'auth.json'), '{}')
    expect(await adapter.probeCredentials(profile)).toEqual({ available: true })
    const { ws } = await codexSession(g)
    ws.send({ type: 'set_model', model: 'other-model' })
    await ws.waitForEvent('model_changed')
    ws.send({ type: 'user_message', text: 'hi' })
    await ws.waitForEvent('turn_result')
    const rollouts = execFileSync('find', [join(codexHome, 'sessions'), '-name', '*.jsonl'], { encoding: 'utf8' }).trim().split('\n')
    expect(rollouts).toHaveLength(1)
    const listed = await g.request('GET', '/sdk-sessions?profile=codex')
    expect(listed.body.sdkSessions).toHaveLength(1)
  })
})
