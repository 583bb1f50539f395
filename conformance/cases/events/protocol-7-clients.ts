/**
 * The cases of § Events that a protocol-7 client relies on (the wire shapes its library reads): each
 * case's first clause is `events.N`. The section's other cases are in ../events.ts.
 */
import { type Case } from '../../types.ts'
import { BACKENDS, asked, attached, turnOrRefusal, bridgedTurn, liveTextMatches, primaryBody, resolvedAfter, bridgedRequest, toolUseIds } from '../../harness/case-helpers/index.ts'

export const protocol7ClientEventsCases: Case[] = [
  {
    id: 'compat-execution-events', title: 'protocol-7 client: execution_dispatched names a backend, execution_result carries the typed output', section: 'events',
    clauses: ['events.14'], requires: ['provider', 'bridge'],
    async run(ctx) {
      const { conn } = await bridgedTurn(ctx, () => ({ output: { type: 'text', value: 'forty-two' }, logs: ['ran'] }))
      const dispatched: any = conn.events.find((e) => e.type === 'execution_dispatched')
      ctx.nonStrict(BACKENDS.has(dispatched?.backend), `execution_dispatched.backend ${JSON.stringify(dispatched?.backend)} is none of the protocol-7 client's (server, browser, managed, remote); the spec names no backend values`)
      // execution_result's output is not checked against the typed output the client sent: the
      // spec does not show it, and protocol 7 itself records a bridged output in its own wrapping,
      // so no layout of it is a departure.
      ctx.check('events.14', conn.events.some((e: any) => e.type === 'execution_result' && e.executionId === dispatched?.executionId), 'execution_result correlated by the dispatch\'s executionId', conn.events.map((e: any) => e.type))
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
    cells: { states: ['awaiting_approval'] },
    async run(ctx) {
      const { conn, request } = await asked(ctx)
      conn.deny(request, { message: 'stop here', interrupt: true })
      // An engine counts an interrupted turn its own way (the real Claude CLI does not report it as
      // turn 1): the turn_result that follows the deny is the one.
      const result = await turnOrRefusal(ctx, conn, undefined, 'deny with interrupt')
      ctx.check('events.12', result.isError === true, 'turn_result.isError true for the interrupted turn', result)
      // The spec does not say how an interrupted turn's turn_result reads; the protocol-7 client recognises this one shape.
      ctx.nonStrict(result.subtype === 'error_during_execution' && JSON.stringify(result.errors) === '["interrupted"]', `a deny with interrupt ended the turn with subtype ${JSON.stringify(result.subtype)} and errors ${JSON.stringify(result.errors)}, not the interrupt shape the protocol-7 client reads (error_during_execution, ["interrupted"])`)
    },
  },
  {
    id: 'compat-clear-typed-message', title: 'protocol-7 client: the message `/clear` (how its library clears a conversation) gives conversation_reset on cli_primary', section: 'events',
    clauses: ['events.20'], requires: ['cli_primary'],
    async run(ctx) {
      const { conn } = await attached(ctx, primaryBody(ctx))
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
    run: (ctx) => liveTextMatches(ctx, primaryBody(ctx), 'scenario:hello'),
  },
  {
    id: 'compat-system-init-and-capabilities', title: 'protocol-7 client: system_init names claudeCodeVersion, slashCommands and mcpServers {name, status}; capabilities names commands', section: 'events',
    clauses: ['events.2', 'events.4', 'other-shapes.6'], requires: ['cli_primary'],
    async run(ctx) {
      const { conn } = await attached(ctx, primaryBody(ctx))
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
      const { conn } = await attached(ctx, primaryBody(ctx))
      // A permission-mode switch makes the CLI report its status, which has no first-class event.
      conn.setPermissionMode('acceptEdits')
      const passthrough: any = await conn.waitForEvent('sdk_event', { afterSeq: 0, timeoutMs: ctx.deadlineMs })
      ctx.nonStrict(typeof passthrough.payload?.type === 'string', `sdk_event without the payload {type, …} the protocol-7 client reads (the spec says only "passthrough"): ${JSON.stringify(passthrough)}`)
    },
  },
  {
    id: 'compat-execution-id-tool-use-id', title: 'execution events name a bridged call by the id of its tool_use block', section: 'events',
    clauses: ['events.14', 'commands.8'], requires: ['provider', 'bridge'],
    cells: { states: ['awaiting_tool'] },
    async run(ctx) {
      const { ws, request } = await bridgedRequest(ctx, { output: { type: 'json', value: 42 } })
      const events = ws.events()
      const ids = toolUseIds(events)
      const dispatched = events.find((e) => e.type === 'execution_dispatched')
      const settled = events.find((e) => e.type === 'execution_result' || e.type === 'execution_failed')
      ctx.check('events.14', typeof dispatched?.executionId === 'string' && settled?.executionId === dispatched.executionId, 'execution_dispatched and its result correlated by one executionId', [dispatched, settled])
      ctx.nonStrict(ids.length === 1, `expected one tool_use block for the bridged call, found ${JSON.stringify(ids)}`)
      ctx.nonStrict(dispatched.executionId === ids[0] && request.executionId === ids[0],
        `executionId ${JSON.stringify(dispatched.executionId)} is not the id of the tool_use block it runs (${JSON.stringify(ids[0])}): a client that matches execution_* events to tool calls by that id leaves the call running for ever (events.14 names executionId without tying it to the block)`)
    },
  },
  {
    id: 'compat-execution-failed-bare-error', title: "execution_failed carries the executor's error as given, its reason apart", section: 'events',
    clauses: ['events.14', 'commands.9'], requires: ['provider', 'bridge'],
    cells: { states: ['awaiting_tool'] },
    async run(ctx) {
      const { ws } = await bridgedRequest(ctx, { reason: 'unsupported', error: 'no sandbox in this client' })
      const failed = ws.events().find((e) => e.type === 'execution_failed')
      ctx.check('events.14', failed !== undefined, 'execution_failed for a tool_call_error', ws.events().map((e) => e.type))
      ctx.nonStrict(failed.reason === 'unsupported', `execution_failed.reason is ${JSON.stringify(failed.reason)}, not the client's reason 'unsupported'`)
      ctx.nonStrict(failed.error === 'no sandbox in this client', `execution_failed.error is ${JSON.stringify(failed.error)}, not the client's error "no sandbox in this client" (a reason prefix makes a client show the reason twice)`)
    },
  },
  {
    id: 'compat-deny-default-message', title: 'a deny without a message still carries a message on permission_resolved', section: 'events',
    clauses: ['events.13', 'other-shapes.2', 'commands.2'], requires: ['cli_primary'],
    cells: { states: ['awaiting_approval'] },
    async run(ctx) {
      const { ws } = await ctx.idleSession({ profile: ctx.profile('cli_primary'), cwd: ctx.manifest.cwdRoot })
      // A mutating command: a real CLI (manifest realEngines) runs a read-only one such as `echo` without asking.
      ws.send({ type: 'user_message', text: 'scenario:permission-write' })
      const asked = await ws.waitForEvent('permission_requested', ctx.deadlineMs)
      const requestId = asked.request?.id ?? asked.request?.requestId
      ws.send({ type: 'permission_decision', requestId, behavior: 'deny' })
      const resolved = await ws.waitForEvent('permission_resolved', ctx.deadlineMs)
      ctx.check('events.13', resolved.behavior === 'deny' && typeof resolved.resolvedBy === 'string', 'permission_resolved with behavior deny and resolvedBy', resolved)
      ctx.nonStrict(typeof resolved.message === 'string' && resolved.message.length > 0, `permission_resolved of a deny given without a message carries ${JSON.stringify(resolved.message)}: a client has no words to show for the denial`)
    },
  },
]
