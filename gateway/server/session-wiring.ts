/**
 * The sessions side of a server, wired once per createGatewayServer: the registry, the profile
 * catalog, the credential logins, the one session factory and parking. Parking reaches the job
 * queue through a getter because the queue is built later, from the finished context.
 */
import { ProfileAvailability } from '../host/availability.ts'
import { ProfileCatalog, type ResolvedProfile } from '../host/profiles.ts'
import type { JobQueue } from '../queue/job-queue.ts'
import { ParkingManager } from '../sessions/parking.ts'
import { PeerService } from '../sessions/peers.ts'
import { SessionRegistry } from '../sessions/registry.ts'
import type { GatewayServerOptions, ResolvedOptions } from './options.ts'
import { createSessionFactory, type SessionFactory } from './session-factory.ts'
import { BridgeHub } from './ws/tool-bridge.ts'

export type OnError = (err: unknown, where: string) => void

export interface SessionServices {
  registry: SessionRegistry
  catalog: ProfileCatalog
  /** Client-run tool bridges, one per attached session socket. */
  hub: BridgeHub
  /** The primary engine's logins: readyz and, when asked, requireAvailableProfile. */
  availability: ProfileAvailability
  /** Codex logins, probed for readyz only. */
  codexLogins: ProfileAvailability
  factory: SessionFactory
  parking: ParkingManager
  /** Told of every park once its record is stored (the fleet releases its directory row). */
  parkListeners: Array<(id: string) => void>
}

export function wireSessions(options: GatewayServerOptions, resolved: ResolvedOptions, onError: OnError, queueOf: () => JobQueue | undefined): SessionServices {
  const registry = new SessionRegistry()
  const catalog = new ProfileCatalog(resolved.profiles)
  const hub = new BridgeHub()
  const peers = new PeerService(options.peers, registry)
  const { availability, codexLogins } = createLogins(options, catalog)
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
  const parkListeners: Array<(id: string) => void> = []
  const parking = createParking(options, registry, hub, factory, queueOf, onError, parkListeners)
  factory.onBuilt((runner, config, open) => parking.watch(runner, config, open))
  return { registry, catalog, hub, availability, codexLogins, factory, parking, parkListeners }
}

function createLogins(options: GatewayServerOptions, catalog: ProfileCatalog) {
  const engineProbe = (profile: ResolvedProfile) => {
    const probe = options.engines?.[profile.engine as 'cli_primary']?.probeCredentials
    return probe ? probe(profile) : Promise.reject(new Error(`engine ${profile.engine} has no credential probe in this build`))
  }
  const warn = options.onWarning ?? ((message: string) => console.warn(`gateway: ${message}`))
  const availability = new ProfileAvailability(options.checkCredentials, () => catalog.profiles, warn, engineProbe)
  // Codex logins are probed for readyz only: requireAvailableProfile stays the primary engine's (server-configuration.20).
  const codexLogins = new ProfileAvailability(options.checkCredentials && { timeoutMs: options.checkCredentials === true ? undefined : options.checkCredentials.timeoutMs },
    () => catalog.profiles, warn, engineProbe, ['cli_secondary'])
  return { availability, codexLogins }
}

/** Parking tells the job queue of every park and resume (session-status-values.2, queue-options.*). */
function createParking(options: GatewayServerOptions, registry: SessionRegistry, hub: BridgeHub, factory: SessionFactory, queueOf: () => JobQueue | undefined, onError: OnError,
  parkListeners: Array<(id: string) => void>): ParkingManager {
  return new ParkingManager(options.parking ?? {}, {
    registry,
    attachedCount: (id) => hub.count(id),
    rebuild: (record) => factory.rebuild(record),
    onParking: (id, executionId) => (queueOf()?.onSessionParking(id, executionId) ?? Promise.resolve(true)),
    onParked: (id, executionId) => {
      for (const listener of parkListeners) listener(id)
      return queueOf()?.onSessionParked(id, executionId) ?? Promise.resolve()
    },
    onParkFailed: (id, error) => queueOf()?.onParkFailed(id, error),
    beforeResume: (id, hint) => queueOf()?.waitForResumeSlot(id, hint) ?? Promise.resolve(),
    onResumed: (id, runner) => void queueOf()?.onSessionResumed(id, runner),
    onResumeFailed: (id, error) => void queueOf()?.onResumeFailed(id, error),
    onError,
  })
}
