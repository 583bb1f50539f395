/**
 * The WebSocket upgrade path: `<basePath>/sessions/:id/ws` and `<basePath>/queue/ws`. Every
 * refusal is an HTTP answer on the raw socket before the handshake (abort-handshake.ts).
 */
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { forwardStateOf } from '../fleet/forward-auth.ts'
import { AUTH_HOOK_FAILED, authRefusal } from './principal.ts'
import { isRefusal, NOT_FOUND, refuse, SHUTTING_DOWN, UNAUTHORIZED } from './refusal.ts'
import { pathOf, splitPath } from './request-path.ts'
import { gateSession } from './routes/session-gate.ts'
import type { ServerServices } from './services.ts'
import { abortHandshake } from './ws/abort-handshake.ts'
import { attachQuery } from './ws/attach-query.ts'
import { attachQueueClient } from './ws/queue-socket.ts'
import { attachClient } from './ws/session-socket.ts'

export type UpgradeRouter = (req: IncomingMessage, socket: Duplex, head: Buffer) => Promise<void>

export function createUpgradeRouter(services: ServerServices, draining: () => boolean): UpgradeRouter {
  const { basePath } = services.resolved
  const upgradeSession = createSessionUpgrade(services)
  const upgradeQueue = createQueueUpgrade(services)
  return async function upgrade(req, socket, head) {
    if (draining()) return abortHandshake(socket, SHUTTING_DOWN)
    const path = pathOf(req.url ?? '/')
    const segments = path.startsWith(`${basePath}/`) ? splitPath(path.slice(basePath.length)) : undefined
    if (segments?.length === 2 && segments[0] === 'queue' && segments[1] === 'ws') {
      const forward = forwardStateOf(req, services.fleet?.fleet.secret)
      return isRefusal(forward) ? abortHandshake(socket, forward) : upgradeQueue(req, socket, head)
    }
    if (!segments || segments.length !== 3 || segments[0] !== 'sessions' || segments[2] !== 'ws') {
      return abortHandshake(socket, NOT_FOUND)
    }
    return upgradeSession(req, socket, head, segments[1])
  }
}

function createSessionUpgrade({ context, principalOf, admission, parking, webSockets, hub, fleet }: ServerServices) {
  return async function upgradeSession(req: IncomingMessage, socket: Duplex, head: Buffer, sessionId: string): Promise<void> {
    const forward = forwardStateOf(req, fleet?.fleet.secret)
    if (isRefusal(forward)) return abortHandshake(socket, forward)
    const principal = await principalOf(req)
    if (principal === AUTH_HOOK_FAILED || !principal) return abortHandshake(socket, authRefusal(principal) ?? UNAUTHORIZED)
    // Fleet: served here, or piped byte for byte to the process that runs the session.
    if (fleet && (await fleet.fleet.answerUpgrade(req, socket, head, principal, sessionId, forward))) return
    // Authorization before the wake: an unauthorized attach must trigger no rebuild (session-status-values.6).
    const gated = gateSession(context, principal, sessionId)
    if (isRefusal(gated)) return abortHandshake(socket, gated)
    // The caps before the wake too: a refused attach must not rebuild a parked session.
    const slot = admission.reserve(socket, principal, context.visibility.isOperator(principal), gated.id)
    if (isRefusal(slot)) return abortHandshake(socket, slot)
    let runner
    try {
      runner = await parking.ensureLive(gated.id)
    } catch (err) {
      return abortHandshake(socket, refuse('engine_failed', `the session could not be rebuilt: ${(err as Error).message}`))
    }
    if (!runner) {
      // Fleet: a park another process woke first (its result or deadline reached it there): the
      // attach follows it there once its row shows (scope was checked above).
      if (fleet && (await fleet.fleet.followWake(req, socket, head, gated.id, forward))) return
      return abortHandshake(socket, NOT_FOUND)
    }
    const { afterSeq, views } = attachQuery(req.url ?? '/')
    const wss = await webSockets.get()
    wss.handleUpgrade(req, socket, head, (ws) => {
      const id = runner.id
      const budget = admission.open(ws, socket, req, 'session', id)
      hub.attach(id, budget)
      ws.on('close', () => {
        if (hub.detach(id, budget) === 0) parking.onDetach(id)
      })
      attachClient(context, budget, socket, runner, afterSeq, views)
    })
  }
}

function createQueueUpgrade({ context, principalOf, admission, webSockets }: ServerServices) {
  return async function upgradeQueue(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const queue = context.queue
    if (!queue) return abortHandshake(socket, refuse('not_found', 'job queue not configured'))
    const principal = await principalOf(req)
    if (principal === AUTH_HOOK_FAILED || !principal) return abortHandshake(socket, authRefusal(principal) ?? UNAUTHORIZED)
    // authentication.4. Operators only, so no socket cap applies (socket-caps.ts); the send budget does.
    if (!context.visibility.isOperator(principal)) return abortHandshake(socket, NOT_FOUND)
    const wss = await webSockets.get()
    wss.handleUpgrade(req, socket, head, (ws) => void attachQueueClient(admission.open(ws, socket, req, 'queue'), queue))
  }
}
