/**
 * createGatewayServer options (server-configuration.*) and their construction-time validation.
 * Every misconfiguration the spec names throws here, before anything listens (errors.13).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ProfileConfig } from '../protocol/index.ts'
import { detectProfiles, validateProfiles, type ResolvedProfile } from '../host/profiles.ts'
import type { CreateEngineRunner, RunnerConfig } from '../sessions/runner.ts'
import type { Authenticate, AuthorizeSession } from './principal.ts'
import type { EngineAdapter } from './engine-adapter.ts'
import type { QueueOptions } from '../queue/options.ts'
import type { NotificationOptions } from '../sessions/notifications.ts'
import { validateMetricsOptions } from './metrics.ts'
import { resolveWebSocketLimits, type WebSocketLimits } from './ws/socket-limits.ts'

export interface GatewayServerOptions {
  authenticate?: Authenticate
  allowUnauthenticated?: boolean
  authorizeSession?: AuthorizeSession
  allowedCwdRoots?: string[]
  /** Declared profiles; `[]` disables profiles; unset auto-detects. */
  profiles?: ProfileConfig[]
  createEngineRunner?: CreateEngineRunner
  buildRunnerConfig?: (config: RunnerConfig) => RunnerConfig | Promise<RunnerConfig>
  basePath?: string
  fallback?: (req: IncomingMessage, res: ServerResponse) => void
  cors?: { origins: string[] }
  maxBodyBytes?: number
  disableBypassPermissions?: boolean
  approvalTimeoutMs?: number | null
  /** A session whose engine reports `apiKeySource: 'oauth'` is terminated with session_error; off: one notice. */
  requireApiKey?: boolean
  /** Adapters for the CLI engines, keyed by engine (the provider engine uses createEngineRunner). */
  engines?: Partial<Record<'cli_primary' | 'cli_secondary', EngineAdapter>>
  /** Mounts profile create/edit/delete (managed profiles); `createMemoryProfileStore()` or `createFileProfileStore({file})`. */
  profileStore?: import('../host/profile-store.ts').ProfileStore
  /** Roots a managed profile's credential directory may be in; unset: managed profiles are provider profiles only. */
  allowedConfigDirRoots?: string[]
  /** Probe primary-engine profiles' login state after listen (never fails); `{probe?, timeoutMs?}`. */
  checkCredentials?: boolean | import('../host/availability.ts').CheckCredentialsOptions
  /** Create and job submit on a profile the probe reports unavailable answer 503. Needs checkCredentials. */
  requireAvailableProfile?: boolean
  /** Session-to-session messaging: `{enabled? = true, maxMessageChars? = 16000, perMinute? = 10, maxHops? = 12}`. */
  peers?: import('../sessions/peers.ts').PeerOptions
  /** Host file routes `/fs/*`: `{roots? (default allowedCwdRoots), write? = false, maxFileBytes? = 1 MiB, maxEntries? = 5000, ignore?}`. */
  hostFiles?: import('../host/host-files.ts').HostFilesOptions
  /** Uploaded attachments, held in memory: `{maxFileBytes? = 10 MiB, maxSessionBytes? = 64 MiB}`. */
  attachments?: { maxFileBytes?: number; maxSessionBytes?: number }
  /** Deferred execution: session store, park delay, boot grace, persistLive (session-stores). */
  parking?: import('../sessions/parking.ts').ParkingOptions
  /** Enables the job queue and its routes; without it every /jobs and /queue route is 404. */
  queue?: QueueOptions
  /** Session notifications to a webhook and/or a local observer (events.24). */
  notifications?: NotificationOptions
  /** Replaces the primary engine's lister behind `GET /sdk-sessions` (server-configuration: listSdkSessions); primary engine only. */
  listSdkSessions?: EngineAdapter['listSessions']
  /** Observes every webhook delivery attempt (jobs and notifications), e.g. for logs. */
  onWebhookAttempt?: (attempt: import('../sessions/webhooks.ts').WebhookAttempt) => void
  /** `GET /healthz` and `GET /readyz`, unauthenticated, outside basePath; off unless given. */
  health?: import('./health.ts').HealthOptions
  /**
   * Prometheus metrics. Default: `<basePath>/metrics` for operators. `false`: off.
   * `{ port, host? }`: served instead on a separate loopback listener (no authentication) for a scraper.
   */
  metrics?: boolean | import('./metrics.ts').MetricsOptions
  /**
   * WebSocket backpressure and caps: `{maxBufferedBytes? = 4 MiB, slowReaderTimeoutMs? = 10000,
   * maxPerPrincipal? = 64, maxPerSession? = 32}` (ws/socket-limits.ts).
   */
  webSockets?: import('./ws/socket-limits.ts').WebSocketLimitsOptions
  /**
   * A fleet of processes on one PostgreSQL database: `{directory, secret, address?, peerTimeoutMs?}`
   * (fleet/fleet.ts). Any process answers for any session (forwarding to the one that runs it) and
   * adopts the sessions of a dead one. Needs a shared session store (`parking.store`) to adopt.
   */
  fleet?: import('../fleet/fleet.ts').FleetOptions
  /** Receives failures that are not the caller's fault (engine build/start errors). */
  onError?: (err: unknown, where: string) => void
  /** Receives warnings for the operator (a profile found unavailable by checkCredentials); default `console.warn`. */
  onWarning?: (message: string) => void
}

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024

export interface ResolvedOptions {
  basePath: string
  maxBodyBytes: number
  profiles: ResolvedProfile[]
  corsOrigins: ReadonlySet<string> | undefined
  webSockets: WebSocketLimits
}

export function resolveOptions(options: GatewayServerOptions): ResolvedOptions {
  if (!options.authenticate && options.allowUnauthenticated !== true) {
    throw new Error('createGatewayServer: an authenticate hook is required (or set allowUnauthenticated: true for local development)')
  }
  if (options.authenticate !== undefined && typeof options.authenticate !== 'function') {
    throw new Error('createGatewayServer: authenticate must be a function')
  }
  const basePath = normaliseBasePath(options.basePath ?? '/v1')
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes <= 0) {
    throw new Error('createGatewayServer: maxBodyBytes must be a positive integer')
  }
  if (options.requireAvailableProfile && !options.checkCredentials) {
    throw new Error('createGatewayServer: requireAvailableProfile needs checkCredentials (nothing would ever report a profile unavailable)')
  }
  if (options.cors && !Array.isArray(options.cors.origins)) {
    throw new Error('createGatewayServer: cors.origins must be an array of exact origins')
  }
  for (const origin of options.cors?.origins ?? []) {
    if (origin.includes('*')) throw new Error(`createGatewayServer: cors origin '${origin}' has a wildcard; origins are exact`)
  }
  validateMetricsOptions(options.metrics)
  const webSockets = resolveWebSocketLimits(options.webSockets)
  if (options.fallback !== undefined && typeof options.fallback !== 'function') {
    throw new Error('createGatewayServer: fallback must be a (req, res) function')
  }
  // With a store, detected profiles are not declared: they seed the store on first launch (listen).
  const declared = options.profiles ?? (options.profileStore ? [] : detectProfiles())
  if (!Array.isArray(declared)) throw new Error('createGatewayServer: profiles must be an array')
  const profiles = validateProfiles(declared, typeof options.createEngineRunner === 'function')
  return {
    basePath,
    maxBodyBytes,
    profiles,
    corsOrigins: options.cors ? new Set(options.cors.origins) : undefined,
    webSockets,
  }
}

function normaliseBasePath(path: string): string {
  if (typeof path !== 'string') throw new Error('createGatewayServer: basePath must be a string')
  const trimmed = path.replace(/\/+$/, '')
  if (trimmed !== '' && !trimmed.startsWith('/')) throw new Error(`createGatewayServer: basePath '${path}' must start with '/'`)
  return trimmed
}
