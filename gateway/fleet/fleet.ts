/**
 * A process's part in a fleet of gateway processes on one database: the library option
 * (`fleet`), and what the routers ask of it. Built once per server by the composition root
 * (server/fleet-wiring.ts); the routers keep one call each (REST, WebSocket upgrade, the list).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { GatewayContext } from '../server/context.ts'
import { sendRawJson, sendRefusal } from '../server/http.ts'
import type { Principal } from '../server/principal.ts'
import { isRefusal, type Refusal } from '../server/refusal.ts'
import { abortHandshake } from '../server/ws/abort-handshake.ts'
import type { SessionDirectory } from './directory.ts'
import { forwardStateOf } from './forward-auth.ts'
import { offerExecutionResult } from './forward-execution.ts'
import { askPeer, forwardRequest, OWNER_UNREACHABLE } from './forward-http.ts'
import { forwardUpgrade } from './forward-ws.ts'
import { answerFleetList, answerFleetPart } from './fleet-list.ts'
import { locateSession, type Location } from './session-locator.ts'

export interface FleetOptions {
  /** This process's row in the session directory (`createSessionDirectory`). */
  directory: SessionDirectory
  /** Shared by every process of the fleet: authenticates forwarded requests. Never logged or answered. */
  secret: string
  /** Where the other processes reach this one (origin plus basePath); default: the URL it listens on. */
  address?: string
  /** How long the fleet's `GET /sessions` waits for each peer's part (default 2000 ms). */
  peerTimeoutMs?: number
  /** Told of every adoption this process wins (a dead owner's session taken over), e.g. for logs. */
  onAdopted?: (event: { sessionId: string; from: string; epoch: number }) => void
  /**
   * This process's lease lapsed (a stall or a database outage longer than the lease) and the fleet
   * adopted some of the sessions it still runs: serving them on would run each twice. Given, the
   * host stops the server (`gateway serve` shuts down and exits 1, for its supervisor to restart it);
   * absent, the server shuts itself down.
   */
  onLeaseLost?: (event: { processId: string; sessions: string[] }) => void
}

export type ForwardedState = 'client' | 'forwarded'

export interface Fleet {
  readonly secret: string
  /** REST `/sessions/:id…`: true when answered here (forwarded or refused), false to serve it locally. */
  answerSession(req: IncomingMessage, res: ServerResponse, principal: Principal, id: string, state: ForwardedState): Promise<boolean>
  /** `GET /sessions`: the fleet's list to a client, this process's part to a peer. */
  answerList(req: IncomingMessage, res: ServerResponse, principal: Principal, state: ForwardedState): Promise<void>
  /**
   * A local wake of a park found it taken: another process woke it first (its result or its
   * deadline reached that process). The attach follows it there once its directory row shows
   * (within peerTimeoutMs): true when forwarded.
   */
  followWake(req: IncomingMessage, socket: Duplex, head: Buffer, id: string, state: ForwardedState): Promise<boolean>
  /** The WebSocket upgrade `/sessions/:id/ws`: true when forwarded or refused. */
  answerUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, principal: Principal, id: string, state: ForwardedState): Promise<boolean>
  locate(principal: Principal, id: string, state: ForwardedState): Promise<Location>
  /** An execution result unknown here, from a client: true when a peer running its session answered. */
  offerExecution(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<boolean>
  /** An execution result for `sessionId`, from a client: true when the live process running it answered. */
  answerExecution(req: IncomingMessage, res: ServerResponse, body: unknown, principal: Principal, sessionId: string): Promise<boolean>
}

export interface FleetDeps {
  context: GatewayContext
  onAdopted?: (id: string, from: string, epoch: number) => void
}

export function createFleet(options: FleetOptions, { context, onAdopted }: FleetDeps): Fleet {
  const { directory, secret } = options
  const peerTimeoutMs = options.peerTimeoutMs ?? 2000
  // One store read per session at a time: concurrent requests for a session share its refresh.
  const refreshing = new Map<string, Promise<boolean>>()
  const refreshStoredRow = (id: string): Promise<boolean> => {
    let pending = refreshing.get(id)
    if (!pending) {
      pending = context.parking.refreshStoredRow(id).finally(() => refreshing.delete(id))
      refreshing.set(id, pending)
    }
    return pending
  }
  const locate = (principal: Principal, id: string, state: ForwardedState) => locateSession({
    directory,
    canSee: (info) => context.visibility.canSee(principal, info),
    runsHere: (sid) => context.registry.get(sid) !== undefined && !context.parking.isParked(sid),
    refreshStoredRow,
    onAdopted,
  }, id, state === 'forwarded')
  return {
    secret,
    locate,
    async answerSession(req, res, principal, id, state) {
      const where = await locate(principal, id, state)
      if (isRefusal(where)) return refused(() => sendRefusal(res, where))
      if (where.kind === 'local') return false
      await forwardRequest(req, res, where.address, directory.processId, secret)
      return true
    },
    async answerList(req, res, principal, state) {
      // A forwarded list is this process's part, whatever it asks: it never fans out again (no loops).
      if (state === 'forwarded') return answerFleetPart(context, res, principal)
      return answerFleetList(context, req, res, principal, { directory, secret, peerTimeoutMs })
    },
    async offerExecution(req, res, body) {
      // A forwarded offer is answered here or 404: never offered on (no loops).
      if (forwardStateOf(req, secret) !== 'client') return false
      return offerExecutionResult(req, res, body, { directory, secret, peerTimeoutMs })
    },
    async answerExecution(req, res, body, principal, sessionId) {
      if (forwardStateOf(req, secret) !== 'client') return false
      const where = await locate(principal, sessionId, 'client')
      if (isRefusal(where) || where.kind === 'local') return false
      const answer = await askPeer(req, where.address, { method: 'POST', path: req.url ?? '/', body: JSON.stringify(body) }, directory.processId, secret, peerTimeoutMs)
      if (!answer) return refused(() => sendRefusal(res, OWNER_UNREACHABLE))
      sendRawJson(res, answer.status, answer.body)
      return true
    },
    async followWake(req, socket, head, id, state) {
      if (state === 'forwarded') return false
      for (const deadline = Date.now() + peerTimeoutMs; ;) {
        const entry = await directory.lookup(id)
        if (entry && entry.alive && entry.address && entry.processId !== directory.processId) {
          forwardUpgrade(req, socket, head, entry.address, directory.processId, secret)
          return true
        }
        if (Date.now() >= deadline) return false
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    },
    async answerUpgrade(req, socket, head, principal, id, state) {
      const where = await locate(principal, id, state)
      if (isRefusal(where)) return refused(() => abortHandshake(socket, where as Refusal))
      if (where.kind === 'local') return false
      forwardUpgrade(req, socket, head, where.address, directory.processId, secret)
      return true
    },
  }
}

function refused(send: () => void): true {
  send()
  return true
}
