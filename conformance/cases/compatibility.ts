/**
 * Compatibility with protocol 7 where the spec names a shape without fixing it (issue 16,
 * docs/compatibility.md): one case per shape, driven by agent-session-client (client/), the typed
 * client of protocol 7 an app builds on, whose wire types are the protocol's (gateway/protocol).
 * A note states a fact about what protocol 7's *server* sends only where
 * ../shared/reference/protocol-v7-reference-behaviour.md states it; otherwise it names the shape
 * the client expects and what the spec leaves open (issue 20, Deliver 4).
 * A target that departs from those shapes where the spec is open is `non-strict`, never `fail`:
 * implementers see their compatibility beside their conformance. Each case cites the clause that
 * names the shape (or leaves it open). The target's provider profile must offer the bridged tool
 * `client_eval`, and its cli_primary profile must play the `permission-write` and `hello` scenarios.
 */
import { GatewayError, streamedText, type EventOf, type GatewayClient, type SessionEvent, type SessionEventType, type SessionHandle, type ToolCallHandler } from '../../client/index.ts'
import type { CaseContext } from '../harness/context.ts'
import { loggedClient } from '../harness/logged-client.ts'
import { NonStrict, Unsupported, type Case } from '../types.ts'

/** Raw stream event types of the Anthropic Messages stream, the shape the protocol-7 client's live text reads. */
const RAW_STREAM_TYPES = new Set(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop'])
const BACKENDS = new Set(['server', 'browser', 'managed', 'remote'])

function clientOf(ctx: CaseContext): GatewayClient {
  return loggedClient(ctx.log, ctx.manifest.baseUrl, ctx.token('operator'), 'operator')
}

/** A fresh session (cleaned up by the context) with the client attached, once idle. No re-attach: a drop is the target's to answer for. */
async function attached(ctx: CaseContext, body: Record<string, unknown>): Promise<{ id: string; conn: SessionHandle; client: GatewayClient }> {
  const client = clientOf(ctx)
  const session = await ctx.createSession(body)
  const conn = await client.attach(session.id, { reconnect: false, attachTimeoutMs: ctx.deadlineMs })
  ctx.onCleanup(() => conn.detach())
  await conn.waitForEvent('status_changed', { afterSeq: 0, where: (e) => e.status === 'idle', timeoutMs: ctx.deadlineMs })
  return { id: session.id, conn, client }
}

const primary = (ctx: CaseContext, extra: Record<string, unknown> = {}) => ({ profile: ctx.profile('cli_primary'), cwd: ctx.manifest.cwdRoot, ...extra })

/**
 * The first `type` event `where` accepts (any seq), or the protocol_error a target answers a
 * protocol-7 command with instead (the wait would otherwise hang until the deadline).
 */
async function eventOrRefusal<K extends SessionEventType>(ctx: CaseContext, conn: SessionHandle, type: K, where: (e: EventOf<K>) => boolean = () => true): Promise<EventOf<K> | { refused: string }> {
  const earlier = conn.frames.find((f) => f.type === 'protocol_error')
  if (earlier?.type === 'protocol_error') return { refused: earlier.message }
  const stop = new AbortController()
  const event = conn.waitForEvent(type, { afterSeq: 0, where, timeoutMs: ctx.deadlineMs, signal: stop.signal })
  const refusal = conn.waitForFrame((f) => f.type === 'protocol_error', { signal: stop.signal }).then((f) => ({ refused: f.type === 'protocol_error' ? f.message : '' }))
  event.catch(() => {})
  refusal.catch(() => {})
  try {
    return await Promise.race([event, refusal])
  } finally {
    stop.abort()
  }
}

/** The turn's end, or the protocol_error a target answers a protocol-7 command with. */
async function turnOrRefusal(ctx: CaseContext, conn: SessionHandle, numTurns: number, what: string): Promise<EventOf<'turn_result'>> {
  const outcome = await eventOrRefusal(ctx, conn, 'turn_result', (e) => e.numTurns === numTurns)
  if ('refused' in outcome) throw new NonStrict(`the target refused the protocol-7 client's ${what}: protocol_error "${outcome.refused}" (the spec leaves the command's payload shape open)`)
  return outcome
}

/** A bridged `client_eval` call answered by `answer`; resolves with the turn result. */
async function bridged(ctx: CaseContext, answer: ToolCallHandler): Promise<{ conn: SessionHandle; result: EventOf<'turn_result'> }> {
  const { conn } = await attached(ctx, { profile: ctx.profile('provider') })
  conn.onToolCall(answer)
  conn.sendMessage('scenario:bridge')
  return { conn, result: await turnOrRefusal(ctx, conn, 1, 'tool answer') }
}

/** The first permission request of a cli_primary session running a mutating command (a real CLI runs `echo` unasked). */
async function asked(ctx: CaseContext) {
  const { id, conn, client } = await attached(ctx, primary(ctx))
  conn.sendMessage('scenario:permission-write')
  const event = await conn.waitForEvent('permission_requested', { timeoutMs: ctx.deadlineMs })
  const request = event.request
  if (typeof request?.id !== 'string') throw new NonStrict(`PermissionRequest has no string \`id\`, which the protocol-7 client answers with (the spec does not show PermissionRequest's shape): ${JSON.stringify(request)}`)
  return { id, conn, client, request }
}

async function resolvedAfter(ctx: CaseContext, conn: SessionHandle, requestId: string, via: string): Promise<EventOf<'permission_resolved'>> {
  const outcome = await eventOrRefusal(ctx, conn, 'permission_resolved')
  if ('refused' in outcome) throw new NonStrict(`an answer by the request's \`id\` over ${via} was refused: "${outcome.refused}"`)
  if (outcome.requestId !== requestId) throw new NonStrict(`permission_resolved names ${JSON.stringify(outcome.requestId)}, not the request's id ${requestId}`)
  return outcome
}

/** The main conversation's text of a turn: rebuilt from raw stream deltas, and as its assistant messages carry it. */
function turnText(events: SessionEvent[]): { live: string; final: string } {
  let live = ''
  let final = ''
  for (const e of events) {
    if (e.type === 'stream_delta' && e.parentToolUseId == null) live += streamedText(e.event) ?? ''
    if (e.type === 'assistant_message' && e.parentToolUseId == null) {
      const { content } = e.message
      final += typeof content === 'string' ? content : content.map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('')
    }
  }
  return { live, final }
}

/** Rebuilds the turn's live text from raw stream deltas and compares it with the final text. */
async function liveTextMatches(ctx: CaseContext, body: Record<string, unknown>, prompt: string): Promise<void> {
  const { conn } = await attached(ctx, { ...body, includePartialMessages: true })
  conn.sendMessage(prompt)
  await conn.waitForTurn({ timeoutMs: ctx.deadlineMs })
  const deltas: any[] = conn.events.filter((e) => e.type === 'stream_delta')
  ctx.check('events.11', deltas.length > 0, 'stream_delta events with includePartialMessages', conn.events.map((e) => e.type))
  const odd = deltas.find((d) => !RAW_STREAM_TYPES.has(d.event?.type))
  if (odd) throw new NonStrict(`stream_delta.event is not a raw Messages-API stream event, which the protocol-7 client's live text reads (the spec says only "raw streaming event"): ${JSON.stringify(odd.event)}`)
  const unparented = deltas.find((d) => !('parentToolUseId' in d))
  if (unparented) throw new NonStrict(`stream_delta without parentToolUseId: ${JSON.stringify(unparented)}`)
  const turn = turnText(conn.events)
  if (turn.live !== turn.final || !turn.final) {
    throw new NonStrict(`live text rebuilt from content_block_delta/text_delta frames (${JSON.stringify(turn.live)}) is not the turn's text (${JSON.stringify(turn.final)})`)
  }
}

export const compatibilityCases: Case[] = [
  {
    id: 'compat-tool-call-result-output', title: 'protocol-7 client: tool_call_result carries `output: {type, value}` and the model receives the value', section: 'commands',
    clauses: ['commands.8', 'websocket-framing.3'], requires: ['provider', 'bridge'],
    async run(ctx) {
      const { result } = await bridged(ctx, () => ({ output: { type: 'json', value: 42 } }))
      const text = String(result.result)
      // Protocol 7 hands the agent loop `output.value` for a result delivered over REST (reference §1.4);
      // the spec leaves the bridged result's handling open.
      if (text.includes('"type"')) throw new NonStrict(`the model received the whole {type, value} object, not its value (as protocol 7 does for a REST-delivered result; the spec leaves it open): ${text}`)
      ctx.nonStrict(text.includes('42'), `the model did not receive the value 42: ${text}`)
    },
  },
  {
    id: 'compat-tool-call-error', title: 'protocol-7 client: tool_call_error carries `reason` and `error`, fed back as tool output and named on execution_failed', section: 'commands',
    clauses: ['commands.9', 'events.14'], requires: ['provider', 'bridge'],
    async run(ctx) {
      const { conn, result } = await bridged(ctx, () => ({ reason: 'unsupported', error: 'no sandbox in this client' }))
      ctx.nonStrict(String(result.result).includes('no sandbox in this client'), `the client's error did not reach the model as tool output: ${result.result}`)
      const failed: any = conn.events.find((e) => e.type === 'execution_failed')
      ctx.nonStrict(failed?.reason === 'unsupported', `execution_failed.reason is ${JSON.stringify(failed?.reason)}, not the client's reason 'unsupported' (the spec does not show execution_failed's fields)`)
    },
  },
  {
    id: 'compat-execution-events', title: 'protocol-7 client: execution_dispatched names a backend, execution_result carries the typed output', section: 'events',
    clauses: ['events.14'], requires: ['provider', 'bridge'],
    async run(ctx) {
      const { conn } = await bridged(ctx, () => ({ output: { type: 'text', value: 'forty-two' }, logs: ['ran'] }))
      const dispatched: any = conn.events.find((e) => e.type === 'execution_dispatched')
      ctx.nonStrict(BACKENDS.has(dispatched?.backend), `execution_dispatched.backend ${JSON.stringify(dispatched?.backend)} is none of the protocol-7 client's (server, browser, managed, remote); the spec names no backend values`)
      // execution_result's output is not checked against the typed output the client sent: the
      // spec does not show it, and protocol 7 itself records a bridged output in its own wrapping
      // (issue 20), so no layout of it is a departure.
      ctx.check('events.14', conn.events.some((e: any) => e.type === 'execution_result' && e.executionId === dispatched?.executionId), 'execution_result correlated by the dispatch\'s executionId', conn.events.map((e: any) => e.type))
    },
  },
  {
    id: 'compat-permission-request-id', title: 'protocol-7 client: PermissionRequest carries `id`; permission_decision answers with it; resolvedBy client', section: 'permission-request',
    clauses: ['other-shapes.6', 'commands.2', 'permission-request.1'], requires: ['cli_primary'],
    async run(ctx) {
      const { conn, request } = await asked(ctx)
      conn.decide(request, { behavior: 'allow' })
      const resolved = await resolvedAfter(ctx, conn, request.id, 'the WebSocket')
      ctx.nonStrict(resolved.resolvedBy === 'client', `resolvedBy of a WebSocket answer is ${JSON.stringify(resolved.resolvedBy)}, not the protocol-7 client's 'client' (the spec names only 'timeout')`)
    },
  },
  {
    id: 'compat-permission-rest-by-id', title: 'protocol-7 client: POST /sessions/:id/permissions/:requestId takes the request `id`; resolvedBy client', section: 'sessions',
    clauses: ['sessions.13', 'permission-request.1', 'events.13'], requires: ['cli_primary'],
    async run(ctx) {
      const { id, conn, client, request } = await asked(ctx)
      try {
        const answer = await client.resolvePermission(id, request, { behavior: 'allow' })
        ctx.nonStrict(JSON.stringify(answer) === '{"resolved":true}', `the REST answer body is ${JSON.stringify(answer)}, protocol 7 answers {resolved: true} (ResolvePermissionResponse is not shown)`)
      } catch (err) {
        if (err instanceof GatewayError) throw new NonStrict(`an answer by the request's id over REST was refused: ${err.message}`)
        throw err
      }
      const resolved = await resolvedAfter(ctx, conn, request.id, 'REST')
      ctx.nonStrict(resolved.resolvedBy === 'client', `resolvedBy of a REST answer is ${JSON.stringify(resolved.resolvedBy)}, not the protocol-7 client's 'client' (its values: client, timeout, policy; the spec names only 'timeout')`)
    },
  },
  {
    id: 'compat-permission-deny-message', title: 'protocol-7 client: a deny carries its message on permission_resolved', section: 'events',
    clauses: ['events.13', 'other-shapes.2'], requires: ['cli_primary'],
    async run(ctx) {
      const { conn, request } = await asked(ctx)
      conn.decide(request, { behavior: 'deny', message: 'not today' })
      const resolved = await resolvedAfter(ctx, conn, request.id, 'the WebSocket')
      ctx.check('events.13', resolved.behavior === 'deny', 'permission_resolved with behavior deny', resolved)
      ctx.nonStrict(resolved.message === 'not today', `permission_resolved of a deny carries message ${JSON.stringify(resolved.message)}, not the deny message the protocol-7 client shows (the spec does not show permission_resolved's fields)`)
    },
  },
  {
    id: 'compat-deny-interrupt-result', title: 'protocol-7 client: a deny with interrupt ends the turn as every interrupt does (error_during_execution, isError, errors ["interrupted"])', section: 'events',
    clauses: ['events.12', 'commands.2'], requires: ['cli_primary'],
    async run(ctx) {
      const { conn, request } = await asked(ctx)
      conn.deny(request, { message: 'stop here', interrupt: true })
      const result = await turnOrRefusal(ctx, conn, 1, 'deny with interrupt')
      ctx.check('events.12', result.isError === true, 'turn_result.isError true for the interrupted turn', result)
      // The spec does not say how an interrupted turn's turn_result reads; the protocol-7 client recognises this one shape.
      ctx.nonStrict(result.subtype === 'error_during_execution' && JSON.stringify(result.errors) === '["interrupted"]', `a deny with interrupt ended the turn with subtype ${JSON.stringify(result.subtype)} and errors ${JSON.stringify(result.errors)}, not the interrupt shape the protocol-7 client reads (error_during_execution, ["interrupted"])`)
    },
  },
  {
    id: 'compat-clear-typed-message', title: 'protocol-7 client: the message `/clear` (how its library clears a conversation) gives conversation_reset on cli_primary', section: 'events',
    clauses: ['events.20'], requires: ['cli_primary'],
    async run(ctx) {
      const { conn } = await attached(ctx, primary(ctx))
      conn.sendMessage('hello')
      const first = await turnOrRefusal(ctx, conn, 1, 'message')
      conn.sendMessage('/clear')
      // A target that runs /clear as a plain turn ends it with a turn_result and no reset: the first of the two decides.
      const answer = await conn.waitFor((e) => e.type === 'conversation_reset' || e.type === 'turn_result', { afterSeq: first.seq, timeoutMs: ctx.deadlineMs }, 'conversation_reset or turn_result')
      ctx.nonStrict(answer.type === 'conversation_reset', `the message /clear gave ${answer.type}, no conversation_reset (the Claude CLI clears on it; the spec names only clear_context)`)
    },
  },
  {
    id: 'compat-stream-delta-provider', title: 'protocol-7 client: stream_delta carries the raw Messages-API event; live text rebuilds the turn (provider engine)', section: 'events',
    clauses: ['events.11'], requires: ['provider'],
    run: (ctx) => liveTextMatches(ctx, { profile: ctx.profile('provider') }, 'scenario:long-text'),
  },
  {
    id: 'compat-stream-delta-cli-primary', title: 'protocol-7 client: stream_delta carries the raw Messages-API event; live text rebuilds the turn (cli_primary engine)', section: 'events',
    clauses: ['events.11'], requires: ['cli_primary'],
    run: (ctx) => liveTextMatches(ctx, primary(ctx), 'scenario:hello'),
  },
  {
    id: 'compat-system-init-and-capabilities', title: 'protocol-7 client: system_init names claudeCodeVersion, slashCommands and mcpServers {name, status}; capabilities names commands', section: 'events',
    clauses: ['events.2', 'events.4', 'other-shapes.6'], requires: ['cli_primary'],
    async run(ctx) {
      const { conn } = await attached(ctx, primary(ctx))
      conn.sendMessage('hello')
      const init: any = await conn.waitForEvent('system_init', { afterSeq: 0, timeoutMs: ctx.deadlineMs })
      const caps: any = await conn.waitForEvent('capabilities', { afterSeq: 0, timeoutMs: ctx.deadlineMs })
      // The spec lists what system_init and capabilities carry, not their field names: the names
      // below are the protocol-7 client's (SessionEventBody in gateway/protocol/events.ts).
      ctx.nonStrict(typeof init.claudeCodeVersion === 'string', `system_init has no claudeCodeVersion (the protocol-7 client's name for the CLI version; the spec does not name the field): ${Object.keys(init).join(', ')}`)
      ctx.nonStrict(Array.isArray(init.slashCommands), 'system_init has no slashCommands array (the protocol-7 client\'s name; the spec does not name the field)')
      ctx.nonStrict(Array.isArray(init.mcpServers) && init.mcpServers.every((s: any) => typeof s?.name === 'string' && typeof s?.status === 'string'), `system_init.mcpServers is not [{name, status}]: ${JSON.stringify(init.mcpServers)}`)
      ctx.nonStrict(Array.isArray(caps.commands), `capabilities has no commands array (the protocol-7 client's name for slash commands; the spec does not name the field): ${Object.keys(caps).join(', ')}`)
      ctx.nonStrict(caps.models.every((m: any) => typeof m.value === 'string' && typeof m.displayName === 'string'), 'a ModelOption without value and displayName')
    },
  },
  {
    id: 'compat-sdk-event-payload', title: 'protocol-7 client: sdk_event carries the engine message as `payload`', section: 'events',
    clauses: ['events.19'], requires: ['cli_primary'],
    async run(ctx) {
      const { conn } = await attached(ctx, primary(ctx))
      // A permission-mode switch makes the CLI report its status, which has no first-class event.
      conn.setPermissionMode('acceptEdits')
      const passthrough: any = await conn.waitForEvent('sdk_event', { afterSeq: 0, timeoutMs: ctx.deadlineMs })
      ctx.nonStrict(typeof passthrough.payload?.type === 'string', `sdk_event without the payload {type, …} the protocol-7 client reads (the spec says only "passthrough"): ${JSON.stringify(passthrough)}`)
    },
  },
  {
    id: 'compat-profile-create-status', title: 'protocol 7: POST /profiles answers 200 {profile}', section: 'profiles',
    clauses: ['profiles.2'], requires: ['profileStore', 'principal:manager', 'provider'],
    async run(ctx) {
      const name = `kit-compat-${Math.floor(ctx.random() * 1e9)}`
      const created = await ctx.http('POST', '/profiles', { as: 'manager', body: { name, engine: 'provider', provider: { id: 'fake', model: ctx.manifest.models?.provider?.[0] ?? 'fake-small' } } })
      ctx.onCleanup(() => ctx.http('DELETE', `/profiles/${name}`, { as: 'manager' }))
      ctx.check('profiles.2', created.status === 200 || created.status === 201, 'the profile created', `HTTP ${created.status} ${created.text.slice(0, 200)}`)
      // profiles.2 gives no status: another 2xx is an observation; the {profile} answer is protocol 7's shape.
      ctx.observe(created.status === 200, `POST /profiles answered ${created.status}; protocol 7 answers 200`)
      ctx.nonStrict(created.json?.profile?.name === name, `POST /profiles answered ${created.text.slice(0, 120)}; protocol 7 answers {profile}`)
    },
  },
  {
    id: 'compat-capability-record-keys', title: "protocol-7 client: the capability record carries the keys the protocol-7 client reads (vfs, streaming, contextUsage, …)", section: 'engine-capability-record',
    clauses: ['engine-capability-record.1'], requires: [],
    async run(ctx) {
      const res = await ctx.http('GET', '/profiles')
      ctx.status('profiles.1', res, 200)
      const booleans = ['interactiveApprovals', 'resume', 'resumeBackfill', 'listSessions', 'contextUsage', 'rateLimits', 'mcpStatus', 'mcpServerActions', 'sessionMcpServers', 'slashCommands', 'skillsList', 'settingSources', 'budgets', 'vfs']
      for (const profile of res.json?.profiles ?? []) {
        const caps = profile.capabilities ?? {}
        const missing = booleans.filter((key) => typeof caps[key] !== 'boolean')
        if (!['token', 'item', 'none'].includes(caps.streaming)) missing.push('streaming')
        if (typeof caps.defaultPermissionMode !== 'string') missing.push('defaultPermissionMode')
        if (!Array.isArray(caps.permissionModes) || !Array.isArray(caps.attachments)) missing.push('permissionModes/attachments')
        ctx.nonStrict(missing.length === 0, `profile ${profile.name}: the capability record lacks the protocol-7 client's ${missing.join(', ')} (the spec: "other keys: not shown")`)
      }
    },
  },
  {
    id: 'compat-host-file-shapes', title: "protocol 7 /fs/write answers {path, bytes, hash, modifiedAt}, /fs/find {base, matches}; the protocol-7 client reads entry bytes, modifiedAt and match relative", section: 'engine-session-stores-and-host-files',
    clauses: ['engine-session-stores-and-host-files.7'], requires: ['hostFiles', 'hostFilesWrite'],
    async run(ctx) {
      const root = ctx.manifest.cwdRoot
      if (!root) throw new Unsupported('the manifest gives no cwdRoot')
      const name = `kit-compat-${Math.floor(ctx.random() * 1e9)}.txt`
      const written = await ctx.http('PUT', '/fs/write', { body: { path: `${root}/${name}`, content: 'compat' } })
      ctx.created('engine-session-stores-and-host-files.6', written, 200)
      const w = written.json ?? {}
      ctx.nonStrict(typeof w.path === 'string' && w.bytes === 6 && typeof w.hash === 'string' && typeof w.modifiedAt === 'number', `PUT /fs/write answered ${written.text.slice(0, 200)}; protocol 7 answers {path, bytes, hash, modifiedAt}`)
      const list = await ctx.http('GET', `/fs/list?path=${encodeURIComponent(root)}`)
      const entry = list.json?.entries?.find((e: any) => e.name === name)
      ctx.nonStrict(entry?.bytes === 6 && typeof entry?.modifiedAt === 'number' && typeof entry?.path === 'string', `a listed file is ${JSON.stringify(entry)}; the protocol-7 client reads {name, path, type, bytes, modifiedAt} in {entries} (the spec does not show the listing)`)
      const find = await ctx.http('GET', `/fs/find?path=${encodeURIComponent(root)}&q=${encodeURIComponent(name)}`)
      const match = find.json?.matches?.find((m: any) => typeof m.path === 'string' && m.path.endsWith(name))
      ctx.nonStrict(match?.relative === name && typeof find.json?.base === 'string', `a find match is ${JSON.stringify(match)}; protocol 7 answers {base, matches} and the protocol-7 client reads {path, relative} per match (the spec does not show them)`)
    },
  },
  {
    id: 'compat-session-cwd', title: "protocol-7 client: SessionInfo.cwd is a string ('' for an engine without a host filesystem)", section: 'session',
    clauses: ['session.6', 'createsessionrequest.2'], requires: ['provider'],
    async run(ctx) {
      const session = await ctx.createSession({ profile: ctx.profile('provider') })
      if (session.capabilities?.hostCwd !== false) throw new NonStrict('the provider profile reports hostCwd true')
      ctx.nonStrict(session.cwd === '', `SessionInfo.cwd is ${JSON.stringify(session.cwd)}; the protocol-7 client types it as a string ('' without a host filesystem); the spec does not show its type`)
    },
  },
]
