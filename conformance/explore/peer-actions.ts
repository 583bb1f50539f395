/**
 * Explore commands on peer messaging (peers.1, limits.4-6), each between two sessions made for the
 * command alone and deleted after it (a rate is per sender over a minute, which a sequence's own
 * earlier sends would blur). After the agent's sends the kit sends the recipient a message of its
 * own, which queues behind every peer message sent before it, so once that turn is over whatever
 * got through is in: one character over `peers.maxMessageChars` never arrives, perMinute + 1 sends
 * deliver perMinute, a relay chain one hop past maxHops never delivers its last relay.
 */
import { call } from '../harness/case-helpers/engine-tools.ts'
import { waitAcross, type WsClient } from '../harness/ws-client.ts'
import { afterPeerArrivals, burstScenario, chainEndArrived, fromPeer, peerScenario, relayChain, turnCount } from '../harness/case-helpers/peers.ts'
import { command } from './command.ts'
import type { World } from './world.ts'

/** limits.4: a message one character over maxMessageChars, sent by a new session's agent, never arrives. */
export function peerOverLong(maxChars: number) {
  return command(`peers_send(${maxChars + 1} characters, between new sessions)`, () => true, (_m, w) => withScratchPair(w, async (a, b) => {
    const long = `${'z'.repeat(maxChars)}!`
    a.ws.send({ type: 'user_message', text: peerScenario(call('peers_send', { sessionId: b.session.id, text: long })) })
    await a.ws.waitForEvent('turn_result', w.deadlineMs)
    await afterPeerArrivals(b.ws, marker(w), w.deadlineMs)
    const arrived = fromPeer(b.ws, a.session.id).some((e) => JSON.stringify(e.message ?? null).includes(long))
    w.ctx.check('limits.4', !arrived, `a peer message of ${maxChars + 1} characters (over peers.maxMessageChars) not delivered`, 'delivered')
  }))
}

type Scratch = { session: any; ws: WsClient }

/** Two idle sessions of the operator on the provider profile, deleted when `run` is done. */
async function withScratchPair(w: World, run: (a: Scratch, b: Scratch) => Promise<void>): Promise<void> {
  const body = { profile: w.ctx.profile('provider') }
  const a = await w.ctx.idleSession(body)
  const b = await w.ctx.idleSession(body)
  try {
    await run(a, b)
  } finally {
    for (const x of [a, b]) {
      x.ws.close()
      await w.ctx.http('DELETE', `/sessions/${x.session.id}`)
    }
  }
}

/** limits.5: perMinute + 1 sends in one turn of a fresh sender: exactly perMinute arrive. */
export function peerBurst(perMinute: number) {
  return command(`peers_send burst(${perMinute + 1} from a new session)`, () => true, (_m, w) => withScratchPair(w, async (c, b) => {
    c.ws.send({ type: 'user_message', text: burstScenario(b.session.id, perMinute + 1) })
    await c.ws.waitForEvent('turn_result', w.deadlineMs)
    await b.ws.waitFor(() => fromPeer(b.ws, c.session.id).length >= perMinute, w.deadlineMs, `${perMinute} messages from the sender`)
    await afterPeerArrivals(b.ws, marker(w), w.deadlineMs)
    w.ctx.equal('limits.5', fromPeer(b.ws, c.session.id).length, perMinute, `peer messages delivered of ${perMinute + 1} sent within a minute`)
  }))
}

/** limits.6: a relay chain one hop longer than maxHops: the relay past maxHops never arrives. */
export function peerChain(maxHops: number) {
  return command(`peers_send relay(${maxHops + 1} hops between new sessions)`, () => true, (_m, w) => withScratchPair(w, async (a, b) => {
    a.ws.send({ type: 'user_message', text: relayChain(a.session.id, b.session.id, maxHops) })
    // a's turn, then one turn per delivered hop (the last of which attempts the refused relay).
    await waitAcross([a.ws, b.ws], () => turnCount(a.ws) + turnCount(b.ws) >= 1 + maxHops, w.deadlineMs, `${1 + maxHops} turns along the relay chain`)
    // Each session's own message queues behind whatever relay reached it.
    for (const x of [a, b]) await afterPeerArrivals(x.ws, marker(w), w.deadlineMs)
    const chain = chainEndArrived([a.ws, b.ws])
    w.ctx.check('limits.6', !chain.pastLimit, `the relay past ${maxHops} hops not delivered`, chain.arrived.map((e) => e.origin))
  }))
}

/** A seeded marker text, so a run replays the same commands. */
const marker = (w: World) => `explore marker ${w.ctx.random().toString(36).slice(2, 10)}`
