/** Cases for session-to-session messaging (Peers, limits.4-6, server-configuration.24). */
import type { CaseContext } from '../harness/context.ts'
import { waitAcross } from '../harness/ws-client.ts'
import { Unsupported, type Case } from '../types.ts'

const call = (name: string, input: Record<string, unknown>) => ({ type: 'tool', name, input })
const peerScenario = (...steps: unknown[]) => `scenario:${JSON.stringify({ name: 'peer-case', steps: [...steps, { type: 'text', text: '{{toolResult}}' }] })}`

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
      a.ws.send({ type: 'user_message', text: peerScenario(call('peers_send', { sessionId: b.session.id, text: 'hello peer' })) })
      const arrived = await b.ws.waitForEvent('user_message', ctx.deadlineMs, (e) => e.origin?.kind === 'peer')
      // The ApiMessage's content layout is the target's (a string or text blocks): the text is looked for in it.
      ctx.check('what-the-service-does.12', arrived.origin.sessionId === a.session.id && JSON.stringify(arrived.message ?? null).includes('hello peer'), 'the message with origin {kind: peer, sessionId: sender}', arrived)
      // `hops` is optional on the origin (peers.1: `hops?`): counted when present.
      if ('hops' in arrived.origin) ctx.check('server-configuration.24', arrived.origin.hops === 1, 'hops counts the relay', arrived.origin)
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
      const fromPeer = (ws: typeof a.ws, sender: string) => ws.events().filter((e) => e.type === 'user_message' && e.origin?.kind === 'peer' && e.origin?.sessionId === sender)
      const turns = (ws: typeof a.ws) => ws.events().filter((e) => e.type === 'turn_result').length
      a.ws.send({ type: 'user_message', text: peerScenario(call('peers_send', { sessionId: b.session.id, text: 'x'.repeat(maxChars + 1) })) })
      await a.ws.waitForEvent('turn_result', ctx.deadlineMs)
      a.ws.send({ type: 'user_message', text: peerScenario(call('peers_send', { sessionId: b.session.id, text: 'y'.repeat(maxChars) })) })
      await a.ws.waitFor(() => turns(a.ws) === 2, ctx.deadlineMs, 'the second turn')
      await b.ws.waitFor(() => fromPeer(b.ws, a.session.id).length >= 1, ctx.deadlineMs, 'a message of exactly maxMessageChars')
      ctx.check('limits.4', !JSON.stringify(fromPeer(b.ws, a.session.id)).includes('x'.repeat(maxChars + 1)), `the message over ${maxChars} characters not delivered`, 'delivered')
      ctx.check('limits.4', JSON.stringify(fromPeer(b.ws, a.session.id)).includes('y'.repeat(maxChars)), `a message of exactly ${maxChars} characters delivered`, 'not delivered')
      // A chain of relays one longer than maxHops: hop k's session plays the scenario it received
      // and relays it on; the relay past maxHops must not arrive.
      const before = turns(a.ws) + turns(b.ws)
      let text = peerScenario(call('peers_send', { sessionId: b.session.id, text: 'end of the chain' }))
      for (let hop = maxHops; hop >= 1; hop--) text = peerScenario(call('peers_send', { sessionId: hop % 2 === 1 ? b.session.id : a.session.id, text }))
      a.ws.send({ type: 'user_message', text })
      // a's turn, then one turn per delivered hop (the last of which attempts the refused relay).
      await waitAcross([a.ws, b.ws], () => turns(a.ws) + turns(b.ws) >= before + 1 + maxHops, ctx.deadlineMs, `${1 + maxHops} turns along the relay chain`)
      const arrived = [...a.ws.events(), ...b.ws.events()].filter((e) => e.type === 'user_message' && e.origin?.kind === 'peer')
      ctx.check('limits.6', !arrived.some((e) => JSON.stringify(e.message ?? null).includes('end of the chain') && !JSON.stringify(e.message ?? null).includes('peers_send')), `the relay past ${maxHops} hops not delivered`, arrived.map((e) => e.origin))
      // perMinute + 1 sends in one minute: exactly perMinute arrive.
      const c = await idle(ctx)
      const sends = Array.from({ length: perMinute + 1 }, (_, i) => call('peers_send', { sessionId: b.session.id, text: `burst ${i}` }))
      c.ws.send({ type: 'user_message', text: peerScenario(...sends) })
      await c.ws.waitForEvent('turn_result', ctx.deadlineMs)
      await b.ws.waitFor(() => fromPeer(b.ws, c.session.id).length >= perMinute, ctx.deadlineMs, `${perMinute} messages from the third session`)
      // An extra message would be queued behind b's turns (peers.1): a message of the kit's own,
      // sent now, queues after every one c sent, so once its turn is over every arrival is in.
      const marker = `after the burst ${Math.floor(ctx.random() * 1e9)}`
      b.ws.send({ type: 'user_message', text: marker })
      await b.ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => String(e.result).includes(marker))
      ctx.equal('limits.5', fromPeer(b.ws, c.session.id).length, perMinute, `messages delivered of ${perMinute + 1} sent within a minute`)
    },
  },
]
