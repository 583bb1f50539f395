/** Case helpers: peers. Shared by the cases of every section through case-helpers/index.ts. */
import type { CaseContext } from '../context.ts'
import type { WsClient } from '../ws-client.ts'
import { call } from './engine-tools.ts'

export const peerScenario = (...steps: unknown[]) => `scenario:${JSON.stringify({ name: 'peer-case', steps: [...steps, { type: 'text', text: '{{toolResult}}' }] })}`

export async function idle(ctx: CaseContext) {
  return ctx.idleSession()
}

/** The peer messages `ws`'s session received from `sender` (peers.1: user_message with origin peer). */
export const fromPeer = (ws: WsClient, sender: string) => ws.events().filter((e) => e.type === 'user_message' && e.origin?.kind === 'peer' && e.origin?.sessionId === sender)

/** How many turns `ws`'s session has ended. */
export const turnCount = (ws: WsClient) => ws.events().filter((e) => e.type === 'turn_result').length

/** `count` peers_send calls to `to` in one scenario (limits.5: more than perMinute sends at once). */
export const burstScenario = (to: string, count: number) => peerScenario(...Array.from({ length: count }, (_, i) => call('peers_send', { sessionId: to, text: `burst ${i}` })))

/** The text of the last relay of a chain: it must not arrive when the chain is longer than maxHops (limits.6). */
const CHAIN_END = 'end of the chain'

/**
 * A relay chain of maxHops + 1 sends between `a` and `b`, started by `a`: hop k's session plays the
 * scenario it received and relays it on, so the last relay is one past maxHops.
 */
export function relayChain(a: string, b: string, maxHops: number): string {
  let text = peerScenario(call('peers_send', { sessionId: b, text: CHAIN_END }))
  for (let hop = maxHops; hop >= 1; hop--) text = peerScenario(call('peers_send', { sessionId: hop % 2 === 1 ? b : a, text }))
  return text
}

/** The chain's relays that arrived, and whether the one past maxHops is among them. */
export function chainEndArrived(clients: WsClient[]): { arrived: any[]; pastLimit: boolean } {
  const arrived = clients.flatMap((ws) => ws.events()).filter((e) => e.type === 'user_message' && e.origin?.kind === 'peer')
  return { arrived, pastLimit: arrived.some((e) => JSON.stringify(e.message ?? null).includes(CHAIN_END) && !JSON.stringify(e.message ?? null).includes('peers_send')) }
}

/**
 * A message of the kit's own, which queues behind every peer message sent to `ws`'s session before
 * it (peers.1): once its turn is over, every such arrival is in.
 */
export async function afterPeerArrivals(ws: WsClient, marker: string, deadlineMs: number): Promise<void> {
  ws.send({ type: 'user_message', text: marker })
  await ws.waitForEvent('turn_result', deadlineMs, (e) => String(e.result).includes(marker))
}
