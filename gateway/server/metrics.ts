/**
 * Prometheus metrics: one prom-client Registry per createGatewayServer, never the
 * global default, so two servers in one process keep separate series. Counters move on events the
 * server already sees (a response finishing, a turn result, a webhook attempt, a job ending);
 * gauges are read at scrape time from the registry, the sockets and the queue's adapter (which
 * counts the whole fleet when it is PostgreSQL), so a live session costs nothing between scrapes.
 * Labels are bounded by configuration, never by what tenants do: route templates, methods, status
 * classes, engines, statuses and outcomes are fixed sets; profile names are the declared ones and
 * at most `managedProfileLabels` managed ones at a time (the rest count as `other`), each at most
 * PROFILE_NAME_MAX_LENGTH characters; a deleted profile's series are removed, and a later turn on
 * it counts as `unknown`. Never session ids, job ids, paths or principals.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import type { Registry } from 'prom-client'
import type { QueueStats } from '../protocol/jobs.ts'
import type { JobEvent } from '../protocol/jobs.ts'
import { ENGINES, type SessionEvent, type SessionInfo } from '../protocol/index.ts'
import type { WebhookAttempt } from '../sessions/webhooks.ts'
import { pathOf, splitPath } from './request-path.ts'
import type { WebSocketStats } from './ws/attached-sockets.ts'
import type { CapReason } from './ws/socket-caps.ts'
import type { SocketKind } from './ws/send-budget.ts'
import { createInstruments, ENGINE_UNKNOWN, type Instruments, type PromClient } from './metrics-instruments.ts'

export interface MetricsOptions {
  /**
   * Serve `/metrics` on its own listener instead of `<basePath>/metrics`, unauthenticated, for a
   * scraper on the same machine. The host must be a loopback address (default 127.0.0.1).
   */
  port?: number
  host?: string
  /**
   * How many managed profiles (created over HTTP) get a `profile` label value of their own; the
   * tokens of the others count under `profile="(other)"`, so tenants that manage profiles cannot grow
   * the series beyond this. Declared profiles always have their own. Default 50.
   */
  managedProfileLabels?: number
}

export const DEFAULT_MANAGED_PROFILE_LABELS = 50

export interface MetricsSources {
  basePath: string
  healthPaths: readonly string[]
  sessions: () => Iterable<SessionInfo>
  webSockets: () => WebSocketStats
  queueStats?: () => Promise<QueueStats>
  /** Whether a profile of this name is declared, managed, or not in the catalog (any more). */
  profileKind: (name: string) => 'declared' | 'managed' | undefined
  managedProfileLabels: number
}

/** Families the router knows; anything else is `other`, so a scanner cannot mint label values. */
const FAMILIES = new Set(['sessions', 'profiles', 'executions', 'sdk-sessions', 'fs', 'jobs', 'queue', 'metrics'])
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
const TOKEN_DIRECTIONS = ['input', 'output'] as const
// Parentheses never occur in a profile name (1-64 of [A-Za-z0-9._-]), so a profile named `other`
// or `unknown` keeps series of its own, apart from the overflow and the deleted.
const PROFILE_OTHER = '(other)'
const PROFILE_UNKNOWN = '(unknown)'
const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|localhost)$/

/** Validates `metrics` of createGatewayServer; throws a message naming the option. */
export function validateMetricsOptions(metrics: unknown): void {
  if (metrics === undefined || typeof metrics === 'boolean') return
  if (typeof metrics !== 'object' || metrics === null || Array.isArray(metrics)) throw new Error('createGatewayServer: metrics must be a boolean or { port, host, managedProfileLabels }')
  const { port, host, managedProfileLabels } = metrics as MetricsOptions
  if (managedProfileLabels !== undefined && (!Number.isInteger(managedProfileLabels) || managedProfileLabels < 0)) throw new Error('createGatewayServer: metrics.managedProfileLabels must be a non-negative integer')
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new Error('createGatewayServer: metrics.port must be an integer from 0 to 65535')
  // The separate listener has no authentication: it may only be reachable from this machine.
  if (host !== undefined && (typeof host !== 'string' || !LOOPBACK.test(host))) throw new Error(`createGatewayServer: metrics.host '${String(host)}' must be a loopback address (127.0.0.1, ::1 or localhost)`)
  if (host !== undefined && port === undefined) throw new Error('createGatewayServer: metrics.host needs metrics.port')
}

/** The route template of a request path: `/sessions/:id/*`, never the id or the file path. */
export function routeLabel(rawUrl: string | undefined, basePath: string, healthPaths: readonly string[]): string {
  const path = pathOf(rawUrl)
  if (healthPaths.includes(path)) return path
  if (basePath && path !== basePath && !path.startsWith(`${basePath}/`)) return 'outside_base_path'
  const segments = splitPath(path.slice(basePath.length))
  if (!segments) return 'malformed'
  const [family, ...rest] = segments
  if (family === undefined) return '/'
  if (!FAMILIES.has(family)) return 'other'
  if (family === 'sessions') return rest.length === 0 ? '/sessions' : rest.length === 1 ? '/sessions/:id' : '/sessions/:id/*'
  return rest.length === 0 ? `/${family}` : `/${family}/*`
}

/** Per live session with a request waiting: request id -> when it was raised (for the oldest age). */
export type WaitingRequests = Map<object, { engine: string; since: Map<string, number> }>

/** prom-client (CommonJS) loaded synchronously, and only by the first GatewayMetrics that is used. */
let promClient: PromClient | undefined
const loadPromClient = (): PromClient => (promClient ??= createRequire(import.meta.url)('prom-client') as PromClient)

/**
 * The server's metrics. The prom-client registry and instruments are built at the first event
 * that moves one of them or at the first scrape, not here: createGatewayServer builds this object
 * at start, and prom-client with its OpenTelemetry dependency would be a third of the modules
 * loaded before listening. Until then no series has a value to report; the default
 * process metrics (CPU, memory, handles) are read at scrape time, so only the event-loop-lag and
 * GC observations start later, at the first request rather than at start.
 */
export class GatewayMetrics {
  readonly #sources: MetricsSources
  readonly #waiting: WaitingRequests = new Map()
  /** Managed profiles that have a label value of their own (at most managedProfileLabels). */
  readonly #labelled = new Set<string>()
  #built: Instruments | undefined

  constructor(sources: MetricsSources) {
    this.#sources = sources
  }

  get #i(): Instruments {
    return (this.#built ??= createInstruments(loadPromClient(), this.#sources, this.#waiting))
  }

  /** This server's prom-client Registry (built on first access). */
  get registry(): Registry {
    return this.#i.registry
  }

  /** Called for every HTTP request; one `finish` listener, labels computed once at the end. */
  observeRequest(req: IncomingMessage, res: ServerResponse): void {
    const start = process.hrtime.bigint()
    res.once('finish', () => {
      const labels = {
        method: METHODS.has(req.method ?? '') ? req.method! : 'other',
        route: routeLabel(req.url, this.#sources.basePath, this.#sources.healthPaths),
        status_class: `${Math.floor(res.statusCode / 100)}xx`,
      }
      this.#i.requests.inc(labels)
      this.#i.duration.observe(labels, Number(process.hrtime.bigint() - start) / 1e9)
    })
  }

  sessionRegistered(engine: string | undefined): void {
    this.#i.sessionsCreated.inc({ engine: engine ?? ENGINE_UNKNOWN })
  }

  /** A live session event; only a few types count, the rest return at the switch. */
  sessionEvent(session: object, engine: string | undefined, profile: string | undefined, event: SessionEvent): void {
    switch (event.type) {
      case 'turn_result': {
        const e = engine ?? ENGINE_UNKNOWN
        this.#i.turns.inc({ engine: e, outcome: event.isError ? 'failed' : 'completed' })
        if (Number.isFinite(event.durationMs) && event.durationMs >= 0) this.#i.turnDuration.observe({ engine: e }, event.durationMs / 1000)
        const usage = event.usage
        const p = this.#profileLabel(profile)
        if (usage?.input_tokens) this.#i.tokens.inc({ engine: e, profile: p, direction: 'input' }, usage.input_tokens)
        if (usage?.output_tokens) this.#i.tokens.inc({ engine: e, profile: p, direction: 'output' }, usage.output_tokens)
        return
      }
      case 'session_error':
        this.#i.sessionErrors.inc({ engine: engine ?? ENGINE_UNKNOWN })
        return
      case 'permission_requested': {
        const e = engine ?? ENGINE_UNKNOWN
        this.#i.permissions.inc({ engine: e })
        let entry = this.#waiting.get(session)
        if (!entry) this.#waiting.set(session, entry = { engine: e, since: new Map() })
        entry.since.set(event.request.id, performance.now())
        return
      }
      case 'permission_resolved': {
        const entry = this.#waiting.get(session)
        entry?.since.delete(event.requestId)
        if (entry?.since.size === 0) this.#waiting.delete(session)
        return
      }
      case 'session_closed':
        this.#waiting.delete(session)
        return
    }
  }

  /**
   * A declared profile's own name; a managed one's while it exists and one of the first
   * managedProfileLabels to need one, else `(other)`; `(unknown)` for none or a deleted one.
   */
  #profileLabel(profile: string | undefined): string {
    const kind = profile === undefined ? undefined : this.#sources.profileKind(profile)
    if (kind === undefined) return PROFILE_UNKNOWN
    if (kind === 'declared' || this.#labelled.has(profile!)) return profile!
    if (this.#labelled.size >= this.#sources.managedProfileLabels) return PROFILE_OTHER
    this.#labelled.add(profile!)
    return profile!
  }

  /** A managed profile was deleted: its series go with it and its label slot is free again. */
  profileRemoved(name: string): void {
    this.#labelled.delete(name)
    const tokens = this.#built?.tokens
    if (!tokens) return
    for (const engine of [...ENGINES, ENGINE_UNKNOWN]) {
      for (const direction of TOKEN_DIRECTIONS) tokens.remove({ engine, profile: name, direction })
    }
  }

  /** An engine process started or ended (cli_primary's `onProcess`; `gateway serve` wires it). */
  engineProcess(engine: string, event: { type: 'spawn' | 'exit'; pid: number | undefined; code?: number | null; signal?: NodeJS.Signals | null; requested?: boolean }): void {
    if (event.pid === undefined) return // a spawn that failed: it never ran, and no exit follows
    if (event.type === 'spawn') {
      this.#i.engineSpawns.inc({ engine })
      this.#i.engineLive.inc({ engine })
      return
    }
    // A death is an end the gateway did not ask for; a close it asked for is `requested`, whatever the exit code.
    this.#i.engineExits.inc({ engine, reason: event.requested ? 'requested' : event.signal ? 'signal' : event.code === 0 ? 'clean' : 'error' })
    this.#i.engineLive.dec({ engine })
  }

  /** A WebSocket closed because it stayed above its send bound (send-budget.ts). */
  webSocketSlowReaderClosed(kind: SocketKind): void {
    this.#i.slowReaderCloses.inc({ kind })
  }

  /** A WebSocket upgrade refused by a socket cap (socket-caps.ts). */
  webSocketRefused(reason: CapReason): void {
    this.#i.socketsRefused.inc({ reason })
  }

  webhookAttempt(attempt: WebhookAttempt): void {
    const outcome = attempt.ok ? 'success' : 'failure'
    this.#i.webhooks.inc({ outcome })
    if (attempt.attempt > 1) this.#i.webhookRetries.inc()
    if (Number.isFinite(attempt.durationMs)) this.#i.webhookDuration.observe({ outcome }, attempt.durationMs / 1000)
  }

  jobEvent(event: JobEvent): void {
    if (event.type === 'job_retrying') return void this.#i.jobRetries.inc()
    if (event.type !== 'job_completed') return
    const { status, startedAt, finishedAt } = event.job
    this.#i.jobsFinished.inc({ status })
    if (startedAt !== undefined && finishedAt !== undefined && finishedAt >= startedAt) this.#i.jobDuration.observe({ status }, (finishedAt - startedAt) / 1000)
  }

  /** The exposition text and its content type, for either listener. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    const { registry } = this.#i
    return { contentType: registry.contentType, body: await registry.metrics() }
  }
}

