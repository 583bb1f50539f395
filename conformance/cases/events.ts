/** The cases of § Events: each case's first clause is `events.N`. Those a protocol-7 client relies on are in events/protocol-7-clients.ts. */
import { permissionRequestIdOf } from '../harness/permission-request.ts'
import { scripted } from '../harness/scripted-engine.ts'
import { Unsupported, type Case } from '../types.ts'
import { isDeepStrictEqual } from 'node:util'
import { resumeAfterCrash, subAgentEvents, primary, secondary, turnDeliveries, openCwdSession, submitCwdJob, engineDeath, delivered, untilNotified, holds, jobSession, eventShapesCase, checkNotificationBackoff } from '../harness/case-helpers/index.ts'

export const eventsCases: Case[] = [
  ...(['cli_primary', 'cli_secondary'] as const).flatMap((engine): Case[] => [
    {
      id: `${engine.replace('_', '-')}-resume-after-crash`, section: 'events',
      title: `${engine}: an engine that dies after a completed turn fails the session (session_error) or the session goes on and its next turn completes`,
      clauses: ['events.21', 'session-status-values.1'], requires: [engine, scripted(engine, 'crash')],
      run: (ctx) => resumeAfterCrash(ctx, engine),
    },
    {
      id: `${engine.replace('_', '-')}-subagent-events`, section: 'events',
      title: `${engine}: a turn that runs a sub-agent ends with its turn_result; a message's parentToolUseId, when set, names a call`,
      clauses: ['events.10', 'events.12'], requires: [engine, scripted(engine, 'subagent')],
      run: (ctx) => subAgentEvents(ctx, engine),
    },
  ]),
  {
    id: 'ws-turn-result-cumulative', title: 'numTurns and totalCostUsd on turn_result are session-cumulative', section: 'events',
    clauses: ['events.12', 'session.1'], requires: ['provider'],
    async run(ctx) {
      const { session, ws } = await ctx.idleSession()
      ws.send({ type: 'user_message', text: 'one' })
      const first = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      ws.send({ type: 'user_message', text: 'two' })
      const second = await ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.seq > first.seq)
      ctx.equal('events.12', second.numTurns, first.numTurns + 1, 'numTurns after a second turn')
      ctx.check('events.12', second.totalCostUsd >= first.totalCostUsd, 'totalCostUsd never decreasing', [first.totalCostUsd, second.totalCostUsd])
      // session.1 lists numTurns on SessionInfo without requiring it: compared when present.
      const info = (await ctx.http('GET', `/sessions/${session.id}`)).json.session
      if ('numTurns' in info) ctx.equal('session.1', info.numTurns, second.numTurns, 'SessionInfo.numTurns')
    },
  },
  {
    id: 'ws-stream-delta-only-with-partials', title: 'stream_delta arrives only with includePartialMessages', section: 'events',
    clauses: ['events.11'], requires: ['provider'],
    async run(ctx) {
      const plain = await ctx.idleSession()
      plain.ws.send({ type: 'user_message', text: 'scenario:hello' })
      await plain.ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('events.11', !plain.ws.events().some((e) => e.type === 'stream_delta'), 'no stream_delta without includePartialMessages', 'a stream_delta')
      const partial = await ctx.idleSession({ includePartialMessages: true })
      partial.ws.send({ type: 'user_message', text: 'scenario:hello' })
      await partial.ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('events.11', partial.ws.events().some((e) => e.type === 'stream_delta'), 'stream_delta with includePartialMessages', 'none')
    },
  },
  {
    id: 'ws-clear-context-reset-replay', title: 'clear_context emits conversation_reset; a re-attach skips content below it, state still replays', section: 'events',
    clauses: ['events.20', 'commands.6', 'session-status-values.9'], requires: ['provider'],
    async run(ctx) {
      const { session, ws } = await ctx.idleSession({ prompt: 'before the reset' })
      if (!session.capabilities?.clearContext) throw new Unsupported('the provider engine record does not set clearContext')
      await ws.waitForEvent('turn_result', ctx.deadlineMs)
      ws.send({ type: 'clear_context' })
      const reset = await ws.waitForEvent('conversation_reset', ctx.deadlineMs)
      ws.close()
      const again = await ctx.ws(session.id)
      await again.waitFor((f) => f.type === 'event' && f.event.seq === reset.seq, ctx.deadlineMs, 'the reset in the replay')
      const replayed = again.events()
      const content = replayed.filter((e) => e.seq < reset.seq && ['user_message', 'assistant_message', 'turn_result', 'stream_delta'].includes(e.type))
      ctx.check('events.20', content.length === 0, 'no transcript content below the latest reset', content.map((e) => e.type))
      ctx.check('events.20', replayed.some((e) => e.type === 'status_changed' && e.seq < reset.seq), 'state-bearing events below the reset still replayed', replayed.map((e) => e.type))
    },
  },
  {
    id: 'ws-system-init-and-capabilities', title: 'system_init and capabilities, when a session emits them, carry apiKeySource and a model list', section: 'events',
    clauses: ['events.2', 'events.4', 'versioning.3'], requires: ['provider'],
    async run(ctx) {
      // The Events table lists these events but obliges no engine to emit them: their shape is
      // checked when they come.
      const { ws } = await ctx.idleSession()
      ws.send({ type: 'user_message', text: 'hello' })
      await ws.waitForEvent('turn_result', ctx.deadlineMs)
      const init = ws.events().find((e) => e.type === 'system_init')
      const caps = ws.events().find((e) => e.type === 'capabilities')
      if (init) ctx.check('events.2', typeof init.apiKeySource === 'string', 'system_init.apiKeySource a string', init)
      if (caps) ctx.check('events.4', Array.isArray(caps.models), 'capabilities.models an array', caps)
      // Their absence is no note either: the protocol-7 reference does not say its provider engine
      // emits them, and the spec leaves it open.
    },
  },
  {
    id: 'notifications-turn-and-close', title: 'turn_completed and session_closed are posted in order with the session snapshot', section: 'events',
    clauses: ['events.24', 'other-shapes.3', 'server-configuration.23', 'limits.14', 'what-the-service-does.11'], requires: ['provider', 'notifications', 'receiver'],
    async run(ctx) {
      const session = await ctx.createSession({ prompt: 'scenario:hello' })
      const ws = await ctx.ws(session.id)
      await ws.waitForEvent('turn_result', ctx.deadlineMs)
      await ctx.http('DELETE', `/sessions/${session.id}`)
      const deadline = Date.now() + ctx.deadlineMs
      const mine = () => ctx.receiver!.deliveries.filter((d) => d.body?.sessionId === session.id && d.status < 300).map((d) => d.body)
      while (!mine().some((n) => n.type === 'session_closed') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      const notes = mine()
      ctx.equal('events.24', notes.map((n) => n.type), ['turn_completed', 'session_closed'], 'notification types in order')
      const [turn, closed] = notes
      ctx.check('other-shapes.3', typeof turn.seq === 'number' && typeof turn.ts === 'number' && !turn.preview.includes('\n') && turn.result?.numTurns === 1, 'seq, ts, a one-line preview and result', turn)
      ctx.check('other-shapes.3', typeof closed.reason === 'string' && closed.session?.status === 'closed', 'reason and the snapshot as the event left it', closed)
    },
  },
  {
    id: 'notifications-retry-backoff', title: 'a notification answered 500 twice is retried with exponential backoff from retryDelayMs, then delivered once', section: 'events',
    clauses: ['events.24', 'limits.14', 'server-configuration.23'], requires: ['provider', 'notifications', 'receiver', 'timer:notificationRetryDelayMs'],
    run: checkNotificationBackoff,
  },
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
    id: 'cli-primary-engine-death', title: 'an engine process that dies mid-turn fails the session (session_error) or only its turn (the session goes on); other sessions keep working', section: 'events',
    clauses: ['events.21', 'session-status-values.1', 'sessions.9', 'errors.9'], requires: ['cli_primary', scripted('cli_primary', 'crash')],
    run: (ctx) => engineDeath(ctx, (body) => primary(ctx, body)),
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
    id: 'cli-secondary-engine-death', title: 'cli_secondary: an engine process that dies mid-turn fails the session (session_error) or only its turn (the session goes on); other sessions keep working', section: 'events',
    clauses: ['events.21', 'session-status-values.1', 'sessions.9', 'errors.9'], requires: ['cli_secondary', scripted('cli_secondary', 'crash')],
    run: (ctx) => engineDeath(ctx, (body) => secondary(ctx, body)),
  },
  {
    id: 'turn-result-duration-within-observed', title: 'turn_result.durationMs is a duration no longer than the client saw the turn take', section: 'events',
    clauses: ['events.12'], requires: ['provider'],
    async run(ctx) {
      // events.12: durationMs is the turn's duration. The turn starts after the client's message
      // and ends before its turn_result reaches the client, so it cannot be longer than the
      // client's own measure of that span (monotonic, no clock shared); 1 s of slack for rounding.
      const { ws } = await ctx.idleSession()
      const sent = performance.now()
      ws.send({ type: 'user_message', text: 'scenario:hello' })
      const result = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      const observed = performance.now() - sent
      if (result.durationMs === undefined) return
      ctx.check('events.12', typeof result.durationMs === 'number' && result.durationMs >= 0 && result.durationMs <= observed + 1000,
        `turn_result.durationMs between 0 and the ${Math.round(observed)} ms the client observed`, result.durationMs)
    },
  },
  {
    id: 'jobs-progress-carries-permission-request', title: 'a job whose run asks for approval sends job_progress carrying the full permission request', section: 'events',
    clauses: ['events.23', 'job-status.4', 'events.13'], requires: ['cli_primary', 'queue', 'receiver'],
    async run(ctx) {
      // A mutating command, which a real CLI asks about too (cli-primary-permission-flow).
      const { id, hook } = await submitCwdJob(ctx, 'cli_primary', 'scenario:permission-write', 'approval-job')
      const sessionId = await jobSession(ctx, id)
      // Job sessions are ordinary registry sessions (queue-options): the request as the session shows it.
      const ws = await ctx.ws(sessionId)
      const asked = await ws.waitForEvent('permission_requested', ctx.deadlineMs)
      const request = asked.request
      if (typeof request !== 'object' || request === null) throw new Unsupported(`permission_requested carries no request object to compare (${JSON.stringify(asked).slice(0, 160)})`)
      // events.23: job_progress is "JobProgress with a preview and, for permission requests, the full
      // request"; job-status.4: a permission request while running sends job_progress. The layout of
      // JobProgress is not shown, so the request may sit anywhere in the delivery.
      const deadline = Date.now() + ctx.deadlineMs
      let carried = false
      while (!carried && Date.now() <= deadline) {
        carried = ctx.receiver!.received(hook.path).some((d) => d.body?.type === 'job_progress' && holds(d.body, request))
        if (!carried) await new Promise((r) => setTimeout(r, 25))
      }
      const types = ctx.receiver!.received(hook.path).map((d) => d.body?.type)
      ctx.check('events.23', carried, `a job_progress delivery carrying the permission request ${JSON.stringify(request).slice(0, 200)}`, `deliveries: ${JSON.stringify(types)}`)
      if (typeof request.requestId === 'string') await ctx.http('POST', `/sessions/${encodeURIComponent(sessionId)}/permissions/${encodeURIComponent(request.requestId)}`, { body: { behavior: 'deny', message: 'the kit only looked' } })
    },
  },
  {
    id: 'cli-secondary-refused-turn-ends-with-turn-result', title: 'on cli_secondary, a turn the engine refuses to start still ends with an error turn_result, and the session takes the next message', section: 'events',
    clauses: ['events.12', 'session-status-values.1'], requires: ['cli_secondary', scripted('cli_secondary', 'refuse-turn')],
    async run(ctx) {
      // The scripted codex answers turn/start with an error (scenario step refuse_turn). The
      // message was accepted, so its turn must end (events.12: turn_result, isError for a turn
      // that did not succeed) and the session must not stay `running`: the next message runs.
      const cwd = ctx.manifest.cwdRoot
      if (!cwd) throw new Unsupported('the manifest gives no cwdRoot')
      const session = await ctx.createSession({ profile: ctx.profile('cli_secondary'), cwd })
      const ws = await ctx.ws(session.id)
      ws.send({ type: 'user_message', text: `scenario:${JSON.stringify({ name: 'refused', steps: [{ type: 'refuse_turn' }] })}` })
      const refused = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('events.12', refused.isError === true, 'turn_result.isError true for a turn the engine refused to start', refused)
      ws.send({ type: 'user_message', text: 'scenario:hello' })
      const next = await ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => e !== refused)
      ctx.check('session-status-values.1', next.isError === false, 'the next message runs a successful turn', next)
    },
  },
  {
    id: 'notifications-permission-requested-answerable', title: 'an approval the agent blocks on is notified as permission_requested with the full request, and the notification is enough to answer it', section: 'events',
    clauses: ['events.24', 'other-shapes.3', 'events.13', 'sessions.13'], requires: ['cli_primary', 'notifications', 'receiver'],
    async run(ctx) {
      // events.24: permission_requested is one of the four notification types (default filter: all
      // four, as the features row of the manifest README says); other-shapes.3: it carries `request`,
      // the full permission request, and `seq` (attach with afterSeq = seq - 1 to catch up).
      // "To answer an approval from a notification, POST {behavior} to
      // /sessions/:sessionId/permissions/:requestId": the id is read from the notification alone.
      const { session, ws } = await openCwdSession(ctx, 'cli_primary')
      ws.send({ type: 'user_message', text: 'scenario:permission-write' })
      const asked = await ws.waitForEvent('permission_requested', ctx.deadlineMs)
      await untilNotified(ctx, () => delivered(ctx, session.id).some((n) => n.type === 'permission_requested'))
      const note = delivered(ctx, session.id).find((n) => n.type === 'permission_requested')
      ctx.check('events.24', note !== undefined, 'a permission_requested notification for the session blocked on approval', delivered(ctx, session.id).map((n) => n.type))
      // "full": every field the event's request carries, with the same value (PermissionRequest's shape is not shown, other-shapes.6).
      const full = typeof note.request === 'object' && note.request !== null && Object.entries(asked.request ?? {}).every(([k, v]) => isDeepStrictEqual(note.request[k], v))
      ctx.check('other-shapes.3', full, 'the notification\'s request carries the full permission request of the event', { notified: note.request, event: asked.request })
      ctx.equal('other-shapes.3', note.seq, asked.seq, 'the notification\'s seq (the event\'s, so afterSeq = seq - 1 catches up)')
      ctx.check('other-shapes.3', typeof note.preview === 'string' && !note.preview.includes('\n'), 'a one-line preview', note.preview)
      const requestId = permissionRequestIdOf({ request: note.request })
      if (!requestId) throw new Unsupported(`no request id the kit can read in the notified request: ${JSON.stringify(note.request)}`)
      const answer = await ctx.http('POST', `/sessions/${encodeURIComponent(note.sessionId)}/permissions/${encodeURIComponent(requestId)}`, { body: { behavior: 'deny' } })
      ctx.check('sessions.13', answer.status >= 200 && answer.status < 300, 'the approval answered from the notification (a 2xx)', `HTTP ${answer.status} ${answer.text.slice(0, 200)}`)
      // events.13: the answer resolves the request (permission_resolved's fields beyond resolvedBy are not shown).
      await ws.waitForEvent('permission_resolved', ctx.deadlineMs)
    },
  },
  {
    id: 'notifications-configured-headers', title: 'a notification delivery carries every header the notification webhook is configured with', section: 'events',
    clauses: ['events.24', 'server-configuration.23', 'authentication.11'], requires: ['provider', 'notifications', 'receiver'],
    async run(ctx) {
      // server-configuration.23: notifications `{webhook?: {url, headers?, events?}}`; authentication.11:
      // deliveries carry the configured headers. Which headers a target has is its operator's choice:
      // the manifest names them, and only those are demanded (others may come too).
      const expected = ctx.manifest.notificationHeaders
      if (!expected || !Object.keys(expected).length) throw new Unsupported('the manifest names no notificationHeaders (the headers the notification webhook is configured to send)')
      const session = await ctx.createSession({ prompt: 'scenario:hello' })
      const ws = await ctx.ws(session.id)
      await ws.waitForEvent('turn_result', ctx.deadlineMs)
      const deadline = Date.now() + ctx.deadlineMs
      while (!turnDeliveries(ctx, session.id).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      const deliveries = turnDeliveries(ctx, session.id)
      ctx.check('events.24', deliveries.length > 0, 'a turn_completed notification for the session', ctx.receiver!.deliveries.filter((d) => d.body?.sessionId === session.id).map((d) => d.body?.type))
      // Names only in the report: a configured header may be a credential (authentication.11).
      const wrong = (headers: Record<string, string | string[] | undefined>) =>
        Object.entries(expected).filter(([name, value]) => headers[name.toLowerCase()] !== value).map(([name]) => `${name}: ${headers[name.toLowerCase()] === undefined ? 'missing' : 'another value'}`)
      const problems = deliveries.map((d) => wrong(d.headers)).filter((p) => p.length)
      ctx.check('server-configuration.23', problems.length === 0, `every delivery carries the configured header(s) ${Object.keys(expected).join(', ')} with the configured value`, problems[0])
    },
  },
  // The events an engine may emit, judged on each engine (conformance/matrix).
  ...(['provider', 'cli_primary', 'cli_secondary'] as const).map(eventShapesCase),
]
