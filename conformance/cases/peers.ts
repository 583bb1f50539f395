/** Cases for session-to-session messaging (Peers, limits.4-6, server-configuration.24). */
import type { CaseContext } from '../harness/context.ts'
import { Unsupported, type Case } from '../types.ts'

const call = (name: string, input: Record<string, unknown>) => ({ type: 'tool', name, input })
const scenario = (...steps: unknown[]) => `scenario:${JSON.stringify({ name: 'peer-case', steps: [...steps, { type: 'text', text: '{{toolResult}}' }] })}`

async function idle(ctx: CaseContext) {
  return ctx.idleSession()
}

export const peerCases: Case[] = [
  {
    id: 'peers-message-arrives-with-origin', title: 'peers_send delivers a user_message with a peer origin to another session in scope', section: 'peers',
    clauses: ['what-the-service-does.12', 'server-configuration.24', 'peers.1'], requires: ['provider', 'peers'],
    async run(ctx) {
      const a = await idle(ctx)
      const b = await idle(ctx)
      a.ws.send({ type: 'user_message', text: scenario(call('peers_send', { sessionId: b.session.id, text: 'hello peer' })) })
      const arrived = await b.ws.waitForEvent('user_message', ctx.deadlineMs, (e) => e.origin?.kind === 'peer')
      ctx.check('what-the-service-does.12', arrived.origin.sessionId === a.session.id && arrived.message?.content === 'hello peer', 'the message with origin {kind: peer, sessionId: sender}', arrived)
      ctx.check('server-configuration.24', arrived.origin.hops === 1, 'hops counts the relay', arrived.origin)
    },
  },
  {
    id: 'peers-limits', title: 'peer messages over maxMessageChars, perMinute or maxHops are refused as tool output', section: 'limits',
    clauses: ['limits.4', 'limits.5', 'limits.6'], requires: ['provider', 'peers'],
    async run(ctx) {
      const { peerMaxMessageChars: maxChars, peerPerMinute: perMinute, peerMaxHops: maxHops } = ctx.manifest.limits ?? {}
      if (!maxChars || !perMinute || !maxHops || perMinute > 10 || maxHops > 4 || maxChars > 60_000) throw new Unsupported('the manifest gives no small peer limits (limits.peerMaxMessageChars, peerPerMinute, peerMaxHops)')
      const a = await idle(ctx)
      const b = await idle(ctx)
      a.ws.send({ type: 'user_message', text: scenario(call('peers_send', { sessionId: b.session.id, text: 'x'.repeat(maxChars + 1) })) })
      const long = await a.ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('limits.4', /longer than/.test(String(long.result)) && !b.ws.events().some((e) => e.origin), 'the over-long message refused, nothing delivered', long.result)
      // A chain of relays one longer than maxHops: the last relay is refused.
      let text = scenario(call('peers_send', { sessionId: b.session.id, text: 'end of the chain' }))
      for (let hop = maxHops; hop >= 1; hop--) text = scenario(call('peers_send', { sessionId: hop % 2 === 1 ? b.session.id : a.session.id, text }))
      a.ws.send({ type: 'user_message', text })
      const refused = await Promise.race([a.ws, b.ws].map((ws) => ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => /relay depth/.test(String(e.result)))))
      ctx.check('limits.6', /relay depth/.test(String(refused.result)), `a relay past ${maxHops} hops refused`, refused.result)
      const c = await idle(ctx)
      const sends = Array.from({ length: perMinute + 1 }, (_, i) => call('peers_send', { sessionId: b.session.id, text: `burst ${i}` }))
      c.ws.send({ type: 'user_message', text: scenario(...sends) })
      const burst = await c.ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('limits.5', /rate limit/.test(String(burst.result)), `message ${perMinute + 1} within a minute refused`, burst.result)
    },
  },
]
