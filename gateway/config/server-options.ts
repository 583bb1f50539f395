/**
 * A validated configuration (plus its hooks module) turned into createGatewayServer options.
 * Data comes from the file; functions only from the hooks module the file names.
 */
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { pathToFileURL } from 'node:url'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createFileProfileStore, createMemoryProfileStore, type ProfileStore } from '../host/profile-store.ts'
import type { GatewayServerOptions } from '../server/options.ts'
import type { Authenticate, AuthorizeSession, Principal } from '../server/principal.ts'
import type { RunnerConfig } from '../sessions/runner.ts'
import { createFileSessionStore } from '../sessions/stores/file-store.ts'
import { createMemorySessionStore } from '../sessions/stores/memory-store.ts'
import type { SessionStore } from '../sessions/session-store.ts'
import type { ToolBackends } from '../engines/provider/tools.ts'
import type { NotificationType } from '../protocol/index.ts'
import { ConfigError, wireEngines, type EngineObservers } from './engine-wiring.ts'
import { readEnv } from './env.ts'
import { LivePrincipals } from './live-principals.ts'
import type { GatewayConfig } from './schema.ts'

/** What a hooks module may export; every export is optional. */
export interface GatewayHooks {
  authenticate?: Authenticate
  authorizeSession?: AuthorizeSession
  buildRunnerConfig?: (config: RunnerConfig) => RunnerConfig | Promise<RunnerConfig>
  fallback?: (req: IncomingMessage, res: ServerResponse) => void
  /** Custom grant backends for the provider engine (e.g. a `search` function). */
  toolBackends?: ToolBackends
  onError?: (err: unknown, where: string) => void
}

const HOOK_NAMES = ['authenticate', 'authorizeSession', 'buildRunnerConfig', 'fallback', 'toolBackends', 'onError']

export async function loadHooks(file: string | undefined): Promise<GatewayHooks> {
  if (!file) return {}
  const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>
  const hooks = (mod.default && typeof mod.default === 'object' ? mod.default : mod) as Record<string, unknown>
  for (const name of HOOK_NAMES) {
    const value = hooks[name]
    if (value === undefined) continue
    const expected = name === 'toolBackends' ? 'object' : 'function'
    if (typeof value !== expected) throw new ConfigError(`hooks: export '${name}' must be a ${expected}`)
  }
  return hooks as GatewayHooks
}

export async function buildServerOptions(config: GatewayConfig, hooks: GatewayHooks, observers: EngineObservers = {}): Promise<GatewayServerOptions> {
  const profiles = config.profiles ?? []
  const wiring = await wireEngines(config, profiles, hooks.toolBackends, observers)
  const options: GatewayServerOptions = {
    authenticate: await authenticator(config, hooks, observers),
    allowUnauthenticated: config.auth?.allowUnauthenticated,
    authorizeSession: hooks.authorizeSession,
    buildRunnerConfig: hooks.buildRunnerConfig,
    fallback: hooks.fallback,
    onError: hooks.onError,
    engines: wiring.engines,
    createEngineRunner: wiring.createEngineRunner,
    profiles: serverProfiles(config.profiles),
    allowedCwdRoots: config.allowedCwdRoots,
    allowedConfigDirRoots: config.allowedConfigDirRoots,
    basePath: config.basePath,
    cors: config.cors,
    maxBodyBytes: config.maxBodyBytes,
    disableBypassPermissions: config.disableBypassPermissions,
    approvalTimeoutMs: config.approvalTimeoutMs,
    requireApiKey: config.requireApiKey,
    checkCredentials: config.checkCredentials,
    requireAvailableProfile: config.requireAvailableProfile,
    hostFiles: config.hostFiles,
    attachments: config.attachments,
    peers: config.peers,
    metrics: config.metrics,
    webSockets: config.webSockets,
  }
  if (config.profileStore) options.profileStore = await profileStoreFor(config.profileStore, observers)
  if (config.parking) {
    const { store, ...rest } = config.parking
    options.parking = { ...rest, store: await sessionStoreFor(store, observers) }
  }
  if (config.queue) {
    // `adapter.kind: memory` is the bundled adapter, which the queue uses when none is given.
    const { adapter, ...rest } = config.queue
    options.queue = rest
    if (adapter?.kind === 'postgres') {
      // pg is loaded only for a configuration that names PostgreSQL.
      const { createPostgresQueueAdapter } = await import('../queue/postgres-adapter.ts')
      const queueAdapter = await createPostgresQueueAdapter({ url: databaseUrl('queue.adapter.urlEnv', adapter.urlEnv), ...(adapter.leaseMs ? { leaseMs: adapter.leaseMs } : {}) })
      observers.closers?.push(() => queueAdapter.close())
      options.queue.adapter = queueAdapter
    }
  }
  // The directory's trouble goes to the server's onError as it is when it happens (serve sets its logger's).
  if (config.fleet) options.fleet = await fleetFor(config, observers, (err, where) => options.onError?.(err, where))
  if (config.notifications) {
    const { webhook, ...rest } = config.notifications
    options.notifications = {
      ...rest,
      ...(webhook ? { webhook: { url: webhook.url, headers: readEnv(webhook.headersFromEnv ?? {}), events: webhook.events as NotificationType[] | undefined } } : {}),
    }
  }
  return stripUndefined(options)
}

async function profileStoreFor(store: NonNullable<GatewayConfig['profileStore']>, observers: EngineObservers): Promise<ProfileStore> {
  if (store.kind === 'file') return createFileProfileStore({ file: store.file })
  if (store.kind === 'memory') return createMemoryProfileStore()
  // pg is loaded only for a configuration that names PostgreSQL.
  const { createPostgresProfileStore } = await import('../host/postgres-profile-store.ts')
  const shared = await createPostgresProfileStore({ url: databaseUrl('profileStore.urlEnv', store.urlEnv) })
  observers.closers?.push(() => shared.close())
  return shared
}

async function sessionStoreFor(store: NonNullable<GatewayConfig['parking']>['store'], observers: EngineObservers): Promise<SessionStore | undefined> {
  if (!store) return undefined
  if (store.kind === 'file') return createFileSessionStore({ dir: store.dir })
  if (store.kind === 'memory') return createMemorySessionStore()
  const { createPostgresSessionStore } = await import('../sessions/stores/postgres-store.ts')
  const shared = await createPostgresSessionStore({ url: databaseUrl('parking.store.urlEnv', store.urlEnv) })
  observers.closers?.push(() => shared.close())
  return shared
}

/** The fleet's directory on the session store's database; the server stops it (and its pool) on close. */
async function fleetFor(config: GatewayConfig, observers: EngineObservers, onError: (err: unknown, where: string) => void): Promise<GatewayServerOptions['fleet']> {
  const fleet = config.fleet!
  const store = config.parking?.store
  if (store?.kind !== 'postgres') throw new ConfigError("fleet: needs parking.store of kind 'postgres'")
  const secret = process.env[fleet.secretEnv]
  if (!secret) throw new ConfigError(`fleet.secretEnv: environment variable ${fleet.secretEnv} is not set (it must hold the secret shared by the fleet)`)
  const { createSessionDirectory } = await import('../fleet/directory.ts')
  const leaseMs = fleet.leaseMs ?? (config.queue?.adapter?.kind === 'postgres' ? config.queue.adapter.leaseMs : undefined)
  const directory = await createSessionDirectory({
    url: databaseUrl('parking.store.urlEnv', store.urlEnv),
    processId: fleet.processId ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    ...(leaseMs !== undefined ? { leaseMs } : {}),
    onError,
  })
  // For `gateway check`, which builds options without serving; stopping twice is harmless.
  observers.closers?.push(() => directory.stop())
  return { directory, secret, ...(fleet.address ? { address: fleet.address } : {}), ...(fleet.peerTimeoutMs ? { peerTimeoutMs: fleet.peerTimeoutMs } : {}) }
}

/** A database URL is required to start: unlike a model key, nothing can run without it. */
function databaseUrl(path: string, name: string): string {
  const url = process.env[name]
  if (!url) throw new ConfigError(`${path}: environment variable ${name} is not set (it must hold a postgres:// URL)`)
  return url
}

/** The principals file first (its live set: reloadable), then the hooks module's `authenticate`; neither: none. */
async function authenticator(config: GatewayConfig, hooks: GatewayHooks, observers: EngineObservers): Promise<Authenticate | undefined> {
  const principals = config.auth?.principalsFile ? await LivePrincipals.load(config.auth.principalsFile) : undefined
  if (principals) observers.onPrincipals?.(principals)
  const fromFile = principals?.authenticate
  const fromHooks = hooks.authenticate
  if (!fromFile) return fromHooks
  if (!fromHooks) return fromFile
  return (req) => fromFile(req) ?? (fromHooks(req) as Principal | null)
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T
}

/**
 * The configuration's profiles as the server takes them: profile settings the server does not know
 * (a CLI profile's env mapping and its own program, which the engine wiring consumes) stay in the
 * configuration layer. Absent stays absent (auto-detect).
 */
export function serverProfiles(profiles: GatewayConfig['profiles']): GatewayServerOptions['profiles'] {
  return profiles?.map((profile) => {
    if (profile.engine === 'provider') return profile
    const { env: _env, interpreter: _interpreter, interpreterArgs: _args, ...rest } = profile
    if (rest.engine === 'cli_primary') {
      const { executable: _executable, ...server } = rest
      return server
    }
    const { codexPath: _codexPath, ...server } = rest
    return server
  })
}
