/** The cases of § Peers: each case's first clause is `peers.N`. */
import { Unsupported, type Case } from '../../types.ts'
import { CLI_PEERS_SEND, call, toolThenResult, peerEdgeScenario, idle, peerScenario, fromPeer, maxSeq } from '../../harness/case-helpers/index.ts'

export const peersCases: Case[] = [
  {
    id: 'peers-message-arrives-with-origin', title: 'peers_send delivers a user_message with a peer origin to another session in scope', section: 'peers',
    clauses: ['peers.1', 'what-the-service-does.12', 'server-configuration.24'], requires: ['provider', 'peers'],
    async run(ctx) {
      const a = await idle(ctx)
      const b = await idle(ctx)
      a.ws.send({ type: 'user_message', text: peerScenario(call('peers_send', { sessionId: b.session.id, text: 'hello peer' })) })
      const arrived = await b.ws.waitForEvent('user_message', ctx.deadlineMs, (e) => e.origin?.kind === 'peer')
      // The ApiMessage's content layout is the target's (a string or text blocks): the text is looked for in it.
      ctx.check('what-the-service-does.12', arrived.origin.sessionId === a.session.id && JSON.stringify(arrived.message ?? null).includes('hello peer'), 'the message with origin {kind: peer, sessionId: sender}', arrived)
      // `hops` is optional on the origin (peers.1: `hops?`): counted when present.
      if ('hops' in arrived.origin) ctx.check('server-configuration.24', arrived.origin.hops === 1, 'hops counts the relay', arrived.origin)
    },
  },
  {
    id: 'peers-visibility-is-the-sender-scope', title: "a scoped session's peers_list names its scope-mates, not another tenant's sessions nor unscoped ones; a send to those arrives nowhere", section: 'peers',
    clauses: ['peers.1', 'scope.1', 'authentication.3'], requires: ['provider', 'peers', 'principal:tenantA', 'principal:tenantB'],
    async run(ctx) {
      // peers.1: visibility is the sender session's scope under the default rule (authentication.3:
      // every key the scope pins must match). A tenantA session sees the other tenantA session; a
      // tenantB session and an unscoped (operator) one pin no matching value, so neither is visible,
      // and a peers_send naming one of them delivers nothing there.
      const mate = await ctx.idleSession({}, 'tenantA')
      const other = await ctx.idleSession({}, 'tenantB')
      const unscoped = await ctx.idleSession({}, 'operator')
      const sender = await ctx.idleSession({}, 'tenantA')
      sender.ws.send({ type: 'user_message', text: peerScenario(call('peers_list', {})) })
      const listed = String((await sender.ws.waitForEvent('turn_result', ctx.deadlineMs)).result ?? '')
      ctx.check('peers.1', listed.includes(mate.session.id), 'peers_list names the session in the sender\'s scope (by the id peers_send takes)', listed.slice(0, 400))
      ctx.check('peers.1', !listed.includes(other.session.id) && !listed.includes(unscoped.session.id), 'peers_list names neither another tenant\'s session nor an unscoped one', listed.slice(0, 400))
      const mark = maxSeq(sender.ws.events())
      sender.ws.send({ type: 'user_message', text: peerScenario(call('peers_send', { sessionId: other.session.id, text: 'kit across tenants' }), call('peers_send', { sessionId: unscoped.session.id, text: 'kit to the unscoped' }), call('peers_send', { sessionId: mate.session.id, text: 'kit to the mate' })) })
      await sender.ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.seq > mark)
      // The send to the visible mate arrives; the two invisible sessions received nothing by then (one sender, one turn, in order).
      await mate.ws.waitForEvent('user_message', ctx.deadlineMs, (e) => e.origin?.kind === 'peer' && e.origin?.sessionId === sender.session.id)
      ctx.check('peers.1', fromPeer(other.ws, sender.session.id).length === 0 && fromPeer(unscoped.ws, sender.session.id).length === 0, 'no peer message arrives at a session outside the sender\'s scope', [...fromPeer(other.ws, sender.session.id), ...fromPeer(unscoped.ws, sender.session.id)])
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
    id: 'peers-send-in-scope-cli-primary', title: 'on cli_primary, a peers_send to a session in scope is delivered and answered without a tool error', section: 'peers',
    clauses: ['peers.1', 'what-the-service-does.12'], requires: ['provider', 'cli_primary', 'peers'],
    async run(ctx) {
      // peers.1: every session on every engine has peers_send, and a session created by the same
      // principal is in the sender's scope: the message arrives as a user_message with a peer
      // origin. A send that was delivered must not be answered to the sending model as a failure.
      // The cli_primary peer tools are the gateway's SDK MCP server `peers` (mcp__peers__peers_send).
      const cwd = ctx.manifest.cwdRoot
      if (!cwd) throw new Unsupported('the manifest gives no cwdRoot')
      const b = await ctx.idleSession()
      const primary = await ctx.createSession({ profile: ctx.profile('cli_primary'), cwd })
      const ws = await ctx.ws(primary.id)
      const marker = `kit-peer-${Math.floor(ctx.random() * 1e9)}`
      ws.send({ type: 'user_message', text: peerEdgeScenario(call('mcp__peers__peers_send', { sessionId: b.session.id, text: marker })) })
      await ws.waitForEvent('turn_result', ctx.deadlineMs)
      await b.ws.waitForEvent('user_message', ctx.deadlineMs, (e) => e.origin?.kind === 'peer' && e.origin?.sessionId === primary.id && JSON.stringify(e.message ?? null).includes(marker))
      const results = ws.events().filter((e) => e.type === 'user_message').flatMap((e) => (Array.isArray(e.message?.content) ? e.message.content : [])).filter((c: any) => c?.type === 'tool_result')
      ctx.check('peers.1', results.length > 0, 'a tool_result for the peers_send call', ws.events().map((e) => e.type))
      ctx.check('peers.1', results.every((r: any) => r.is_error !== true), 'a delivered peers_send answered without a tool error', results.map((r: any) => ({ is_error: r.is_error, content: JSON.stringify(r.content ?? null).slice(0, 200) })))
    },
  },
]
