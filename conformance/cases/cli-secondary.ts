/**
 * Cases for a cli_secondary session (what-the-service-does.5, profile.10, engine-capability-record.1)
 * and the engine-neutral behaviours already checked on provider and cli_primary (streaming,
 * permissions, interrupt, resume, usage, titles, engine death), run again on this engine. The
 * target's cli_secondary profile runs the fake codex app-server, or the real one pointed at the
 * kit's fake Responses API (manifest `realEngines`), so scenarios/ drive it.
 */
import type { CaseContext } from '../harness/context.ts'
import { permissionRequestIdOf } from '../harness/permission-request.ts'
import type { WsClient } from '../harness/ws-client.ts'
import { scripted } from '../harness/scripted-engine.ts'
import { Unsupported, type Case } from '../types.ts'

async function secondary(ctx: CaseContext, body: Record<string, unknown> = {}): Promise<{ session: any; ws: WsClient }> {
  const cwd = ctx.manifest.cwdRoot
  if (!cwd) throw new Unsupported('the manifest gives no cwdRoot')
  const session = await ctx.createSession({ profile: ctx.profile('cli_secondary'), cwd, ...body })
  const ws = await ctx.ws(session.id)
  return { session, ws }
}


/**
 * The engine's thread id after a turn: SessionInfo.sdkSessionId, or system_init's when the target
 * sends one (neither is obliged, so without both the case cannot go on: unsupported).
 */
async function engineSessionId(ctx: CaseContext, ws: WsClient, id: string): Promise<string> {
  const info = (await ctx.http('GET', `/sessions/${id}`)).json?.session
  const found = info?.sdkSessionId ?? ws.events().find((e) => e.type === 'system_init')?.sdkSessionId
  if (typeof found !== 'string') throw new Unsupported('the session reports no sdkSessionId (SessionInfo or system_init) to read the thread by')
  return found
}
export const cliSecondaryCases: Case[] = [
  {
    id: 'cli-secondary-turn-events', title: 'a cli_secondary session is served (no 501): its record, the thread id as sdkSessionId, a turn with usage, context_usage and a derived title', section: 'engine-capability-record',
    clauses: ['what-the-service-does.5', 'engine-capability-record.1', 'profile.4', 'profile.10', 'events.12', 'events.7', 'session.2', 'errors.9'], requires: ['cli_secondary'],
    async run(ctx) {
      const { session, ws } = await secondary(ctx, { prompt: 'hello codex' })
      // SessionInfo.engine is listed, not required (session.1): compared when present.
      if ('engine' in session) ctx.equal('what-the-service-does.5', session.engine, 'cli_secondary', 'SessionInfo.engine')
      const caps = session.capabilities ?? {}
      ctx.check('engine-capability-record.1', caps.mcpServerActions === false && caps.hostCwd === true, 'the cli_secondary record: mcpServerActions false, hostCwd', caps)
      // The record "lists supported permission modes" under a key the spec does not name.
      const CODEX_MODES = ['acceptEdits', 'auto', 'bypassPermissions', 'default']
      const modes = Object.values(caps).find((v) => Array.isArray(v) && v.length > 0 && v.every((m) => typeof m === 'string' && ['default', 'acceptEdits', 'bypassPermissions', 'dontAsk', 'auto'].includes(m)))
      ctx.equal('profile.10', Array.isArray(modes) ? [...modes].sort() : modes, CODEX_MODES, 'the permission modes cli_secondary runs')
      const result = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      const sdkSessionId = await engineSessionId(ctx, ws, session.id)
      ctx.check('profile.4', sdkSessionId !== session.id, 'the engine thread id as sdkSessionId, not the server id', sdkSessionId)
      // "per-turn usage" (events.12) without a shown layout: an object holding some count.
      ctx.check('events.12', result.isError === false && typeof result.usage === 'object' && Object.values(result.usage ?? {}).some((v) => typeof v === 'number'), 'a successful turn_result with per-turn usage', result)
      const usage = await ws.waitForEvent('context_usage', ctx.deadlineMs)
      // ContextUsage's shape is not shown (other-shapes.6), nor where the event carries it: some content beyond the envelope.
      ctx.check('events.7', Object.keys(usage).some((k) => !['type', 'seq', 'ts'].includes(k)), 'a ContextUsage snapshot after the turn', usage)
      const info = (await ctx.http('GET', `/sessions/${session.id}`)).json?.session
      // "derived from the first prompt" (session.2), not equal to it: its opening words.
      ctx.check('session.2', typeof info?.title === 'string' && info.title.length > 0 && 'hello codex'.startsWith(info.title.replace(/…$/, '').trim().slice(0, 5)), 'a title derived from the first prompt "hello codex"', info?.title)
      ctx.errorStatus('errors.9', await ctx.http('POST', `/sessions/${session.id}/mcp/any`, { body: { action: 'reconnect' } }), 501)
    },
  },
  {
    id: 'cli-secondary-streaming', title: 'cli_secondary: stream_delta only with includePartialMessages', section: 'events',
    clauses: ['events.11'], requires: ['cli_secondary'],
    async run(ctx) {
      const plain = await secondary(ctx, { prompt: 'scenario:hello' })
      await plain.ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('events.11', !plain.ws.events().some((e) => e.type === 'stream_delta'), 'no stream_delta without includePartialMessages', 'a stream_delta')
      const partial = await secondary(ctx, { prompt: 'scenario:hello', includePartialMessages: true })
      await partial.ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('events.11', partial.ws.events().some((e) => e.type === 'stream_delta'), 'stream_delta with includePartialMessages', 'none')
    },
  },
  {
    id: 'cli-secondary-permission-flow', title: 'cli_secondary: an approval awaits a human, an allow runs the tool, a deny declines it, a second answer is 404', section: 'permission-request',
    clauses: ['events.13', 'permission-request.1', 'errors.3', 'sessions.13'], requires: ['cli_secondary'],
    async run(ctx) {
      const { session, ws } = await secondary(ctx)
      ws.send({ type: 'user_message', text: 'scenario:permission' })
      const asked = await ws.waitForEvent('permission_requested', ctx.deadlineMs)
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'awaiting_approval')
      // pendingPermissionCount is listed on SessionInfo, not required (session.1): compared when present.
      const info = (await ctx.http('GET', `/sessions/${session.id}`)).json?.session
      if (info && 'pendingPermissionCount' in info) ctx.equal('permission-request.1', info.pendingPermissionCount, 1, 'pendingPermissionCount while asked')
      ctx.created('sessions.13', await ctx.http('POST', `/sessions/${session.id}/permissions/${permissionRequestIdOf(asked)}`, { body: { behavior: 'allow' } }), 200)
      // events.13 names resolvedBy without its values; the compatibility cases note the protocol-7 client's.
      const resolved = await ws.waitForEvent('permission_resolved', ctx.deadlineMs)
      ctx.check('events.13', typeof resolved.resolvedBy === 'string', 'permission_resolved carries resolvedBy', resolved)
      const allowed = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('events.13', String(allowed.result).includes('hello'), 'the allowed command ran', allowed.result)
      ctx.errorStatus('errors.3', await ctx.http('POST', `/sessions/${session.id}/permissions/${permissionRequestIdOf(asked)}`, { body: { behavior: 'deny' } }), 404)
      ws.send({ type: 'user_message', text: 'scenario:permission' })
      const second = await ws.waitForEvent('permission_requested', ctx.deadlineMs, (e) => permissionRequestIdOf(e) !== permissionRequestIdOf(asked))
      ws.send({ type: 'permission_decision', requestId: permissionRequestIdOf(second), behavior: 'deny' })
      const denied = await ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.seq > allowed.seq)
      ctx.check('events.13', !String(denied.result).includes('hello'), 'the denied command did not run', denied.result)
    },
  },
  {
    id: 'cli-secondary-controls', title: 'cli_secondary: interrupt ends a running turn; set_model and set_permission_mode are reported; a mode outside the record is refused', section: 'commands',
    clauses: ['commands.3', 'events.5', 'events.6', 'errors.12'], requires: ['cli_secondary'],
    async run(ctx) {
      const { ws } = await secondary(ctx)
      ws.send({ type: 'user_message', text: 'scenario:hang' })
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'running')
      ws.send({ type: 'interrupt' })
      ctx.equal('commands.3', (await ws.waitForEvent('turn_result', ctx.deadlineMs)).isError, true, 'turn_result.isError of an interrupted turn')
      ws.send({ type: 'set_model', model: 'another-model' })
      ctx.equal('events.5', (await ws.waitForEvent('model_changed', ctx.deadlineMs)).model, 'another-model', 'model_changed')
      ws.send({ type: 'set_permission_mode', mode: 'acceptEdits' })
      ctx.equal('events.6', (await ws.waitForEvent('permission_mode_changed', ctx.deadlineMs)).mode, 'acceptEdits', 'permission_mode_changed')
      ws.send({ type: 'set_permission_mode', mode: 'dontAsk' })
      await ws.waitFor((f) => f.type === 'protocol_error', ctx.deadlineMs, 'a protocol_error for a mode outside the record')
      ws.send({ type: 'user_message', text: 'after' })
      const result = await ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.isError === false)
      ctx.check('commands.3', result.numTurns === 2, 'the session runs the next turn after the interrupt', result)
    },
  },
  {
    id: 'cli-secondary-sdk-sessions-and-resume', title: "cli_secondary: /sdk-sessions lists the engine's threads within the roots; resume in a fresh engine process replays the history", section: 'engine-session-stores-and-host-files',
    clauses: ['engine-session-stores-and-host-files.1', 'server-configuration.4', 'events.10', 'createsessionrequest.1'], requires: ['cli_secondary'],
    async run(ctx) {
      const word = `amber-${Math.floor(ctx.random() * 1e9)}`
      const { session, ws } = await secondary(ctx, { prompt: `remember ${word}` })
      await ws.waitForEvent('turn_result', ctx.deadlineMs)
      const init = { sdkSessionId: await engineSessionId(ctx, ws, session.id) }
      await ctx.http('DELETE', `/sessions/${session.id}`)
      const profile = encodeURIComponent(ctx.profile('cli_secondary'))
      const listed = await ctx.http('GET', `/sdk-sessions?profile=${profile}&dir=${encodeURIComponent(ctx.manifest.cwdRoot!)}`)
      ctx.status('engine-session-stores-and-host-files.1', listed, 200)
      // SdkSessionSummary's shape is not shown (other-shapes.6): the listing names the thread somewhere.
      ctx.check('engine-session-stores-and-host-files.1', listed.text.includes(init.sdkSessionId), 'the finished thread is listed', listed.text.slice(0, 300))
      ctx.errorStatus('server-configuration.4', await ctx.http('GET', `/sdk-sessions?profile=${profile}&dir=/`), 403)
      const resumed = await secondary(ctx, { resume: init.sdkSessionId })
      const replayed = await resumed.ws.waitForEvent('assistant_message', ctx.deadlineMs, (e) => e.replay === true)
      ctx.check('events.10', JSON.stringify(replayed.message).includes(word), 'the resumed history arrives flagged replay: true', replayed)
      resumed.ws.send({ type: 'user_message', text: 'continue' })
      const next = await resumed.ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('createsessionrequest.1', next.isError === false, 'the resumed thread runs a new turn', next)
    },
  },
  {
    id: 'cli-secondary-engine-death', title: 'cli_secondary: an engine process that dies mid-turn gives session_error and failed; other sessions keep working', section: 'events',
    clauses: ['events.21', 'session-status-values.1'], requires: ['cli_secondary', scripted('cli_secondary', 'crash')],
    async run(ctx) {
      const { ws } = await secondary(ctx)
      ws.send({ type: 'user_message', text: 'scenario:crash' })
      await ws.waitForEvent('session_error', ctx.deadlineMs)
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'failed')
      // events.21 names only 'client' among the reasons ("Other reason values: not shown").
      const closed = await ws.waitForEvent('session_closed', ctx.deadlineMs)
      ctx.check('events.21', typeof closed.reason === 'string', 'session_closed with a reason', closed)
      ctx.observe(closed.reason === 'error', `session_closed after the engine died has reason ${JSON.stringify(closed.reason)}, not 'error' (protocol 7's reasons: client, server, error)`)
      const other = await secondary(ctx, { prompt: 'are you there?' })
      ctx.check('events.21', (await other.ws.waitForEvent('turn_result', ctx.deadlineMs)).isError === false, 'another session still completes a turn', 'an error')
    },
  },
  {
    id: 'cli-secondary-attachments', title: 'cli_secondary accepts text attachments and refuses a PDF with 415', section: 'errors',
    clauses: ['errors.8', 'engine-capability-record.1'], requires: ['cli_secondary', 'attachments'],
    async run(ctx) {
      const { session, ws } = await secondary(ctx)
      const upload = (body: string, type: string, name: string) => ctx.http('POST', `/sessions/${session.id}/attachments?name=${name}`, { raw: body, headers: { 'content-type': type } })
      ctx.errorStatus('errors.8', await upload('%PDF-1.4\n', 'application/pdf', 'a.pdf'), 415)
      const text = await upload('attached words', 'text/plain', 'a.txt')
      ctx.created('engine-capability-record.1', text, 201)
      ws.send({ type: 'user_message', text: 'read it', attachmentIds: [(text.json?.attachment ?? text.json)?.id] })
      const result = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('engine-capability-record.1', String(result.result).includes('attached words'), 'the text attachment reached the engine inlined', result.result)
    },
  },
]
