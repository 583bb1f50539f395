/**
 * The cli_primary engine end to end: the real Agent SDK spawning the fake Claude Code CLI as a
 * child process, through the gateway's REST and WebSocket routes.
 */
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { environmentFor } from '../engines/cli-primary/adapter.ts'
import { createCliPrimaryAdapter, type CliPrimaryOptions } from '../engines/cli-primary/index.ts'
import { startTestGateway, type TestGateway } from './harness.ts'
import { FAKE_CLAUDE } from './fake-claude.ts'

const FAKE_CLI = FAKE_CLAUDE

const gateways: TestGateway[] = []
afterEach(async () => {
  for (const g of gateways.splice(0)) await g.close()
})

async function start(options: Partial<CliPrimaryOptions> = {}, server: Record<string, unknown> = {}) {
  const g = await startTestGateway({ engines: { cli_primary: createCliPrimaryAdapter({ ...FAKE_CLI, ...options }) }, ...server })
  gateways.push(g)
  return g
}

async function primarySession(g: TestGateway, body: Record<string, unknown> = {}) {
  const session = await g.createSession({ profile: 'primary', cwd: g.cwdRoot, ...body })
  const ws = await g.attach(session.id)
  return { session, ws }
}

describe('engine cli_primary on the Agent SDK and the fake CLI', () => {
  it('runs a turn: system_init, capabilities without the default row, messages, turn_result, context_usage', async () => {
    const g = await start()
    const { session, ws } = await primarySession(g, { prompt: 'hello there' })
    expect(session).toMatchObject({ engine: 'cli_primary', profile: 'primary' })
    const caps = await ws.waitForEvent('capabilities')
    expect(caps.models.map((m: any) => m.value)).toEqual(['sonnet', 'sonnet-1', 'opus'])
    expect(caps.defaultModel).toBe('claude-fake-sonnet-2')
    expect(caps.models.filter((m: any) => m.primary).map((m: any) => m.value)).toEqual(['sonnet', 'opus'])
    const init = await ws.waitForEvent('system_init')
    expect(init).toMatchObject({ apiKeySource: 'none', cwd: g.cwdRoot, model: 'claude-fake-sonnet-2' })
    const result = await ws.waitForEvent('turn_result')
    expect(result).toMatchObject({ subtype: 'success', isError: false, result: 'echo: hello there', numTurns: 1 })
    await ws.waitForEvent('context_usage')
    expect(ws.events().some((e) => e.type === 'plan_info')).toBe(false) // never for a non-subscription session
    const info = (await g.request('GET', `/sessions/${session.id}`)).body.session
    expect(info).toMatchObject({ status: 'idle', sdkSessionId: init.sdkSessionId, numTurns: 1 })
  })

  it('an allow with an edited input reaches the tool with the edited input; a second answer is 404', async () => {
    const g = await start()
    const { session, ws } = await primarySession(g)
    ws.send({ type: 'user_message', text: 'scenario:permission' })
    const asked = await ws.waitForEvent('permission_requested')
    expect(asked.request).toMatchObject({ toolName: 'Bash', input: { command: 'echo hello' } })
    await ws.waitForEvent('status_changed', (e) => e.status === 'awaiting_approval')
    expect((await g.request('GET', `/sessions/${session.id}`)).body.session.pendingPermissionCount).toBe(1)
    ws.send({ type: 'permission_decision', requestId: asked.request.requestId, behavior: 'allow', updatedInput: { command: 'echo edited' } })
    expect(await ws.waitForEvent('permission_resolved')).toMatchObject({ behavior: 'allow', resolvedBy: 'client' })
    expect((await ws.waitForEvent('turn_result')).result).toBe('Tool said: ran Bash with {"command":"echo edited"}')
    const again = await g.request('POST', `/sessions/${session.id}/permissions/${asked.request.requestId}`, { body: { behavior: 'allow' } })
    expect(again.status).toBe(404)
  })

  it('REST answers: an allow without updatedInput passes the original input, a deny reaches the model as a tool error', async () => {
    const g = await start()
    const { session, ws } = await primarySession(g)
    ws.send({ type: 'user_message', text: 'scenario:permission' })
    const first = await ws.waitForEvent('permission_requested')
    const allow = await g.request('POST', `/sessions/${session.id}/permissions/${first.request.requestId}`, { body: { behavior: 'allow' } })
    expect(allow.body).toEqual({ resolved: true })
    expect(await ws.waitForEvent('permission_resolved')).toMatchObject({ resolvedBy: 'client' })
    expect((await ws.waitForEvent('turn_result')).result).toBe('Tool said: ran Bash with {"command":"echo hello"}')
    ws.send({ type: 'user_message', text: 'scenario:permission' })
    const second = await ws.waitForEvent('permission_requested', (e) => e.request.requestId !== first.request.requestId)
    await g.request('POST', `/sessions/${session.id}/permissions/${second.request.requestId}`, { body: { behavior: 'deny', message: 'not today' } })
    expect((await ws.waitForEvent('turn_result', (e) => e.numTurns === 2)).result).toBe('Tool said: not today')
    await ws.waitForEvent('status_changed', (e) => e.status === 'idle' && e.seq > second.seq)
  })

  it('denies an unanswered approval at approvalTimeoutMs with resolvedBy timeout, and the session ends idle', async () => {
    const g = await start()
    const { session, ws } = await primarySession(g, { approvalTimeoutMs: 100 })
    ws.send({ type: 'user_message', text: 'scenario:permission' })
    expect(await ws.waitForEvent('permission_resolved')).toMatchObject({ behavior: 'deny', resolvedBy: 'timeout' })
    await ws.waitForEvent('turn_result')
    await ws.waitForEvent('status_changed', (e) => e.status === 'idle' && e.seq > 3)
    expect((await g.request('GET', `/sessions/${session.id}`)).body.session).toMatchObject({ status: 'idle', pendingPermissionCount: 0 })
  })

  it('a CLI dying mid-turn ends the turn, not the session; the next message resumes the same conversation', async () => {
    const g = await start({ respawn: { backoffMs: 10 } })
    const { session, ws } = await primarySession(g, { prompt: 'remember me' })
    const init = await ws.waitForEvent('system_init')
    await ws.waitForEvent('turn_result')
    ws.send({ type: 'user_message', text: 'scenario:crash' })
    const failed = await ws.waitForEvent('turn_result', (e) => e.isError)
    expect(failed).toMatchObject({ subtype: 'error_during_execution', errors: [expect.stringMatching(/Claude Code process/)] })
    await ws.waitForEvent('status_changed', (e) => e.status === 'idle' && e.seq > failed.seq)
    ws.send({ type: 'user_message', text: 'still here?' })
    expect((await ws.waitForEvent('turn_result', (e) => e.seq > failed.seq && !e.isError)).result).toBe('echo: still here?')
    // The respawned CLI resumed the conversation: the same SDK session id, no session_error.
    const inits = ws.events().filter((e) => e.type === 'system_init').map((e) => e.sdkSessionId)
    expect(new Set(inits)).toEqual(new Set([init.sdkSessionId]))
    expect(ws.events().some((e) => e.type === 'session_error')).toBe(false)
    expect((await g.request('GET', `/sessions/${session.id}`)).body.session.status).toBe('idle')
  })

  it('a SIGKILL of the CLI mid-turn is followed by a working next turn in the same conversation', async () => {
    const pids: number[] = []
    const g = await start({ respawn: { backoffMs: 10 }, onProcess: (e) => { if (e.type === 'spawn' && e.pid) pids.push(e.pid) } })
    // A first turn stores the conversation (the real CLI keeps none of one killed in its first turn).
    const { ws } = await primarySession(g, { prompt: 'remember me' })
    await ws.waitForEvent('turn_result')
    ws.send({ type: 'user_message', text: 'scenario:hang' })
    const init = await ws.waitForEvent('system_init', (e) => e.seq > 1 && ws.events().some((x) => x.type === 'turn_result' && x.seq < e.seq))
    process.kill(pids.at(-1)!, 'SIGKILL')
    const failed = await ws.waitForEvent('turn_result', (e) => e.seq > init.seq)
    expect(failed.isError).toBe(true)
    ws.send({ type: 'user_message', text: 'after the kill' })
    const next = await ws.waitForEvent('system_init', (e) => e.seq > failed.seq)
    expect(next.sdkSessionId).toBe(init.sdkSessionId)
    expect((await ws.waitForEvent('turn_result', (e) => e.seq > failed.seq)).result).toBe('echo: after the kill')
    expect(pids.length).toBeGreaterThanOrEqual(2)
  })

  it('a crash loop backs off and then fails the session with session_error; other sessions keep working', async () => {
    const g = await start({ respawn: { backoffMs: 10, maxDeaths: 2 } })
    const { session, ws } = await primarySession(g)
    ws.send({ type: 'user_message', text: 'scenario:crash' })
    await ws.waitForEvent('turn_result', (e) => e.isError)
    ws.send({ type: 'user_message', text: 'scenario:crash' })
    expect((await ws.waitForEvent('session_error')).message).toMatch(/kept exiting/)
    await ws.waitForEvent('session_closed', (e) => e.reason === 'error')
    expect((await g.request('GET', `/sessions/${session.id}`)).body.session.status).toBe('closed')
    const other = await primarySession(g, { prompt: 'still here?' })
    expect((await other.ws.waitForEvent('turn_result')).result).toBe('echo: still here?')
  })

  it('interrupt ends a hanging turn; set_model and set_permission_mode are reported', async () => {
    const g = await start()
    const { ws } = await primarySession(g)
    ws.send({ type: 'user_message', text: 'scenario:hang' })
    await ws.waitForEvent('status_changed', (e) => e.status === 'running')
    ws.send({ type: 'interrupt' })
    expect(await ws.waitForEvent('turn_result')).toMatchObject({ subtype: 'error_during_execution', isError: true })
    ws.send({ type: 'set_model', model: 'opus' })
    expect(await ws.waitForEvent('model_changed')).toMatchObject({ model: 'opus' })
    ws.send({ type: 'set_permission_mode', mode: 'acceptEdits' })
    expect(await ws.waitForEvent('permission_mode_changed')).toMatchObject({ mode: 'acceptEdits' })
    ws.send({ type: 'user_message', text: 'which model?' })
    const init = await ws.waitForEvent('system_init', (e) => e.model === 'claude-fake-opus-3')
    expect(init.permissionMode).toBe('acceptEdits')
  })

  it('AskUserQuestion waits for an answer (ask) or is settled by policy (auto)', async () => {
    const g = await start()
    const { ws } = await primarySession(g)
    ws.send({ type: 'user_message', text: 'scenario:question' })
    const asked = await ws.waitForEvent('permission_requested')
    expect(asked.request.toolName).toBe('AskUserQuestion')
    ws.send({ type: 'permission_decision', requestId: asked.request.requestId, behavior: 'allow', updatedInput: { ...asked.request.input, answers: { 'Which colour?': 'blue' } } })
    expect((await ws.waitForEvent('turn_result')).result).toBe('Answer: User answered: {"Which colour?":"blue"}')

    const auto = await start({ questionBehavior: 'auto' })
    const second = await primarySession(auto)
    second.ws.send({ type: 'user_message', text: 'scenario:question' })
    expect(await second.ws.waitForEvent('permission_resolved')).toMatchObject({ behavior: 'allow', resolvedBy: 'policy' })
    expect((await second.ws.waitForEvent('turn_result')).result).toBe('Answer: User answered: {"Which colour?":"red"}')
  })

  it('requireApiKey terminates a subscription (oauth) session; without it plan_info is reported once', async () => {
    const strict = await start({ env: { FAKE_CLAUDE_API_KEY_SOURCE: 'oauth' } }, { requireApiKey: true })
    const { ws } = await primarySession(strict, { prompt: 'hi' })
    expect((await ws.waitForEvent('session_error')).message).toMatch(/requires an API key/)
    const relaxed = await start({ env: { FAKE_CLAUDE_API_KEY_SOURCE: 'oauth', FAKE_CLAUDE_SUBSCRIPTION: 'max' } })
    const other = await primarySession(relaxed, { prompt: 'scenario:rate-limited' })
    await other.ws.waitForEvent('turn_result')
    expect(other.ws.events().filter((e) => e.type === 'plan_info')).toEqual([expect.objectContaining({ subscriptionType: 'max' })])
    expect(await other.ws.waitForEvent('rate_limit')).toMatchObject({ info: { status: 'allowed_warning', utilization: 0.8 } })
  })

  it('probes a profile\'s login through the CLI, and pins CLAUDE_CONFIG_DIR after buildRunnerConfig (authentication.9)', async () => {
    const root = await mkdtemp(join(tmpdir(), 'gw-cfg-'))
    const loggedIn = join(root, 'in')
    const loggedOut = join(root, 'out')
    await mkdir(loggedIn)
    await mkdir(loggedOut)
    await writeFile(join(loggedIn, 'fake-account.json'), JSON.stringify({ apiKeySource: 'ANTHROPIC_API_KEY' }))
    const adapter = createCliPrimaryAdapter(FAKE_CLI)
    const profile = (configDir: string) => ({ name: 'p', engine: 'cli_primary', configDir }) as never
    expect(await adapter.probeCredentials(profile(loggedIn))).toEqual({ available: true })
    expect(await adapter.probeCredentials(profile(loggedOut))).toMatchObject({ available: false, reason: expect.stringMatching(/not logged in/) })

    const config = (env?: Record<string, string>) => ({ env }) as never
    expect(environmentFor(config({ CLAUDE_CONFIG_DIR: '/somewhere/else' }), profile(loggedIn)).CLAUDE_CONFIG_DIR).toBe(loggedIn)
    await symlink(loggedIn, join(root, 'alias'))
    expect(environmentFor(config({ CLAUDE_CONFIG_DIR: join(root, 'alias') }), profile(loggedIn)).CLAUDE_CONFIG_DIR).toBe(join(root, 'alias'))
    expect(environmentFor(config(), { name: 'p', engine: 'cli_primary' } as never).CLAUDE_CONFIG_DIR).toBe(process.env.CLAUDE_CONFIG_DIR)
  })

  it('announces skills and tool titles, and serves a written file by its produced id only', async () => {
    const g = await start()
    const { session, ws } = await primarySession(g)
    ws.send({ type: 'user_message', text: 'scenario:write-file' })
    expect((await ws.waitForEvent('skills')).skills).toEqual([{ name: 'review-helper', enabled: true }])
    expect((await ws.waitForEvent('tool_titles')).titles).toMatchObject({ Bash: 'Run a command', Write: 'Write a file' })
    const asked = await ws.waitForEvent('permission_requested')
    ws.send({ type: 'permission_decision', requestId: asked.request.requestId, behavior: 'allow' })
    const produced = await ws.waitForEvent('file_produced')
    expect(produced).toMatchObject({ path: join(g.cwdRoot, 'notes.md'), mediaType: 'text/markdown' })
    const list = await g.request('GET', `/sessions/${session.id}/produced`)
    expect(list.body.files).toEqual([expect.objectContaining({ fileId: produced.fileId, bytes: 31 })])
    const file = await g.request('GET', `/sessions/${session.id}/produced/${produced.fileId}`)
    expect(file.text).toBe('# Notes\n\nWritten by the agent.\n')
    expect(file.headers.get('content-disposition')).toMatch(/^attachment;/)
    expect(file.headers.get('x-content-type-options')).toBe('nosniff')
    expect((await g.request('GET', `/sessions/${session.id}/produced/not-announced`)).status).toBe(404)
    await rm(join(g.cwdRoot, 'notes.md'))
    expect((await g.request('GET', `/sessions/${session.id}/produced/${produced.fileId}`)).status).toBe(404)
  })

  it('reports MCP servers without environment or headers, and toggles them; unknown names and actions are 400', async () => {
    const g = await start()
    const { session, ws } = await primarySession(g, { mcpServers: { docs: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { authorization: 'Bearer very-secret' } } } })
    await ws.waitForEvent('capabilities')
    const listed = await g.request('GET', `/sessions/${session.id}/mcp`)
    expect(listed.body.servers).toEqual([expect.objectContaining({ name: 'docs', status: 'connected' })])
    expect(listed.text).not.toContain('very-secret')
    const disabled = await g.request('POST', `/sessions/${session.id}/mcp/docs`, { body: { action: 'disable' } })
    expect(disabled.body.servers[0].status).toBe('disabled')
    expect((await g.request('POST', `/sessions/${session.id}/mcp/nope`, { body: { action: 'reconnect' } })).status).toBe(400)
    expect((await g.request('POST', `/sessions/${session.id}/mcp/docs`, { body: { action: 'explode' } })).status).toBe(400)
  })

  it('keeps MCP servers\' headers and env off the CLI\'s command line: /proc/<pid>/cmdline has no token, and the servers still arrive', async () => {
    const spawned: number[] = []
    const g = await start({ onProcess: (event) => { if (event.type === 'spawn' && event.pid) spawned.push(event.pid) } })
    const secret = 'per-session-token-4f1c9a'
    const { session, ws } = await primarySession(g, { mcpServers: {
      docs: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { authorization: `Bearer ${secret}` } },
      tool: { type: 'stdio', command: 'true', env: { TOOL_TOKEN: `${secret}-env` } },
    } })
    await ws.waitForEvent('capabilities')
    expect(spawned.length).toBeGreaterThan(0)
    for (const pid of spawned) {
      const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0')
      expect(argv.some((arg) => arg.includes('main.ts'))).toBe(true) // the fake CLI's own process
      expect(argv.join(' ')).not.toContain(secret)
      expect(argv).not.toContain('--mcp-config')
    }
    const listed = await g.request('GET', `/sessions/${session.id}/mcp`)
    expect(listed.body.servers.map((s: { name: string }) => s.name).sort()).toEqual(['docs', 'tool'])
  })

  it('lists the CLI\'s stored sessions and resumes one with its history replayed; a fork gets a new id', async () => {
    const configDir = await mkdtemp(join(tmpdir(), 'gw-claude-cfg-'))
    const g = await start({}, { profiles: [{ name: 'default', engine: 'provider', provider: { id: 'fake', model: 'fake-small' } }, { name: 'primary', engine: 'cli_primary', configDir }] })
    const first = await primarySession(g, { prompt: 'remember the word teal' })
    const init = await first.ws.waitForEvent('system_init')
    await first.ws.waitForEvent('turn_result')
    const listed = await g.request('GET', `/sdk-sessions?profile=primary&dir=${encodeURIComponent(g.cwdRoot)}`)
    expect(listed.status).toBe(200)
    expect(listed.body.sdkSessions).toEqual([expect.objectContaining({ sessionId: init.sdkSessionId, firstPrompt: 'remember the word teal' })])
    expect((await g.request('GET', '/sdk-sessions?profile=primary&dir=/')).status).toBe(403)
    expect((await g.request('GET', '/sdk-sessions?profile=primary', { who: 'tenantA' })).status).toBe(404)
    expect((await g.request('GET', '/sdk-sessions?profile=primary&limit=-1')).status).toBe(400)

    const resumed = await primarySession(g, { resume: init.sdkSessionId })
    const replayed = await resumed.ws.waitFor((f) => f.type === 'event' && f.event.type === 'assistant_message')
    expect(replayed.event).toMatchObject({ replay: true, message: { content: [{ type: 'text', text: 'echo: remember the word teal' }] } })
    expect(resumed.ws.events().find((e) => e.type === 'user_message')).toMatchObject({ replay: true, message: { content: 'remember the word teal' } })
    resumed.ws.send({ type: 'user_message', text: 'and now?' })
    expect((await resumed.ws.waitForEvent('system_init')).sdkSessionId).toBe(init.sdkSessionId) // a resume keeps the id

    const forked = await primarySession(g, { resume: init.sdkSessionId, forkSession: true, prompt: 'branch off' })
    const forkInit = await forked.ws.waitForEvent('system_init')
    expect(forkInit.sdkSessionId).not.toBe(init.sdkSessionId)
    expect(forked.ws.events().filter((e) => e.replay).length).toBeGreaterThan(0)
  })

  it('/clear typed as a message resets the conversation as clear_context does: one conversation_reset under the new engine id, replayed by its rule', async () => {
    const g = await start()
    const { session, ws } = await primarySession(g)
    ws.send({ type: 'user_message', text: 'before the clear' })
    const first = await ws.waitForEvent('system_init')
    const before = await ws.waitForEvent('turn_result')
    ws.send({ type: 'user_message', text: '/clear' })
    const reset = await ws.waitForEvent('conversation_reset', (e) => e.seq > before.seq)
    expect(reset.sdkSessionId).toBeTruthy()
    expect(reset.sdkSessionId).not.toBe(first.sdkSessionId)
    await ws.waitForEvent('status_changed', (e) => e.status === 'idle' && e.seq > reset.seq)
    // The engine's own reset message is the event, never an sdk_event beside it.
    expect(ws.events().filter((e) => e.type === 'sdk_event' && e.seq > before.seq)).toEqual([])
    expect(ws.events().filter((e) => e.type === 'conversation_reset')).toHaveLength(1)
    expect((await g.request('GET', `/sessions/${session.id}`)).body.session.sdkSessionId).toBe(reset.sdkSessionId)
    // A re-attach skips the content the reset cleared (events.20).
    const again = await g.attach(session.id)
    await again.waitForEvent('conversation_reset')
    expect(again.events().some((e) => e.type === 'user_message' && e.seq < reset.seq)).toBe(false)
    ws.send({ type: 'user_message', text: 'fresh start' })
    expect((await ws.waitForEvent('system_init', (e) => e.seq > reset.seq)).sdkSessionId).toBe(reset.sdkSessionId)
  })

  it('clear_context waits for the running turn, then resets the conversation under a new engine id', async () => {
    const g = await start()
    const { session, ws } = await primarySession(g)
    ws.send({ type: 'user_message', text: 'scenario:slow' })
    await ws.waitForEvent('status_changed', (e) => e.status === 'running')
    const first = await ws.waitForEvent('system_init')
    ws.send({ type: 'clear_context' })
    const result = await ws.waitForEvent('turn_result')
    const reset = await ws.waitForEvent('conversation_reset')
    expect(reset.seq).toBeGreaterThan(result.seq) // queued behind the turn, not an interrupt
    expect(result.isError).toBe(false)
    expect(reset.sdkSessionId).not.toBe(first.sdkSessionId)
    ws.send({ type: 'user_message', text: 'fresh start' })
    expect((await ws.waitForEvent('system_init', (e) => e.seq > reset.seq)).sdkSessionId).toBe(reset.sdkSessionId)
    expect(ws.events().filter((e) => e.type === 'turn_result' && e.seq < reset.seq)).toHaveLength(1)
    expect((await g.request('GET', `/sessions/${session.id}`)).body.session.sdkSessionId).toBe(reset.sdkSessionId)
  })

  it('a session\'s own questionBehavior wins over the adapter\'s; includePartialMessages streams deltas', async () => {
    const g = await start({ questionBehavior: 'ask' })
    const { ws } = await primarySession(g, { questionBehavior: 'deny', includePartialMessages: true })
    ws.send({ type: 'user_message', text: 'scenario:question' })
    expect(await ws.waitForEvent('permission_resolved')).toMatchObject({ behavior: 'deny', resolvedBy: 'policy' })
    const result = await ws.waitForEvent('turn_result')
    expect(result.result).toMatch(/^Answer: No one is available to answer/)
    expect(ws.events().some((e) => e.type === 'stream_delta' && e.event?.delta?.type === 'text_delta')).toBe(true)
  })
})
