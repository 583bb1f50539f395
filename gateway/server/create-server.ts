/**
 * createGatewayServer: validates options, assembles the services once (services.ts), and serves
 * HTTP requests (request-router.ts) and WebSocket upgrades (upgrade-router.ts) on one node:http
 * server whose listen, close and graceful shutdown live in lifecycle.ts.
 */
import type { Server } from 'node:http'
import { createServer } from './node-http.ts'
import type { GatewayContext } from './context.ts'
import { answerClientError, sendRefusal } from './http.ts'
import { HttpDrain } from './http-drain.ts'
import { createLifecycle } from './lifecycle.ts'
import type { GatewayServerOptions } from './options.ts'
import { AUTH_HOOK_FAILED } from './principal.ts'
import { refuse } from './refusal.ts'
import { createRequestRouter, type RequestRouter } from './request-router.ts'
import { assembleServices, type ServerServices } from './services.ts'
import { createUpgradeRouter, type UpgradeRouter } from './upgrade-router.ts'
import { isDatabaseUnavailable } from '../postgres/retry.ts'

export interface GatewayServer {
  readonly server: Server
  readonly context: GatewayContext
  listen(port?: number, host?: string): Promise<{ port: number; url: string }>
  close(): Promise<void>
  /**
   * Graceful stop: refuse new sessions, jobs and attaches (503), close every WebSocket with 1001,
   * let running turns finish for up to `graceMs`, then close (parks and snapshots are written).
   * Resolves with the sessions still busy when the grace ended (none: the turns drained).
   */
  shutdown(options?: { graceMs?: number }): Promise<{ busy: string[] }>
  /**
   * Asks `authenticate` again for every open WebSocket's upgrade request (after a principals
   * reload): a socket now refused, or whose principal no longer sees its session, is closed with
   * 1008. Resolves with how many were closed.
   */
  reauthenticateSockets(): Promise<number>
  /** The separate metrics listener's address, when `metrics.port` is set and the server listens. */
  metricsAddress(): { port: number; url: string } | undefined
  /** This server's metrics (absent with `metrics: false`): e.g. feed it engine process events. */
  readonly metrics: import('./metrics.ts').GatewayMetrics | undefined
}

const DATABASE_UNAVAILABLE = refuse('database_unavailable', 'the database is unavailable; try again')

export function createGatewayServer(options: GatewayServerOptions): GatewayServer {
  const services = assembleServices(options)
  const { context, registry, principalOf, attached, metrics, metricsListener } = services
  let draining = false
  const isDraining = () => draining
  const { server, drain } = serve(services, createRequestRouter(services, isDraining), createUpgradeRouter(services, isDraining))
  const lifecycle = createLifecycle(services, server, drain, () => { draining = true })
  services.fleet?.onSuperseded(() => void lifecycle.shutdown().catch((err) => services.onError(err, 'fleet lease')))
  return {
    server,
    context,
    ...lifecycle,
    metricsAddress: () => metricsListener?.address(),
    metrics,
    reauthenticateSockets: () => attached.recheck(async (req, sessionId) => {
      const principal = await principalOf(req)
      if (principal === AUTH_HOOK_FAILED || !principal) return false
      if (sessionId === undefined) return context.visibility.isOperator(principal) // the queue socket
      const info = registry.info(sessionId)
      return !info || context.visibility.canSee(principal, info)
    }),
  }
}

/** The node:http server: every request counted and admitted by the drain, every failure answered, never a crash. */
function serve({ metrics, onError }: ServerServices, route: RequestRouter, upgrade: UpgradeRouter): { server: Server; drain: HttpDrain } {
  const server = createServer((req, res) => {
    metrics?.observeRequest(req, res)
    if (!drain.admit(req, res)) return
    route(req, res).catch((err) => {
      onError(err, 'request')
      // A database that is away is not a bug: 503, which a client may retry (docs/errors.md).
      if (!res.headersSent) sendRefusal(res, isDatabaseUnavailable(err) ? DATABASE_UNAVAILABLE : refuse('internal_error', 'internal error'))
      else res.destroy()
    })
  })
  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy())
    upgrade(req, socket, head).catch((err) => {
      onError(err, 'upgrade')
      socket.destroy()
    })
  })
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => answerClientError(err, socket))
  const drain = new HttpDrain(server)
  return { server, drain }
}
