/** The cases of § Limits: each case's first clause is `limits.N`. */
import { waitAcross } from '../harness/ws-client.ts'
import { Unsupported, type Case } from '../types.ts'
import { afterPeerArrivals, burstScenario, call, chainEndArrived, fromPeer, idle, jsonOfBytes, peerScenario, relayChain, turnCount } from '../harness/case-helpers/index.ts'

export const limitsCases: Case[] = [
  {
    id: 'limits-body-over-max-413', title: 'a JSON body over maxBodyBytes is refused (the status is open: 413 as the spec\'s size row, or 500 as protocol 7)', section: 'limits',
    clauses: ['limits.1', 'errors.7', 'server-configuration.15'], requires: [],
    async run(ctx) {
      // One byte over the limit, exactly (limits.1: "maximum JSON body").
      const limit = ctx.manifest.limits?.maxBodyBytes ?? 1024 * 1024
      const res = await ctx.http('POST', '/sessions', { raw: jsonOfBytes({ profile: ctx.manifest.profiles.provider, prompt: '' }, 'prompt', limit + 1), headers: { 'content-type': 'application/json' } })
      if (res.status >= 200 && res.status < 300) await ctx.http('DELETE', `/sessions/${res.json?.session?.id}`)
      ctx.check('limits.1', res.status >= 400, 'the oversized body refused', `HTTP ${res.status}`)
      // errors.7: "status for body overflow: not shown". Protocol 7 answers 500; 413 follows the
      // spec's own row for size caps. Only another status departs from both.
      ctx.observe(res.status === 413 || res.status === 500, `a body over maxBodyBytes answered ${res.status}; protocol 7 answers 500 (and the spec's size row 413)`)
    },
  },
  {
    id: 'limits-body-under-max-accepted', title: 'a body just under maxBodyBytes is accepted', section: 'limits',
    clauses: ['limits.1', 'server-configuration.15'], requires: ['provider'],
    async run(ctx) {
      const limit = ctx.manifest.limits?.maxBodyBytes
      if (!limit) throw new Unsupported('the manifest does not give limits.maxBodyBytes')
      // Exactly maxBodyBytes: the maximum itself is allowed (limits.1).
      const res = await ctx.http('POST', '/sessions', { raw: jsonOfBytes({ profile: ctx.profile('provider'), meta: { pad: '' } }, 'pad', limit), headers: { 'content-type': 'application/json' } })
      ctx.status('limits.1', res, 201)
      await ctx.http('DELETE', `/sessions/${res.json.session.id}`)
    },
  },
  {
    id: 'peers-limits', title: 'peer messages over maxMessageChars, perMinute or maxHops are refused as tool output', section: 'limits',
    clauses: ['limits.4', 'limits.5', 'limits.6'], requires: ['provider', 'peers'],
    async run(ctx) {
      const { peerMaxMessageChars: maxChars, peerPerMinute: perMinute, peerMaxHops: maxHops } = ctx.manifest.limits ?? {}
      if (!maxChars || !perMinute || !maxHops || perMinute > 10 || maxHops > 4 || maxChars > 60_000) throw new Unsupported('the manifest gives no small peer limits (limits.peerMaxMessageChars, peerPerMinute, peerMaxHops)')
      // How a refusal reads is the target's own (the spec says only that the limit applies, and
      // protocol 7 has no peers): what is checked is what arrives, and exactly the allowed part does.
      const a = await idle(ctx)
      const b = await idle(ctx)
      a.ws.send({ type: 'user_message', text: peerScenario(call('peers_send', { sessionId: b.session.id, text: 'x'.repeat(maxChars + 1) })) })
      await a.ws.waitForEvent('turn_result', ctx.deadlineMs)
      a.ws.send({ type: 'user_message', text: peerScenario(call('peers_send', { sessionId: b.session.id, text: 'y'.repeat(maxChars) })) })
      await a.ws.waitFor(() => turnCount(a.ws) === 2, ctx.deadlineMs, 'the second turn')
      await b.ws.waitFor(() => fromPeer(b.ws, a.session.id).length >= 1, ctx.deadlineMs, 'a message of exactly maxMessageChars')
      ctx.check('limits.4', !JSON.stringify(fromPeer(b.ws, a.session.id)).includes('x'.repeat(maxChars + 1)), `the message over ${maxChars} characters not delivered`, 'delivered')
      ctx.check('limits.4', JSON.stringify(fromPeer(b.ws, a.session.id)).includes('y'.repeat(maxChars)), `a message of exactly ${maxChars} characters delivered`, 'not delivered')
      // A chain of relays one longer than maxHops: the relay past maxHops must not arrive.
      const before = turnCount(a.ws) + turnCount(b.ws)
      a.ws.send({ type: 'user_message', text: relayChain(a.session.id, b.session.id, maxHops) })
      // a's turn, then one turn per delivered hop (the last of which attempts the refused relay).
      await waitAcross([a.ws, b.ws], () => turnCount(a.ws) + turnCount(b.ws) >= before + 1 + maxHops, ctx.deadlineMs, `${1 + maxHops} turns along the relay chain`)
      const chain = chainEndArrived([a.ws, b.ws])
      ctx.check('limits.6', !chain.pastLimit, `the relay past ${maxHops} hops not delivered`, chain.arrived.map((e) => e.origin))
      // perMinute + 1 sends in one minute: exactly perMinute arrive.
      const c = await idle(ctx)
      c.ws.send({ type: 'user_message', text: burstScenario(b.session.id, perMinute + 1) })
      await c.ws.waitForEvent('turn_result', ctx.deadlineMs)
      await b.ws.waitFor(() => fromPeer(b.ws, c.session.id).length >= perMinute, ctx.deadlineMs, `${perMinute} messages from the third session`)
      // An extra message would be queued behind b's turns (peers.1).
      await afterPeerArrivals(b.ws, `after the burst ${Math.floor(ctx.random() * 1e9)}`, ctx.deadlineMs)
      ctx.equal('limits.5', fromPeer(b.ws, c.session.id).length, perMinute, `messages delivered of ${perMinute + 1} sent within a minute`)
    },
  },
]
