/**
 * Explore commands on peer messaging (peers.1, limits.4): a session's agent sends another session
 * of the same owner a message one character over `peers.maxMessageChars`. It never arrives. The
 * kit then sends the recipient a message of its own, which queues behind every peer message sent
 * before it, so once that turn is over an over-long message that got through would be in.
 */
import { call } from '../harness/case-helpers/engine-tools.ts'
import { peerScenario } from '../harness/case-helpers/peers.ts'
import type * as fc from 'fast-check'
import { stepCounter } from './command.ts'
import { checkAllStreams } from './invariants.ts'
import { alive, type ExploreModel } from './model.ts'
import { playTurn, type World } from './world.ts'

/** The sender and recipient `pickFrom`, `pickTo` resolve to, or undefined when the pair does not apply. */
function pairOf(m: Readonly<ExploreModel>, pickFrom: number, pickTo: number): [number, number] | undefined {
  const n = m.sessions.length
  if (n < 2) return undefined
  const from = pickFrom % n
  const to = (from + 1 + (pickTo % (n - 1))) % n
  const [a, b] = [m.sessions[from], m.sessions[to]]
  return alive(m as ExploreModel, from) && alive(m as ExploreModel, to) && a.role === 'provider' && a.owner === b.owner ? [from, to] : undefined
}

export function peerOverLong(maxChars: number, pickFrom: number, pickTo: number): fc.AsyncCommand<ExploreModel, World> {
  const label = (from: number, to: number) => `peers_send(s${from} → s${to}, ${maxChars + 1} characters)`
  return {
    check: (m) => pairOf(m, pickFrom, pickTo) !== undefined,
    async run(m, w) {
      const [from, to] = pairOf(m, pickFrom, pickTo)!
      stepCounter.steps++
      stepCounter.labels.push(label(from, to))
      await sendOverLong(m, w, maxChars, from, to)
      checkAllStreams(w)
    },
    toString: () => label(pickFrom, pickTo),
  }
}

async function sendOverLong(m: ExploreModel, w: World, maxChars: number, from: number, to: number): Promise<void> {
  const [sender, recipient] = [w.handle(from), w.handle(to)]
  const long = `${'z'.repeat(maxChars)}!`
  const text = peerScenario(call('peers_send', { sessionId: recipient.id, text: long }))
  await playTurn(w, sender, text)
  m.sessions[from].firstPrompt ??= text
  const marker = `explore marker ${w.ctx.random().toString(36).slice(2, 10)}`
  await playTurn(w, recipient, marker)
  m.sessions[to].firstPrompt ??= marker
  const arrived = recipient.recorder.events().some((e) => e.type === 'user_message' && e.origin?.kind === 'peer' && JSON.stringify(e.message ?? null).includes(long))
  w.ctx.check('limits.4', !arrived, `a peer message of ${maxChars + 1} characters (over peers.maxMessageChars) not delivered`, 'delivered')
}
