/**
 * Cases for a cli_primary session (events.*, permission-request.*, server-configuration.17-18).
 * The target's cli_primary profile runs the fake Claude Code CLI, or the real one pointed at the
 * kit's fake Messages API (manifest `realEngines`), so the scenarios in scenarios/ drive it
 * (conformance/target/README.md). Only scenarios a real CLI plays as the fake does are used unless
 * a case requires `scripted:cli_primary:<fault>` (harness/scripted-engine.ts).
 */
import { createHash } from 'node:crypto'
import type { CaseContext } from '../harness/context.ts'
import { permissionRequestIdOf } from '../harness/permission-request.ts'
import type { WsClient } from '../harness/ws-client.ts'
import { engineDeath } from './engine-death.ts'
import { scripted } from '../harness/scripted-engine.ts'
import { Unsupported, type Case } from '../types.ts'

async function primary(ctx: CaseContext, body: Record<string, unknown> = {}): Promise<{ session: any; ws: WsClient }> {
  const cwd = ctx.manifest.cwdRoot
  if (!cwd) throw new Unsupported('the manifest gives no cwdRoot')
  const session = await ctx.createSession({ profile: ctx.profile('cli_primary'), cwd, ...body })
  const ws = await ctx.ws(session.id)
  return { session, ws }
}

export const cliPrimaryCases: Case[] = [
  {
    id: 'cli-primary-turn-events', title: 'a cli_primary turn: system_init, capabilities without the default row, messages, turn_result, context_usage', section: 'events',
    clauses: ['events.1', 'events.2', 'events.4', 'events.7', 'events.10', 'events.12'], requires: ['cli_primary'],
    async run(ctx) {
      const { ws } = await primary(ctx, { prompt: 'hello cli' })
      const caps = await ws.waitForEvent('capabilities', ctx.deadlineMs)
      ctx.check('events.4', Array.isArray(caps.models) && !caps.models.some((m: any) => m.value === 'default') && typeof caps.defaultModel === 'string',
        "models without the CLI's default row, and defaultModel", caps)
      ctx.check('events.4', caps.models.some((m: any) => m.primary === true), 'primary marks the newest of a family', caps.models)
      const init = await ws.waitForEvent('system_init', ctx.deadlineMs)
      ctx.check('events.2', typeof init.sdkSessionId === 'string' && typeof init.apiKeySource === 'string' && Array.isArray(init.tools), 'sdkSessionId, apiKeySource, tools', init)
      const result = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('events.12', result.isError === false && typeof result.numTurns === 'number' && typeof result.durationMs === 'number', 'a successful turn_result', result)
      // events.10 lists parentToolUseId; a top-level message has no parent, so absent and null both say so.
      const assistant = ws.events().filter((e) => e.type === 'assistant_message')
      ctx.check('events.10', assistant.length > 0 && assistant.every((e) => e.parentToolUseId === undefined || e.parentToolUseId === null || typeof e.parentToolUseId === 'string'), 'assistant_message with no parentToolUseId, or a null or string one', assistant)
      const usage = await ws.waitForEvent('context_usage', ctx.deadlineMs)
      // ContextUsage's shape is not shown (other-shapes.6), nor where the event carries it: some content beyond the envelope.
      ctx.check('events.7', Object.keys(usage).some((k) => !['type', 'seq', 'ts'].includes(k)), 'a ContextUsage snapshot after the turn', usage)
    },
  },
  {
    id: 'cli-primary-permission-flow', title: 'a permission is requested, the session awaits approval, an edited allow reaches the tool, a second answer is 404', section: 'permission-request',
    clauses: ['events.13', 'permission-request.1', 'errors.3', 'sessions.13', 'session-status-values.1', 'events.3'], requires: ['cli_primary'],
    async run(ctx) {
      const { session, ws } = await primary(ctx)
      // A mutating command: a real CLI runs a read-only one (`echo`) without asking.
      ws.send({ type: 'user_message', text: 'scenario:permission-write' })
      const asked = await ws.waitForEvent('permission_requested', ctx.deadlineMs)
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'awaiting_approval')
      const info = (await ctx.http('GET', `/sessions/${session.id}`)).json?.session
      // pendingPermissionCount is listed on SessionInfo, not required (session.1): compared when present.
      if (info && 'pendingPermissionCount' in info) ctx.equal('permission-request.1', info.pendingPermissionCount, 1, 'pendingPermissionCount while asked')
      // The edited command's word shows in the result on any CLI: the fake repeats the input, a real one the output.
      const edited = `kit-edited-${Math.floor(ctx.random() * 1e9)}`
      const res = await ctx.http('POST', `/sessions/${session.id}/permissions/${permissionRequestIdOf(asked)}`, { body: { behavior: 'allow', updatedInput: { command: `echo ${edited}` } } })
      ctx.created('sessions.13', res, 200)
      const resolved = await ws.waitForEvent('permission_resolved', ctx.deadlineMs)
      // The spec names no resolvedBy value for a REST answer; compatibility.ts notes the protocol-7 client's (`client`).
      ctx.check('events.13', typeof resolved.resolvedBy === 'string', 'permission_resolved carries resolvedBy', resolved)
      const result = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('events.13', String(result.result).includes(edited), `the tool ran with the edited input (echo ${edited})`, result.result)
      const again = await ctx.http('POST', `/sessions/${session.id}/permissions/${permissionRequestIdOf(asked)}`, { body: { behavior: 'deny' } })
      ctx.errorStatus('errors.3', again, 404)
      ctx.errorStatus('errors.3', await ctx.http('POST', `/sessions/${session.id}/permissions/never-asked`, { body: { behavior: 'allow' } }), 404)
    },
  },
  {
    id: 'cli-primary-approval-timeout', title: 'an unanswered approval is denied at approvalTimeoutMs with resolvedBy timeout, and the session ends idle', section: 'server-configuration',
    clauses: ['server-configuration.17', 'limits.7', 'permission-request.1'], requires: ['cli_primary'],
    async run(ctx) {
      const { session, ws } = await primary(ctx, { approvalTimeoutMs: 150 })
      ws.send({ type: 'user_message', text: 'scenario:permission-write' })
      const resolved = await ws.waitForEvent('permission_resolved', ctx.deadlineMs)
      ctx.equal('server-configuration.17', [resolved.behavior, resolved.resolvedBy], ['deny', 'timeout'], 'behavior and resolvedBy')
      // Not before approvalTimeoutMs: both events' `ts` are on the target's clock (a millisecond of rounding).
      const requested = ws.events().find((e) => e.type === 'permission_requested')
      ctx.check('limits.7', resolved.ts - requested.ts >= 150 - 1, 'the denial no sooner than approvalTimeoutMs (150 ms) after the request', `${resolved.ts - requested.ts} ms`)
      await ws.waitForEvent('turn_result', ctx.deadlineMs)
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'idle' && e.seq > resolved.seq)
      ctx.equal('permission-request.1', (await ctx.http('GET', `/sessions/${session.id}`)).json?.session?.status, 'idle', 'status after the timed-out approval')
    },
  },
  {
    id: 'cli-primary-engine-death', title: 'an engine process that dies mid-turn fails the session (session_error) or only its turn (the session goes on); other sessions keep working', section: 'events',
    clauses: ['events.21', 'session-status-values.1'], requires: ['cli_primary', scripted('cli_primary', 'crash')],
    run: (ctx) => engineDeath(ctx, (body) => primary(ctx, body)),
  },
  {
    id: 'cli-primary-controls', title: 'interrupt, set_model and set_permission_mode reach the CLI and are reported', section: 'commands',
    clauses: ['events.5', 'events.6', 'commands.3', 'events.19'], requires: ['cli_primary'],
    async run(ctx) {
      const { ws } = await primary(ctx)
      ws.send({ type: 'user_message', text: 'scenario:hang' })
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'running')
      ws.send({ type: 'interrupt' })
      const interrupted = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('commands.3', interrupted.isError === true, 'an interrupted turn_result', interrupted)
      ws.send({ type: 'set_model', model: 'opus' })
      ctx.equal('events.5', (await ws.waitForEvent('model_changed', ctx.deadlineMs)).model, 'opus', 'model_changed')
      ws.send({ type: 'set_permission_mode', mode: 'acceptEdits' })
      ctx.equal('events.6', (await ws.waitForEvent('permission_mode_changed', ctx.deadlineMs)).mode, 'acceptEdits', 'permission_mode_changed')
      ws.send({ type: 'user_message', text: 'again' })
      const init = await ws.waitForEvent('system_init', ctx.deadlineMs, (e) => e.permissionMode === 'acceptEdits')
      ctx.check('events.5', init.model !== undefined, 'the next init runs on the new settings', init)
      ctx.check('events.19', ws.events().some((e) => e.type === 'sdk_event'), 'engine messages without a first-class event pass through as sdk_event', ws.events().map((e) => e.type))
    },
  },
  {
    id: 'cli-primary-rate-limit', title: 'rate-limit readings arrive as rate_limit; no plan_info for an API-key session', section: 'events',
    clauses: ['events.8', 'events.9'], requires: ['cli_primary', scripted('cli_primary', 'rate-limit')],
    async run(ctx) {
      const { ws } = await primary(ctx, { prompt: 'scenario:rate-limited' })
      const limit = await ws.waitForEvent('rate_limit', ctx.deadlineMs)
      ctx.check('events.8', typeof limit.info === 'object' && limit.info !== null, 'a RateLimitInfo', limit)
      const init = await ws.waitForEvent('system_init', ctx.deadlineMs)
      await ws.waitForEvent('turn_result', ctx.deadlineMs)
      if (init.apiKeySource !== 'oauth') ctx.check('events.9', !ws.events().some((e) => e.type === 'plan_info'), 'no plan_info for an API-key session', init.apiKeySource)
    },
  },
  {
    id: 'cli-primary-require-api-key', title: 'with requireApiKey, a session signed in with a subscription (oauth) is terminated with session_error', section: 'server-configuration',
    clauses: ['server-configuration.18', 'session-status-values.10'], requires: ['cli_primary', 'requireApiKey', 'profile:cliPrimarySubscription', scripted('cli_primary', 'subscription-login')],
    async run(ctx) {
      const cwd = ctx.manifest.cwdRoot
      if (!cwd) throw new Unsupported('the manifest gives no cwdRoot')
      const session = await ctx.createSession({ profile: ctx.profile('cliPrimarySubscription'), cwd, prompt: 'hello' })
      const ws = await ctx.ws(session.id)
      const init = await ws.waitForEvent('system_init', ctx.deadlineMs)
      ctx.equal('session-status-values.10', init.apiKeySource, 'oauth', 'apiKeySource of the subscription profile')
      const error = await ws.waitForEvent('session_error', ctx.deadlineMs)
      ctx.check('server-configuration.18', typeof error.message === 'string', 'a session_error', error)
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'failed')
      ctx.check('session-status-values.10', !ws.events().some((e) => e.type === 'turn_result'), 'no turn ran on the refused login', ws.events().map((e) => e.type))
    },
  },
  {
    id: 'cli-primary-produced-files', title: 'a file the engine wrote is announced with file_produced and served by its id only (attachment, nosniff)', section: 'sessions',
    clauses: ['events.15', 'events.16', 'events.18', 'sessions.11'], requires: ['cli_primary'],
    async run(ctx) {
      const { session, ws } = await primary(ctx)
      ws.send({ type: 'user_message', text: 'scenario:write-file' })
      const skills = await ws.waitForEvent('skills', ctx.deadlineMs)
      ctx.check('events.15', Array.isArray(skills.skills), 'SkillInfo[] after init', skills)
      const titles = await ws.waitForEvent('tool_titles', ctx.deadlineMs)
      // events.16: human labels, so each a non-empty string (an empty one labels nothing).
      ctx.check('events.16', typeof titles.titles === 'object' && Object.values(titles.titles).every((t) => typeof t === 'string' && t.length > 0), 'non-empty labels keyed by wire tool name', titles)
      const asked = await ws.waitForEvent('permission_requested', ctx.deadlineMs)
      ws.send({ type: 'permission_decision', requestId: permissionRequestIdOf(asked), behavior: 'allow' })
      const produced = await ws.waitForEvent('file_produced', ctx.deadlineMs)
      ctx.check('events.18', typeof produced.fileId === 'string' && produced.path.startsWith('/'), 'an opaque fileId and an absolute path', produced)
      const list = await ctx.http('GET', `/sessions/${session.id}/produced`)
      ctx.check('sessions.11', list.json?.files?.some((f: any) => f.fileId === produced.fileId), 'the announced file listed', list.json)
      const file = await ctx.http('GET', `/sessions/${session.id}/produced/${produced.fileId}`)
      ctx.status('sessions.11', file, 200)
      ctx.check('sessions.11', /^attachment/.test(file.headers['content-disposition'] ?? '') && file.headers['x-content-type-options'] === 'nosniff', 'attachment disposition and nosniff', file.headers)
      ctx.errorStatus('events.18', await ctx.http('GET', `/sessions/${session.id}/produced/${encodeURIComponent('../../etc/passwd')}`), 404)
    },
  },
  {
    id: 'cli-primary-mcp-servers', title: 'GET /mcp lists session MCP servers without env or headers; POST actions refresh the list', section: 'sessions',
    clauses: ['other-shapes.7', 'sessions.9', 'sessions.10'], requires: ['cli_primary'],
    async run(ctx) {
      const secret = `kit-secret-${Math.floor(ctx.random() * 1e9)}`
      const { session, ws } = await primary(ctx, { mcpServers: { docs: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { authorization: `Bearer ${secret}` }, env: { TOKEN: secret } } } })
      ctx.requireCapability(session, 'mcpStatus')
      // Wait for the engine to be up (idle), not for an event the spec obliges no engine to emit.
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'idle')
      const listed = await ctx.http('GET', `/sessions/${session.id}/mcp`)
      ctx.status('sessions.9', listed, 200)
      ctx.check('other-shapes.7', listed.json?.servers?.some((s: any) => s.name === 'docs' && typeof s.status === 'string'), 'the docs server with a status', listed.json)
      ctx.check('other-shapes.7', !listed.text.includes(secret), 'no environment value or header in the response', listed.text.slice(0, 300))
      ctx.requireCapability(session, 'mcpServerActions')
      const toggled = await ctx.http('POST', `/sessions/${session.id}/mcp/docs`, { body: { action: 'disable' } })
      ctx.status('sessions.10', toggled, 200)
      ctx.check('sessions.10', Array.isArray(toggled.json?.servers), 'the refreshed server list', toggled.json)
    },
  },
  {
    id: 'session-project-and-icon', title: 'project comes from the nearest .gateway.json above cwd; its icon is a content-hash address served by /project/icon', section: 'session',
    clauses: ['session.3', 'sessions.12'], requires: ['cli_primary', 'project'],
    async run(ctx) {
      const project = ctx.manifest.project!
      const session = await ctx.createSession({ profile: ctx.profile('cli_primary'), cwd: project.cwd })
      const info = (await ctx.http('GET', `/sessions/${session.id}`)).json?.session
      ctx.equal('session.3', info?.project?.name, project.name, 'project name')
      ctx.check('session.3', typeof info?.project?.root === 'string' && project.cwd.startsWith(info.project.root), 'the root is an ancestor of cwd', info?.project)
      const icon = info?.project?.icon
      ctx.check('session.3', typeof icon === 'object' && typeof icon.hash === 'string' && typeof icon.mediaType === 'string', 'an icon address (mediaType and hash), never bytes', icon)
      const res = await ctx.http('GET', `/sessions/${session.id}/project/icon`)
      ctx.status('sessions.12', res, 200)
      const digest = createHash('sha256').update(Buffer.from(res.text)).digest('hex')
      ctx.equal('sessions.12', digest, icon.hash, 'sha256 of the served bytes')
      const cached = await ctx.http('GET', `/sessions/${session.id}/project/icon`, { headers: { 'if-none-match': `"${icon.hash}"` } })
      ctx.nonStrict(cached.status === 304, `a conditional request is answered ${cached.status}; protocol 7 answers 304`)
    },
  },
  {
    id: 'cli-primary-sdk-sessions-and-resume', title: '/sdk-sessions lists the engine\'s stored sessions within the roots; resume replays the history as replay events', section: 'engine-session-stores-and-host-files',
    clauses: ['engine-session-stores-and-host-files.1', 'server-configuration.4', 'authentication.4', 'events.10', 'createsessionrequest.1', 'authentication.9'], requires: ['cli_primary', 'principal:tenantA'],
    async run(ctx) {
      const word = `teal-${Math.floor(ctx.random() * 1e9)}`
      const { session, ws } = await primary(ctx, { prompt: `remember ${word}` })
      await ws.waitForEvent('turn_result', ctx.deadlineMs)
      // The engine session id from SessionInfo (session.1), or from system_init when the target sends one.
      const sdkSessionId = (await ctx.http('GET', `/sessions/${session.id}`)).json?.session?.sdkSessionId ?? ws.events().find((e) => e.type === 'system_init')?.sdkSessionId
      if (typeof sdkSessionId !== 'string') throw new Unsupported('the session reports no sdkSessionId to resume from')
      const init = { sdkSessionId }
      const profile = encodeURIComponent(ctx.profile('cli_primary'))
      const listed = await ctx.http('GET', `/sdk-sessions?profile=${profile}&dir=${encodeURIComponent(ctx.manifest.cwdRoot!)}`)
      ctx.status('engine-session-stores-and-host-files.1', listed, 200)
      // The self target's buildRunnerConfig points CLAUDE_CONFIG_DIR elsewhere; the profile's directory must win,
      // so the transcript is found where the profile keeps its sessions (authentication.9).
      // SdkSessionSummary's shape is not shown: the engine session id anywhere in the answer will do.
      ctx.check('authentication.9', listed.text.includes(init.sdkSessionId), 'the finished session stored in the profile\'s config directory', listed.text.slice(0, 300))
      ctx.errorStatus('server-configuration.4', await ctx.http('GET', `/sdk-sessions?profile=${profile}&dir=/`), 403)
      // authentication.4: refused to a scoped principal; "the status code of that refusal: not shown" (protocol 7: 404).
      const scoped = await ctx.http('GET', `/sdk-sessions?profile=${profile}`, { as: 'tenantA' })
      ctx.check('authentication.4', scoped.status >= 400, '/sdk-sessions refused to a scoped principal', `HTTP ${scoped.status}`)
      ctx.observe(scoped.status === 404, `/sdk-sessions refused to a scoped principal with ${scoped.status} (protocol 7: 404; authentication.4: not shown)`)
      const resumed = await primary(ctx, { resume: init.sdkSessionId })
      const replayed = await resumed.ws.waitForEvent('assistant_message', ctx.deadlineMs, (e) => e.replay === true)
      ctx.check('events.10', JSON.stringify(replayed.message).includes(word), 'the resumed history arrives flagged replay: true', replayed)
    },
  },
  {
    id: 'cli-primary-clear-context', title: 'clear_context on cli_primary is queued behind a running turn and yields conversation_reset', section: 'session-status-values',
    clauses: ['session-status-values.9', 'commands.6', 'events.20'], requires: ['cli_primary'],
    async run(ctx) {
      const { session, ws } = await primary(ctx)
      // session-status-values.9: the reset row applies when the engine's record sets clearContext.
      ctx.requireCapability(session, 'clearContext')
      ws.send({ type: 'user_message', text: 'scenario:slow' })
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'running')
      ws.send({ type: 'clear_context' })
      const reset = await ws.waitForEvent('conversation_reset', ctx.deadlineMs)
      const result = ws.events().find((e) => e.type === 'turn_result')
      ctx.check('session-status-values.9', result !== undefined && result.seq < reset.seq && result.isError === false, 'the running turn completed before the reset (no interrupt)', result)
    },
  },
]
