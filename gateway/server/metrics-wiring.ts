/**
 * Connects GatewayMetrics to the server's services once per createGatewayServer, and the optional
 * separate listener that serves only `/metrics` on a loopback port for a scraper.
 */
import type { ServerResponse } from 'node:http'
import { createServer } from './node-http.ts'
import type { AddressInfo } from 'node:net'
import { LIVE_ONLY } from '../sessions/runner.ts'
import type { GatewayContext } from './context.ts'
import { sendRefusal } from './http.ts'
import { DEFAULT_MANAGED_PROFILE_LABELS, GatewayMetrics } from './metrics.ts'
import type { GatewayServerOptions } from './options.ts'
import type { Principal } from './principal.ts'
import { METHOD_NOT_ALLOWED, NOT_FOUND, refuse } from './refusal.ts'
import { pathOf } from './request-path.ts'
import type { WebSocketStats } from './ws/attached-sockets.ts'

export function wireMetrics(
  options: GatewayServerOptions,
  context: GatewayContext,
  webSockets: () => WebSocketStats,
): { metrics?: GatewayMetrics; listener?: ReturnType<typeof createMetricsListener> } {
  if (options.metrics === false) return {}
  const { registry, queue } = context
  const metrics = new GatewayMetrics({
    basePath: context.resolved.basePath,
    healthPaths: options.health ? [options.health.healthPath ?? '/healthz', options.health.readyPath ?? '/readyz'] : [],
    *sessions() {
      for (const id of registry.ids()) {
        const info = registry.info(id)
        if (info) yield info
      }
    },
    webSockets,
    // The adapter's counts: the whole fleet's when the queue is on PostgreSQL.
    ...(queue ? { queueStats: () => queue.stats() } : {}),
    profileKind: (name) => (context.catalog.isDeclared(name) ? 'declared' : context.catalog.isManaged(name) ? 'managed' : undefined),
    managedProfileLabels: (typeof options.metrics === 'object' ? options.metrics.managedProfileLabels : undefined) ?? DEFAULT_MANAGED_PROFILE_LABELS,
  })
  context.catalog.onRemoved((name) => metrics.profileRemoved(name))
  registry.onRegister((runner) => {
    const { engine, profile } = runner.info()
    metrics.sessionRegistered(engine)
    runner.subscribe((event) => metrics.sessionEvent(runner, engine, profile, event), LIVE_ONLY)
  })
  queue?.subscribe((event) => metrics.jobEvent(event))
  const separate = typeof options.metrics === 'object' && options.metrics.port !== undefined ? options.metrics : undefined
  return { metrics, ...(separate ? { listener: createMetricsListener(metrics, separate.port!, separate.host) } : {}) }
}

/** `<basePath>/metrics`: an operator route (authentication.4: others get the 404 an unknown route gets). */
export async function answerMetrics(context: GatewayContext, metrics: GatewayMetrics, method: string | undefined, res: ServerResponse, principal: Principal): Promise<void> {
  if (!context.visibility.isOperator(principal)) return sendRefusal(res, NOT_FOUND)
  if (method !== 'GET' && method !== 'HEAD') return sendRefusal(res, METHOD_NOT_ALLOWED)
  const { contentType, body } = await metrics.exposition()
  res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) })
  res.end(method === 'HEAD' ? undefined : body)
}

/** A listener that answers `GET /metrics` and nothing else; loopback only, so unauthenticated. */
export function createMetricsListener(metrics: GatewayMetrics, port: number, host = '127.0.0.1') {
  const server = createServer((req, res) => {
    if (pathOf(req.url) !== '/metrics') return sendRefusal(res, NOT_FOUND)
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendRefusal(res, METHOD_NOT_ALLOWED)
    metrics.exposition().then(({ contentType, body }) => {
      res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) })
      res.end(req.method === 'HEAD' ? undefined : body)
    }, () => {
      if (!res.headersSent) sendRefusal(res, refuse('internal_error', 'metrics could not be collected'))
    })
  })
  let listening = false
  return {
    listen(): Promise<void> {
      return new Promise((resolve, reject) => {
        server.once('error', reject)
        server.listen(port, host, () => {
          server.off('error', reject)
          listening = true
          resolve()
        })
      })
    },
    address(): { port: number; url: string } | undefined {
      if (!listening) return undefined
      const address = server.address() as AddressInfo
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
      return { port: address.port, url: `http://${shownHost}:${address.port}/metrics` }
    },
    close(): Promise<void> {
      if (!listening) return Promise.resolve()
      listening = false
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}
