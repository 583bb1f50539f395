/**
 * The command arbitraries an explore run draws from, built from what the manifest offers (a
 * target without CLI profiles, tenants, a queue or parking gets no command needing them).
 * Sessions are named by their creation index (s0, s1, …), never by the target's ids, so a seed
 * fixes the sequence whatever the target answers.
 */
import * as fc from 'fast-check'
import { badToken, crossTenant, list, scopedOperatorRoute, unknownId } from './access-actions.ts'
import { MAX_SESSIONS, type ExploreModel, type Offer } from './model.ts'
import { deferredResult, job, jobBurst, retryTiming } from './queue-actions.ts'
import { parkAndDeliver } from './park-actions.ts'
import { peerBurst, peerChain, peerOverLong } from './peer-actions.ts'
import { createProfile, deleteProfile, recreateProfile, sessionOnProfile } from './profile-actions.ts'
import { read, reattach, remove, rename } from './resource-actions.ts'
import { bridgedTool, deliverFile } from './tool-actions.ts'
import type { World } from './world.ts'
import { attachment, corsRequest } from './surface-actions.ts'
import { answerPermission, clearContext, createSession, interruptTurn, sendMessage, setModel, setPermissionMode, TURN_SCENARIOS } from './session-actions.ts'

/** Which of the created sessions a command acts on: resolved modulo their number when it runs (command.ts onSession). */
const index = fc.nat(MAX_SESSIONS * 4 - 1)
/** Titles never equal to a prompt the model sends, so a derived title is never mistaken for a meta one. */
const title = fc.oneof(fc.constant(null), fc.nat(99).map((n) => `explore title ${n}`))

type Cmd = fc.AsyncCommand<ExploreModel, World>
const w = (weight: number, arbitrary: fc.Arbitrary<Cmd>) => ({ weight, arbitrary })

/**
 * One weighted choice of command: the weights favour what builds state (sessions, turns, titles)
 * and what reads it back (re-attach, read), so a short budget reaches the states the checks need.
 */
export function commandArbitraries(offer: Offer): Array<fc.Arbitrary<Cmd>> {
  const arbs = [
    w(3, fc.tuple(fc.constantFrom(...offer.owners), fc.constantFrom(...offer.roles)).map(([owner, role]) => createSession(offer, owner, role))),
    w(4, fc.tuple(index, fc.constantFrom(...TURN_SCENARIOS)).map(([i, s]) => sendMessage(i, s))),
    w(1, index.map(interruptTurn)),
    w(2, index.map(clearContext)),
    w(1, fc.tuple(index, fc.nat(7)).map(([i, p]) => setModel(offer, i, p))),
    w(1, fc.tuple(index, fc.nat(7)).map(([i, p]) => setPermissionMode(i, p))),
    w(4, fc.tuple(index, title).map(([i, t]) => rename(i, t))),
    w(2, index.map(read)),
    w(1, index.map(remove)),
    w(4, fc.tuple(index, fc.constantFrom('zero', 'middle', 'last' as const)).map(([i, p]) => reattach(i, p))),
    w(1, fc.constantFrom(...offer.owners).map(list)),
    w(1, fc.constantFrom('get', 'patch', 'delete', 'attach', 'execution-result', 'permission' as const).map(unknownId)),
    w(1, fc.constantFrom('list', 'known', 'unknown', 'attach' as const).map(badToken)),
  ]
  if (offer.roles.includes('cli_primary')) arbs.push(w(1, fc.tuple(index, fc.constantFrom('ws', 'rest' as const), fc.constantFrom('allow', 'deny' as const)).map(([i, c, b]) => answerPermission(i, c, b))))
  if (offer.tenants) {
    arbs.push(w(2, fc.tuple(index, fc.constantFrom('get', 'patch', 'attach', 'permission' as const)).map(([i, r]) => crossTenant(i, r))))
    arbs.push(w(1, fc.constantFrom('/queue', '/sdk-sessions', '/fs/roots' as const).map(scopedOperatorRoute)))
  }
  if (offer.deferred) arbs.push(w(1, fc.tuple(index, fc.boolean()).map(([i, late]) => deferredResult(i, late))), w(2, index.map(parkAndDeliver)))
  if (offer.bridge) arbs.push(w(1, fc.tuple(index, fc.constantFrom('result', 'error' as const)).map(([i, a]) => bridgedTool(i, a))))
  if (offer.scratchFiles) arbs.push(w(1, index.map(deliverFile)))
  if (offer.profileStore) {
    arbs.push(w(2, fc.constant(null).map(() => createProfile('manager'))), w(1, fc.constant(null).map(() => createProfile('operator'))))
    arbs.push(w(2, index.map(recreateProfile)), w(1, index.map(deleteProfile)), w(2, fc.tuple(index, fc.boolean()).map(([i, n]) => sessionOnProfile(i, n))))
  }
  if (offer.attachments) arbs.push(w(1, fc.tuple(index, fc.boolean()).map(([i, a]) => attachment(i, a))))
  if (offer.cors) arbs.push(w(1, fc.tuple(fc.constantFrom('allowed', 'suffix', 'other' as const), fc.boolean()).map(([k, p]) => corsRequest(k, p))))
  // The peer limits as one choice: each command is long (two sessions of its own), and together they
  // weigh what one command does, so the rest of a sequence keeps its odds.
  const { peerMaxChars, peerPerMinute, peerMaxHops } = offer
  const peers = [
    ...(peerMaxChars !== undefined ? [() => peerOverLong(peerMaxChars)] : []),
    ...(peerPerMinute !== undefined ? [() => peerBurst(peerPerMinute)] : []),
    ...(peerMaxHops !== undefined ? [() => peerChain(peerMaxHops)] : []),
  ]
  if (peers.length) arbs.push(w(1, fc.constantFrom(...peers).map((make) => make())))
  if (offer.queue) arbs.push(w(1, fc.constantFrom('complete', 'cancel', 'burst' as const).map((kind) => (kind === 'burst' ? jobBurst() : job(kind)))))
  const timings = [...(offer.jobRetryTiming ? ['job' as const] : []), ...(offer.notificationBackoff ? ['notification' as const] : [])]
  if (timings.length) arbs.push(w(1, fc.constantFrom(...timings).map(retryTiming)))
  return [fc.oneof(...arbs)]
}
