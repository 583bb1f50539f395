/**
 * createGatewayServer: validates options, assembles the services once, and dispatches HTTP
 * requests and WebSocket upgrades. Order per request: CORS and preflight (before auth), fallback
 * outside basePath (no auth), authentication (401), then the route.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { createServer } from './node-http.ts'
import { realpathSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { ProfileAvailability } from '../host/availability.ts'
import { HostFiles } from '../host/host-files.ts'
import { loadManagedProfiles } from '../host/managed-profiles.ts'
import { ProfileCatalog, type ResolvedProfile } from '../host/profiles.ts'
import { SessionRegistry } from '../sessions/registry.ts'
import { LIVE_ONLY } from '../sessions/runner.ts'
import { ParkingManager } from '../sessions/parking.ts'
import { PeerService } from '../sessions/peers.ts'
import { AttachmentStore } from '../sessions/attachments.ts'
import type { GatewayContext } from './context.ts'
import { applyCors } from './cors.ts'
import { answerClientError, sendRefusal } from './http.ts'
import { HttpDrain } from './http-drain.ts'
import { resolveOptions, type GatewayServerOptions } from './options.ts'
import { AUTH_HOOK_FAILED, createAuthenticator, createVisibility } from './principal.ts'
import { isRefusal, NOT_FOUND, refuse, UNAUTHORIZED, type Refusal } from './refusal.ts'
import { createHealthRoutes } from './health.ts'
import { answerMetrics, wireMetrics } from './metrics-wiring.ts'
import { pathOf, splitPath } from './request-path.ts'
import { handleExecutions } from './routes/executions.ts'
import { handleJobs } from './routes/jobs.ts'
import { handleSdkSessions } from './routes/sdk-sessions.ts'
import { handleHostFiles } from './routes/host-files.ts'
import { handleProfiles } from './routes/profiles.ts'
import { gateSession } from './routes/session-gate.ts'
import { handleSession, handleSessionCollection } from './routes/sessions.ts'
import { handleSessionSubroute } from './routes/session-subroutes.ts'
import { handleUnconfigured } from './routes/unconfigured.ts'
import { createSessionFactory } from './session-factory.ts'
import { isDatabaseUnavailable } from '../postgres/retry.ts'
import { attachQuery } from './ws/attach-query.ts'
import { abortHandshake } from './ws/abort-handshake.ts'
import { MAX_FRAME_BYTES } from './ws/command-parser.ts'
import { attachQueueClient } from './ws/queue-socket.ts'
import { attachClient } from './ws/session-socket.ts'
import { BridgeHub } from './ws/tool-bridge.ts'
import { AttachedSockets } from './ws/attached-sockets.ts'
import { SocketAdmission } from './ws/socket-admission.ts'
import { LazyWebSocketServer } from './ws/web-socket-server.ts'
import { wireWebhooksAndQueue } from './webhook-wiring.ts'

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

const MALFORMED_PATH = refuse('invalid_request', 'malformed URL path')
const AUTH_FAILED = refuse('internal_error', 'internal error')
const SHUTTING_DOWN = refuse('shutting_down', 'the gateway is shutting down')
const DATABASE_UNAVAILABLE = refuse('database_unavailable', 'the database is unavailable; try again')
/** Statuses in which a session is mid-turn; shutdown waits for them to settle. */
const BUSY = new Set(['starting', 'running', 'awaiting_approval'])

export function createGatewayServer(options: GatewayServerOptions): GatewayServer {
  const resolved = resolveOptions(options)
  const registry = new SessionRegistry()
  const catalog = new ProfileCatalog(resolved.profiles)
  const onError = options.onError ?? defaultOnError
  const hub = new BridgeHub()
  const peers = new PeerService(options.peers, registry)
  const engineProbe = (profile: ResolvedProfile) => {
    const probe = options.engines?.[profile.engine as 'cli_primary']?.probeCredentials
    return probe ? probe(profile) : Promise.reject(new Error(`engine ${profile.engine} has no credential probe in this build`))
  }
  const warn = options.onWarning ?? ((message: string) => console.warn(`gateway: ${message}`))
  const availability = new ProfileAvailability(options.checkCredentials, () => catalog.profiles, warn, engineProbe)
  // Codex logins are probed for readyz only: requireAvailableProfile stays the primary engine's (server-configuration.20).
  const codexLogins = new ProfileAvailability(options.checkCredentials && { timeoutMs: options.checkCredentials === true ? undefined : options.checkCredentials.timeoutMs },
    () => catalog.profiles, warn, engineProbe, ['cli_secondary'])
  const factory = createSessionFactory({
    registry,
    catalog,
    createEngineRunner: options.createEngineRunner,
    buildRunnerConfig: options.buildRunnerConfig,
    engines: options.engines ?? {},
    bridgeFor: (id) => hub.bridgeFor(id),
    peersFor: (id) => (peers.enabled ? peers.portFor(id) : undefined),
    // Parking is built next; the claim is only ever made by a running session.
    claimExecutionId: (id, toolCallId) => parking.claimExecutionId(id, toolCallId),
    approvalTimeoutMs: options.approvalTimeoutMs,
    requireApiKey: options.requireApiKey === true,
    onError,
  })
  const parking = new ParkingManager(options.parking ?? {}, {
    registry,
    attachedCount: (id) => hub.count(id),
    rebuild: (record) => factory.rebuild(record),
    onParking: (id, executionId) => (context.queue?.onSessionParking(id, executionId) ?? Promise.resolve(true)),
    onParked: (id, executionId) => context.queue?.onSessionParked(id, executionId) ?? Promise.resolve(),
    onParkFailed: (id, error) => context.queue?.onParkFailed(id, error),
    beforeResume: (id, hint) => context.queue?.waitForResumeSlot(id, hint) ?? Promise.resolve(),
    onResumed: (id, runner) => void context.queue?.onSessionResumed(id, runner),
    onResumeFailed: (id, error) => void context.queue?.onResumeFailed(id, error),
    onError,
  })
  factory.onBuilt((runner, config, open) => parking.watch(runner, config, open))
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
  const { basePath } = resolved
  let draining = false
  const { metrics, listener: metricsListener } = wireMetrics(options, context, () => attached.stats())
  const admission = new SocketAdmission(resolved.webSockets, attached, metrics)
  const handleHealth = options.health ? createHealthRoutes(options.health, {
    logins: [availability, codexLogins],
    profiles: () => catalog.profiles,
    queueReachable: context.queue ? () => context.queue!.stats() : undefined,
    draining: () => draining,
  }) : undefined

  /** The one refusal for a failed authentication step: 401, or 500 for a broken hook. */
  function authRefusal(principal: unknown): Refusal | undefined {
    if (principal === AUTH_HOOK_FAILED) return AUTH_FAILED
    return principal ? undefined : UNAUTHORIZED
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (applyCors(req, res, resolved.corsOrigins)) return
    const path = pathOf(req.url)
    if (handleHealth) {
      const answered = handleHealth(req, res, path)
      if (answered === true || (answered !== false && (await answered))) return
    }
    if (basePath && path !== basePath && !path.startsWith(`${basePath}/`)) {
      if (options.fallback) return options.fallback(req, res)
      return sendRefusal(res, NOT_FOUND)
    }
    const pending = principalOf(req)
    const principal = pending instanceof Promise ? await pending : pending
    if (principal === AUTH_HOOK_FAILED || !principal) return sendRefusal(res, authRefusal(principal) ?? UNAUTHORIZED)
    const segments = splitPath(path.slice(basePath.length))
    if (!segments) return sendRefusal(res, MALFORMED_PATH)
    const [family, ...rest] = segments
    // Draining: nothing new starts; existing sessions stay readable while their turns finish.
    if (draining && req.method === 'POST' && rest.length === 0 && (family === 'sessions' || family === 'jobs')) return sendRefusal(res, SHUTTING_DOWN)
    if (family === 'sessions') {
      if (rest.length === 0) return handleSessionCollection(context, req, res, principal)
      if (rest.length === 1) return handleSession(context, req, res, principal, rest[0])
      return handleSessionSubroute(context, req, res, principal, rest[0], rest.slice(1))
    }
    if (family === 'metrics' && rest.length === 0 && metrics && !metricsListener) return answerMetrics(context, metrics, req.method, res, principal)
    if (family === 'profiles') return handleProfiles(context, req, res, principal, rest)
    if (family === 'executions') return handleExecutions(context, req, res, principal, rest)
    if (family === 'sdk-sessions') return handleSdkSessions(context, req, res, principal, rest)
    if (family === 'fs') return handleHostFiles(context, req, res, principal, rest)
    if ((family === 'jobs' || family === 'queue') && context.queue) return handleJobs(context, context.queue, req, res, principal, family, rest)
    return handleUnconfigured(family ?? '', req, res, rest)
  }

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    if (draining) return abortHandshake(socket, SHUTTING_DOWN)
    const target = req.url ?? '/'
    const path = pathOf(target)
    const segments = path.startsWith(`${basePath}/`) ? splitPath(path.slice(basePath.length)) : undefined
    if (segments?.length === 2 && segments[0] === 'queue' && segments[1] === 'ws') return upgradeQueue(req, socket, head)
    if (!segments || segments.length !== 3 || segments[0] !== 'sessions' || segments[2] !== 'ws') {
      return abortHandshake(socket, NOT_FOUND)
    }
    const principal = await principalOf(req)
    if (principal === AUTH_HOOK_FAILED || !principal) return abortHandshake(socket, authRefusal(principal) ?? UNAUTHORIZED)
    // Authorization before the wake: an unauthorized attach must trigger no rebuild (session-status-values.6).
    const gated = gateSession(context, principal, segments[1])
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
    if (!runner) return abortHandshake(socket, NOT_FOUND)
    const { afterSeq, views } = attachQuery(target)
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

  async function upgradeQueue(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const queue = context.queue
    if (!queue) return abortHandshake(socket, refuse('not_found', 'job queue not configured'))
    const principal = await principalOf(req)
    if (principal === AUTH_HOOK_FAILED || !principal) return abortHandshake(socket, authRefusal(principal) ?? UNAUTHORIZED)
    // authentication.4. Operators only, so no socket cap applies (socket-caps.ts); the send budget does.
    if (!context.visibility.isOperator(principal)) return abortHandshake(socket, NOT_FOUND)
    const wss = await webSockets.get()
    wss.handleUpgrade(req, socket, head, (ws) => void attachQueueClient(admission.open(ws, socket, req, 'queue'), queue))
  }

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

  let closing: Promise<void> | undefined
  function close(): Promise<void> {
    return (closing ??= closeOnce())
  }

  async function closeOnce(): Promise<void> {
    // HTTP first: the listener stops and every request in flight is answered (its result, or 503)
    // while the sessions it may be reading still exist; nothing is reset.
    await drain.answerAll()
    // Then the queue, so runs ended by the shutdown fail without scheduling retries.
    context.queue?.close()
    // Parking before the registry: shutdown closes must not discard what a restart should adopt.
    const flushed = parking.close()
    registry.closeAll()
    await webSockets.close()
    await drain.finish()
    await metricsListener?.close()
    await flushed
  }

  return {
    server,
    context,
    async listen(port = 0, host = '127.0.0.1') {
      // Stored parks and live records become rows before the first request can ask for them.
      await parking.hydrate()
      if (options.profileStore) await loadManagedProfiles(options.profileStore, catalog, { declared: options.profiles !== undefined, customRunner: typeof options.createEngineRunner === 'function', onError })
      await metricsListener?.listen()
      return new Promise((resolvePromise, reject) => {
        server.once('error', reject)
        server.listen(port, host, () => {
          server.off('error', reject)
          const address = server.address() as AddressInfo
          const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
          availability.preflight()
          codexLogins.preflight()
          resolvePromise({ port: address.port, url: `http://${shownHost}:${address.port}${basePath}` })
        })
      })
    },
    close,
    metricsAddress: () => metricsListener?.address(),
    metrics,
    reauthenticateSockets: () => attached.recheck(async (req, sessionId) => {
      const principal = await principalOf(req)
      if (principal === AUTH_HOOK_FAILED || !principal) return false
      if (sessionId === undefined) return context.visibility.isOperator(principal) // the queue socket
      const info = registry.info(sessionId)
      return !info || context.visibility.canSee(principal, info)
    }),
    async shutdown({ graceMs = 10_000 } = {}) {
      draining = true
      // Keep listening through the grace (readyz answers 503, so a balancer drains the instance),
      // but every response from now on closes its connection and idle keep-alive sockets close.
      drain.drain()
      // 1001 "going away": clients know to reconnect elsewhere or later, not that they erred.
      for (const client of webSockets.clients) client.close(1001, 'server shutting down')
      const deadline = Date.now() + graceMs
      const busy = () => [...registry.ids()].filter((id) => BUSY.has(registry.info(id)?.status ?? ''))
      while (Date.now() < deadline && busy().length) {
        await new Promise((done) => setTimeout(done, Math.min(100, Math.max(1, deadline - Date.now()))))
      }
      const left = busy()
      await close()
      // Pending webhook deliveries (the closes just queued some) get what is left of the grace.
      let timer: ReturnType<typeof setTimeout> | undefined
      await Promise.race([
        Promise.all(deliverers.map((d) => d.idle())),
        new Promise<void>((done) => { timer = setTimeout(done, Math.max(0, deadline - Date.now())) }),
      ])
      clearTimeout(timer)
      return { busy: left }
    },
  }
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
