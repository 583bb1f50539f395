/**
 * Edge cases on engine behaviour found by reviewing generated mutation survivors:
 * a grant whose tool is never offered, and engine paths the kit did not reach.
 */
import type { CaseContext } from '../harness/context.ts'
import { scripted } from '../harness/scripted-engine.ts'
import { Unsupported, type Case } from '../types.ts'

/** profile.8 / embedding-rules.6 name exactly these provider grants. */
const NAMED_GRANTS = ['web_fetch', 'web_search', 'download', 'deliver_file']

const call = (name: string, input: Record<string, unknown>) => ({ type: 'tool', name, input })
const toolThenResult = (...steps: unknown[]) => `scenario:${JSON.stringify({ name: 'edges-engines', steps: [...steps, { type: 'text', text: '{{toolResult}}' }] })}`
/** The cli_primary peer tools are the gateway's SDK MCP server `peers` (the CLI's `mcp__<server>__<tool>` naming). */
const CLI_PEERS_SEND = 'mcp__peers__peers_send'

/** The reason a case that reads the offered tools cannot run on a target that announces none. */
export const NO_SYSTEM_INIT = 'the session emitted no system_init (the spec does not oblige one), so its offered tools are not shown'

/** The tools a provider session narrowed to `capabilities` announces in its system_init (events.2). */
async function offeredTools(ctx: CaseContext, profile: string, capabilities: string[]): Promise<string[]> {
  const res = await ctx.http('POST', '/sessions', { body: { profile, capabilities } })
  ctx.check('profiles.6', res.status === 201, `201 for capabilities ${JSON.stringify(capabilities)} on a profile granting ${NAMED_GRANTS.join(', ')}`, `HTTP ${res.status} ${res.text.slice(0, 200)}`)
  const id = res.json.session.id
  ctx.onCleanup(() => ctx.http('DELETE', `/sessions/${encodeURIComponent(id)}`))
  const ws = await ctx.ws(id)
  // The Events table lists system_init without obliging an engine to emit it: after a turn, a
  // session that announced none cannot be judged on its tools (unsupported, not a wait that fails).
  ws.send({ type: 'user_message', text: 'scenario:hello' })
  await ws.waitForEvent('turn_result', ctx.deadlineMs)
  const init = ws.events().find((e) => e.type === 'system_init')
  ws.close()
  if (!init) throw new Unsupported(NO_SYSTEM_INIT)
  ctx.check('events.2', Array.isArray(init.tools), 'system_init.tools, a list', init.tools)
  return (init.tools as unknown[]).map(String)
}

export const engineEdgeCases: Case[] = [
  {
    id: 'provider-each-grant-offers-a-tool', title: 'a provider session narrowed to one wired grant offers more tools than one narrowed to none, for each named grant', section: 'profiles',
    clauses: ['embedding-rules.6', 'embedding-rules.8', 'profile.8', 'profiles.6', 'events.2'], requires: ['provider', 'profile:providerAllGrants'],
    async run(ctx) {
      // The providerAllGrants role declares a profile granting all four with each backend wired
      // (embedding-rules.8: the host wires, the profile grants). Grants are added one at a time
      // (embedding-rules.6), so a session narrowed to one grant must offer something a session
      // narrowed to none does not; which tool names a grant brings is the target's own.
      const profile = ctx.profile('providerAllGrants')
      const none = new Set(await offeredTools(ctx, profile, []))
      for (const grant of NAMED_GRANTS) {
        const tools = await offeredTools(ctx, profile, [grant])
        const added = tools.filter((t) => !none.has(t))
        ctx.check('embedding-rules.6', added.length > 0, `a session narrowed to ['${grant}'] offers a tool a session narrowed to [] does not`, `the same tools: ${tools.join(', ')}`)
      }
    },
  },
  {
    id: 'peers-hops-restart-after-human-message-cli-primary', title: 'on cli_primary, a peer send from a turn a human started counts one hop, even after the session relayed a peer message', section: 'peers',
    clauses: ['peers.1', 'server-configuration.24', 'limits.6'], requires: ['provider', 'cli_primary', 'peers'],
    async run(ctx) {
      // limits.6: maxHops bounds the peer relay depth. A relay chain starts at a human message: a
      // cli_primary session that relayed a peer message (its send is hop 2) and is then sent a
      // human message starts a new chain, so its next send is hop 1 again, as the provider's is
      // (peers-message-arrives-with-origin). `hops` is optional on the origin: checked when present.
      const cwd = ctx.manifest.cwdRoot
      if (!cwd) throw new Unsupported('the manifest gives no cwdRoot')
      const primary = await ctx.createSession({ profile: ctx.profile('cli_primary'), cwd })
      const a = { session: primary, ws: await ctx.ws(primary.id) }
      const b = await ctx.idleSession()
      const fromA = (marker: string) => (e: any) => e.origin?.kind === 'peer' && e.origin?.sessionId === a.session.id && JSON.stringify(e.message ?? null).includes(marker)
      const relay = toolThenResult(call(CLI_PEERS_SEND, { sessionId: b.session.id, text: 'relayed by a' }))
      b.ws.send({ type: 'user_message', text: toolThenResult(call('peers_send', { sessionId: a.session.id, text: relay })) })
      const relayed = await b.ws.waitForEvent('user_message', ctx.deadlineMs, fromA('relayed by a'))
      await a.ws.waitForEvent('turn_result', ctx.deadlineMs)
      a.ws.send({ type: 'user_message', text: toolThenResult(call(CLI_PEERS_SEND, { sessionId: b.session.id, text: 'after a human' })) })
      const fresh = await b.ws.waitForEvent('user_message', ctx.deadlineMs, fromA('after a human'))
      if ('hops' in relayed.origin) ctx.check('server-configuration.24', relayed.origin.hops === 2, 'the relay of a peer message counts two hops', relayed.origin)
      if ('hops' in fresh.origin) ctx.check('limits.6', fresh.origin.hops === 1, 'a send from a turn a human started counts one hop', fresh.origin)
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
    id: 'peers-peek-in-scope-cli-primary', title: 'on cli_primary, peers_peek of a session in scope is answered, not refused', section: 'peers',
    clauses: ['peers.1', 'what-the-service-does.12'], requires: ['provider', 'cli_primary', 'peers'],
    async run(ctx) {
      // peers.1: every session on every engine has peers_peek, and what a session may see is its
      // own scope; a session created by the same principal is in it. What a peek returns is not
      // shown, so what is demanded is only that the tool's result is not an error; the peeked
      // session's text in the result is looked for, and its absence is only non-strict.
      const cwd = ctx.manifest.cwdRoot
      if (!cwd) throw new Unsupported('the manifest gives no cwdRoot')
      const b = await ctx.idleSession()
      b.ws.send({ type: 'user_message', text: 'scenario:hello' })
      await b.ws.waitForEvent('turn_result', ctx.deadlineMs)
      const primary = await ctx.createSession({ profile: ctx.profile('cli_primary'), cwd })
      const ws = await ctx.ws(primary.id)
      ws.send({ type: 'user_message', text: toolThenResult(call('mcp__peers__peers_peek', { sessionId: b.session.id })) })
      const done = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      const results = ws.events().filter((e) => e.type === 'user_message').flatMap((e) => (Array.isArray(e.message?.content) ? e.message.content : [])).filter((c: any) => c?.type === 'tool_result')
      ctx.check('peers.1', results.length > 0, 'a tool_result for the peers_peek call', ws.events().map((e) => e.type))
      ctx.check('peers.1', results.every((r: any) => r.is_error !== true), 'peers_peek of a session in scope answered without an error', results.map((r: any) => ({ is_error: r.is_error, content: JSON.stringify(r.content ?? null).slice(0, 200) })))
      ctx.nonStrict(String(done.result ?? '').includes('Hello, world!'), `the peek's result does not show the peeked session's text "Hello, world!": ${String(done.result ?? '').slice(0, 200)}`)
    },
  },
  {
    id: 'provider-web-search-answered', title: 'a provider session granted web_search on a wired backend gets a search answered without a tool error', section: 'profiles',
    clauses: ['embedding-rules.6', 'embedding-rules.8', 'profile.8'], requires: ['provider', 'profile:providerAllGrants'],
    async run(ctx) {
      // The providerAllGrants role declares a search backend wired for its web_search grant
      // (embedding-rules.8), so a search the model asks for is run, not refused. What results
      // look like is the backend's; the tool's name is the target's, found by the fake model's
      // binding (scenarios/README.md): without a tool named for search the case cannot ask.
      const { ws } = await ctx.idleSession({ profile: ctx.profile('providerAllGrants'), capabilities: ['web_search'] })
      const init = ws.events().find((e) => e.type === 'system_init')
      if (!init) throw new Unsupported(NO_SYSTEM_INIT)
      if (!((init?.tools ?? []) as unknown[]).some((t) => /search/i.test(String(t)))) throw new Unsupported(`no tool named for search among the session's tools: ${JSON.stringify(init?.tools ?? null)}`)
      ws.send({ type: 'user_message', text: toolThenResult(call('web_search', { query: 'conformance kit' })) })
      await ws.waitForEvent('turn_result', ctx.deadlineMs)
      const results = ws.events().filter((e) => e.type === 'user_message').flatMap((e) => (Array.isArray(e.message?.content) ? e.message.content : [])).filter((c: any) => c?.type === 'tool_result')
      ctx.check('embedding-rules.8', results.length > 0, 'a tool_result for the web_search call', ws.events().map((e) => e.type))
      ctx.check('embedding-rules.8', results.every((r: any) => r.is_error !== true), 'the search answered without a tool error', results.map((r: any) => ({ is_error: r.is_error, content: JSON.stringify(r.content ?? null).slice(0, 200) })))
    },
  },
]
