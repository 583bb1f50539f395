/**
 * The real side of an explore run: the target reached through one CaseContext (its HTTP and WS
 * helpers, its checks that throw a ClauseViolation), and the sessions a run created, each with a
 * recorder socket attached from seq 0 at creation — the live stream every replay is compared with.
 */
import { CaseContext } from '../harness/context.ts'
import type { WebhookReceiver } from '../harness/webhook-receiver.ts'
import type { WsClient } from '../harness/ws-client.ts'
import type { TargetManifest } from '../types.ts'
import type { Owner, Role } from './model.ts'

export interface SessionHandle {
  id: string
  owner: Owner
  role: Role
  /** The client attached now; a park detaches it and a re-attach after the last seq seen replaces it. */
  recorder: WsClient
  /** Events earlier recorders received, before the current one attached. */
  earlier: any[]
  /** SessionInfo as created (capabilities, permissionMode, model). */
  info: any
}

/** The session's whole live stream: what every recorder received, in order. */
export const liveEvents = (h: SessionHandle): any[] => [...h.earlier, ...h.recorder.events()]

export class World {
  readonly ctx: CaseContext
  /** By model index: undefined until created. */
  readonly sessions: Array<SessionHandle | undefined> = []
  /** Managed profile names by model index. */
  readonly profiles: string[] = []

  constructor(manifest: TargetManifest, seed: number, deadlineMs: number, receiver?: WebhookReceiver) {
    this.ctx = new CaseContext(manifest, seed, deadlineMs, receiver)
  }

  get deadlineMs(): number {
    return this.ctx.deadlineMs
  }

  handle(index: number): SessionHandle {
    const h = this.sessions[index]
    if (!h) throw new Error(`explore: session s${index} was never created (model and target out of step)`)
    return h
  }

  /** Closes the run's sockets and deletes its sessions (best effort). */
  async close(): Promise<void> {
    await this.ctx.cleanup()
  }
}

/** Waits for an event on `ws` received after frame index `from`. */
export function eventAfter(ws: WsClient, from: number, deadlineMs: number, what: string, match: (e: any) => boolean): Promise<any> {
  return ws.waitFor((f) => f.type === 'event' && match(f.event) && ws.frames.indexOf(f) >= from, deadlineMs, what).then((f) => f.event)
}

/**
 * Sends `frame` on the session's recorder and waits for the turn it starts to end: its
 * turn_result, then an idle status after it. `during` runs once the turn is under way.
 */
export async function playTurn(world: World, h: SessionHandle, text: string, during?: (from: number) => Promise<void>): Promise<any> {
  const from = h.recorder.frames.length
  h.recorder.send({ type: 'user_message', text })
  if (during) await during(from)
  const result = await eventAfter(h.recorder, from, world.deadlineMs, 'the turn_result', (e) => e.type === 'turn_result')
  await eventAfter(h.recorder, from, world.deadlineMs, 'status idle after the turn_result', (e) => e.type === 'status_changed' && e.status === 'idle' && e.seq > result.seq)
  return result
}
