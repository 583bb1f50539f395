/**
 * Everything a server assembles once from its options before it can answer: the sessions side
 * (session-wiring.ts), the context every route reads, webhooks and the job queue, authentication,
 * the WebSocket admission and the metrics. Routing and lifecycle only use what this returns.
 */
import { realpathSync } from 'node:fs'
import { HostFiles } from '../host/host-files.ts'
import { AttachmentStore } from '../sessions/attachments.ts'
import { LIVE_ONLY } from '../sessions/runner.ts'
import type { WebhookDeliverer } from '../sessions/webhooks.ts'
import type { GatewayContext } from './context.ts'
import type { GatewayMetrics } from './metrics.ts'
import { wireMetrics, type createMetricsListener } from './metrics-wiring.ts'
import { resolveOptions, type GatewayServerOptions, type ResolvedOptions } from './options.ts'
import { createAuthenticator, createVisibility } from './principal.ts'
import { wireFleet, type FleetWiring } from './fleet-wiring.ts'
import { wireSessions, type OnError, type SessionServices } from './session-wiring.ts'
import { wireWebhooksAndQueue } from './webhook-wiring.ts'
import { AttachedSockets } from './ws/attached-sockets.ts'
import { MAX_FRAME_BYTES } from './ws/command-parser.ts'
import { SocketAdmission } from './ws/socket-admission.ts'
import { LazyWebSocketServer } from './ws/web-socket-server.ts'

export interface ServerServices extends SessionServices {
  options: GatewayServerOptions
  resolved: ResolvedOptions
  context: GatewayContext
  onError: OnError
  /** The webhook senders: a graceful shutdown gives their pending deliveries its grace. */
  deliverers: WebhookDeliverer[]
  principalOf: ReturnType<typeof createAuthenticator>
  webSockets: LazyWebSocketServer
  attached: AttachedSockets
  admission: SocketAdmission
  metrics: GatewayMetrics | undefined
  /** The separate `/metrics` listener, when `metrics.port` is set. */
  metricsListener: ReturnType<typeof createMetricsListener> | undefined
  /** Present with the `fleet` option: the session directory, forwarding and adoption. */
  fleet: FleetWiring | undefined
}

export function assembleServices(options: GatewayServerOptions): ServerServices {
  const resolved = resolveOptions(options)
  const onError = options.onError ?? defaultOnError
  const sessions = wireSessions(options, resolved, onError, () => context.queue)
  const context = createContext(options, resolved, sessions)
  const { registry, catalog, parking } = sessions
  registry.onRegister((runner) => {
    runner.subscribe((event) => {
      if (event.type === 'capabilities' && event.defaultModel) catalog.learnDefaultModel(runner.info().profile, event.defaultModel)
    }, LIVE_ONLY)
  })
  // Every webhook attempt is counted (metrics is assigned below, before any session can exist).
  const deliverers = wireWebhooksAndQueue(options, context, parking, (attempt) => metrics?.webhookAttempt(attempt), onError)
  const principalOf = createAuthenticator(options.authenticate, onError)
  const webSockets = new LazyWebSocketServer(MAX_FRAME_BYTES)
  const attached = new AttachedSockets()
  const { metrics, listener: metricsListener } = wireMetrics(options, context, () => attached.stats())
  const admission = new SocketAdmission(resolved.webSockets, attached, metrics)
  const fleet = wireFleet(options, sessions, context, onError)
  if (fleet) {
    context.fleetClaimed = fleet.claimed
    context.fleetSettled = fleet.claimed
    context.fleetExecutionOwner = (req, res, body, principal, sessionId) => fleet.fleet.answerExecution(req, res, body, principal, sessionId)
    context.fleetExecution = (req, res, body) => fleet.fleet.offerExecution(req, res, body)
  }
  return { ...sessions, options, resolved, context, onError, deliverers, principalOf, webSockets, attached, admission, metrics, metricsListener, fleet }
}

/** The one record every route reads (context.ts); its `queue` is added by wireWebhooksAndQueue. */
function createContext(options: GatewayServerOptions, resolved: ResolvedOptions, sessions: SessionServices): GatewayContext {
  const { registry, catalog, availability, factory, parking } = sessions
  const context: GatewayContext = {
    options,
    resolved,
    registry,
    catalog,
    visibility: createVisibility(options.authorizeSession),
    createPolicy: {
      catalog,
      // Mutant 'bypass-allowed' forgets the policy here, where every create is checked.
      disableBypassPermissions: options.disableBypassPermissions === true,
      cwdRoots: options.allowedCwdRoots?.map(canonicalRoot),
      availability: options.requireAvailableProfile ? availability : undefined,
    },
    availability,
    factory,
    parking,
    attachments: new AttachmentStore(options.attachments),
    configDirRoots: options.allowedConfigDirRoots?.map((root) => {
      try { return realpathSync(root) } catch { return root }
    }),
  }
  // Reads follow the allowed cwd roots unless hostFiles names its own; `[]` turns the routes off.
  const fileRoots = (options.hostFiles?.roots ?? options.allowedCwdRoots ?? []).map(canonicalRoot)
  if (fileRoots.length) context.hostFiles = new HostFiles(fileRoots, options.hostFiles)
  return context
}

function canonicalRoot(root: string): string {
  try {
    return realpathSync(root)
  } catch {
    throw new Error(`createGatewayServer: root '${root}' (allowedCwdRoots or hostFiles.roots) does not exist`)
  }
}

function defaultOnError(err: unknown, where: string): void {
  console.error(`[gateway] ${where}: ${err instanceof Error ? err.message : String(err)}`)
}
