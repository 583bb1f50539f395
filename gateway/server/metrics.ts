/**
 * Prometheus metrics (issue 22): one prom-client Registry per createGatewayServer, never the
 * global default, so two servers in one process keep separate series. Counters move on events the
 * server already sees (a response finishing, a turn result, a webhook attempt, a job ending);
 * gauges are read at scrape time from the registry, the sockets and the queue's adapter (which
 * counts the whole fleet when it is PostgreSQL), so a live session costs nothing between scrapes.
 * Labels are bounded: route templates, methods, status classes, engines, profile names (declared
 * by the operator), statuses and outcomes; never session ids, job ids, paths or principals.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { QueueStats } from '../protocol/jobs.ts'
import type { JobEvent } from '../protocol/jobs.ts'
import type { SessionEvent, SessionInfo } from '../protocol/index.ts'
import type { WebhookAttempt } from '../sessions/webhooks.ts'
import { pathOf, splitPath } from './request-path.ts'

export interface MetricsOptions {
  /**
   * Serve `/metrics` on its own listener instead of `<basePath>/metrics`, unauthenticated, for a
   * scraper on the same machine. The host must be a loopback address (default 127.0.0.1).
   */
  port?: number
  host?: string
}

export interface MetricsSources {
  basePath: string
  healthPaths: readonly string[]
  sessions: () => Iterable<SessionInfo>
  webSockets: () => { session: number; queue: number }
  queueStats?: () => Promise<QueueStats>
}

/** Families the router knows; anything else is `other`, so a scanner cannot mint label values. */
const FAMILIES = new Set(['sessions', 'profiles', 'executions', 'sdk-sessions', 'fs', 'jobs', 'queue', 'metrics'])
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|localhost)$/
const ENGINE_UNKNOWN = 'unknown'

/** Validates `metrics` of createGatewayServer; throws a message naming the option. */
export function validateMetricsOptions(metrics: unknown): void {
  if (metrics === undefined || typeof metrics === 'boolean') return
  if (typeof metrics !== 'object' || metrics === null || Array.isArray(metrics)) throw new Error('createGatewayServer: metrics must be a boolean or { port, host }')
  const { port, host } = metrics as MetricsOptions
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

export class GatewayMetrics {
  readonly registry = new Registry()
  readonly #sources: MetricsSources
  readonly #requests: Counter<'method' | 'route' | 'status_class'>
  readonly #duration: Histogram<'method' | 'route' | 'status_class'>
  readonly #sessionsCreated: Counter<'engine'>
  readonly #turns: Counter<'engine' | 'outcome'>
  readonly #turnDuration: Histogram<'engine'>
  readonly #tokens: Counter<'engine' | 'profile' | 'direction'>
  readonly #sessionErrors: Counter<'engine'>
  readonly #permissions: Counter<'engine'>
  readonly #webhooks: Counter<'outcome'>
  readonly #webhookRetries: Counter
  readonly #webhookDuration: Histogram<'outcome'>
  readonly #jobsFinished: Counter<'status'>
  readonly #jobRetries: Counter
  readonly #jobDuration: Histogram<'status'>
  readonly #engineSpawns: Counter<'engine'>
  readonly #engineExits: Counter<'engine' | 'reason'>
  readonly #engineLive: Gauge<'engine'>
  /** Per live session with a request waiting: request id -> when it was raised (for the oldest age). */
  readonly #waiting = new Map<object, { engine: string; since: Map<string, number> }>()

  constructor(sources: MetricsSources) {
    this.#sources = sources
    const registers = [this.registry]
    collectDefaultMetrics({ register: this.registry })
    this.#requests = new Counter({ name: 'gateway_http_requests_total', help: 'HTTP requests answered, by method, route template and status class', labelNames: ['method', 'route', 'status_class'], registers })
    this.#duration = new Histogram({
      name: 'gateway_http_request_duration_seconds', help: 'Time from request to the end of the response, by method, route template and status class',
      labelNames: ['method', 'route', 'status_class'], buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30], registers,
    })
    this.#sessionsCreated = new Counter({ name: 'gateway_sessions_created_total', help: 'Sessions registered (created, forked or resumed), by engine', labelNames: ['engine'], registers })
    this.#turns = new Counter({ name: 'gateway_turns_total', help: 'Turns that ended with a result, by engine and outcome (completed or failed)', labelNames: ['engine', 'outcome'], registers })
    this.#turnDuration = new Histogram({ name: 'gateway_turn_duration_seconds', help: 'Duration of a turn as its result reports it, by engine', labelNames: ['engine'], buckets: [1, 5, 15, 30, 60, 120, 300, 900, 1800], registers })
    this.#tokens = new Counter({ name: 'gateway_tokens_total', help: 'Model tokens reported by turn results, by engine, profile and direction (input or output)', labelNames: ['engine', 'profile', 'direction'], registers })
    this.#sessionErrors = new Counter({ name: 'gateway_session_errors_total', help: 'session_error events (an engine failure the session reported), by engine', labelNames: ['engine'], registers })
    this.#permissions = new Counter({ name: 'gateway_permission_requests_total', help: 'Permission requests raised by engines, by engine', labelNames: ['engine'], registers })
    this.#webhooks = new Counter({ name: 'gateway_webhook_attempts_total', help: 'Webhook delivery attempts (jobs and notifications), by outcome (success or failure)', labelNames: ['outcome'], registers })
    this.#webhookRetries = new Counter({ name: 'gateway_webhook_retries_total', help: 'Webhook delivery attempts after the first for the same delivery', registers })
    this.#webhookDuration = new Histogram({ name: 'gateway_webhook_attempt_duration_seconds', help: 'Webhook attempt latency, from the request to the end of the response or the failure, by outcome', labelNames: ['outcome'], buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers })
    this.#jobsFinished = new Counter({ name: 'gateway_jobs_finished_total', help: 'Jobs that reached a final status in this process, by status', labelNames: ['status'], registers })
    this.#jobRetries = new Counter({ name: 'gateway_job_retries_total', help: 'Job attempts scheduled for a retry in this process', registers })
    this.#jobDuration = new Histogram({ name: 'gateway_job_duration_seconds', help: 'Time from a job starting to its final status, by status', labelNames: ['status'], buckets: [1, 10, 30, 60, 300, 900, 1800, 3600, 7200], registers })
    this.#engineSpawns = new Counter({ name: 'gateway_engine_process_spawns_total', help: 'Engine processes started, by engine (reported by the engine adapter\'s process observer)', labelNames: ['engine'], registers })
    this.#engineExits = new Counter({ name: 'gateway_engine_process_exits_total', help: 'Engine processes that ended, by engine and reason (clean: exit 0, error: another exit code, signal: killed)', labelNames: ['engine', 'reason'], registers })
    this.#engineLive = new Gauge({ name: 'gateway_engine_processes', help: 'Engine processes alive now, by engine', labelNames: ['engine'], registers })
    this.#scrapeGauges(registers)
  }

  /** Gauges computed when scraped: no work per session between scrapes. */
  #scrapeGauges(registers: Registry[]): void {
    const sources = this.#sources
    new Gauge({
      name: 'gateway_sessions', help: 'Sessions in the registry, by engine and status', labelNames: ['engine', 'status'], registers,
      collect() {
        this.reset()
        const counts = new Map<string, number>()
        for (const info of sources.sessions()) {
          const key = `${info.engine ?? ENGINE_UNKNOWN}\u0000${info.status}`
          counts.set(key, (counts.get(key) ?? 0) + 1)
        }
        for (const [key, value] of counts) {
          const [engine, status] = key.split('\u0000')
          this.set({ engine, status }, value)
        }
      },
    })
    new Gauge({
      name: 'gateway_permission_requests_pending', help: 'Permission requests waiting for an answer, by engine', labelNames: ['engine'], registers,
      collect() {
        this.reset()
        for (const info of sources.sessions()) {
          if (info.pendingPermissionCount) this.inc({ engine: info.engine ?? ENGINE_UNKNOWN }, info.pendingPermissionCount)
        }
      },
    })
    new Gauge({
      name: 'gateway_websocket_connections', help: 'Open WebSocket connections, by kind (session or queue)', labelNames: ['kind'], registers,
      collect() {
        const counts = sources.webSockets()
        this.set({ kind: 'session' }, counts.session)
        this.set({ kind: 'queue' }, counts.queue)
      },
    })
    const waiting = this.#waiting
    new Gauge({
      name: 'gateway_permission_request_oldest_age_seconds', help: 'Age of the oldest permission request still waiting for an answer, by engine (absent when none waits)', labelNames: ['engine'], registers,
      collect() {
        this.reset()
        const oldest = new Map<string, number>()
        for (const { engine, since } of waiting.values()) {
          for (const at of since.values()) oldest.set(engine, Math.min(oldest.get(engine) ?? Infinity, at))
        }
        const now = performance.now()
        for (const [engine, at] of oldest) this.set({ engine }, (now - at) / 1000)
      },
    })
    const read = sources.queueStats
    if (!read) return
    // One read per scrape: the registry collects every metric at once, so the queue gauges share
    // the in-flight read (on PostgreSQL it is a query). A failed read leaves them absent and says so.
    let inFlight: Promise<QueueStats | undefined> | undefined
    const queueStats = () => (inFlight ??= read().catch(() => undefined).finally(() => { inFlight = undefined }))
    new Gauge({
      name: 'gateway_queue_reachable', help: '1 when the queue\'s store answered this scrape, 0 when it failed (the other queue series are then absent)', registers,
      async collect() {
        this.set((await queueStats()) ? 1 : 0)
      },
    })
    new Gauge({
      name: 'gateway_queue_jobs', help: 'Jobs by status (queued, running, parked); fleet-wide when the queue is on PostgreSQL', labelNames: ['status'], registers,
      async collect() {
        this.reset()
        const stats = await queueStats()
        if (!stats) return
        this.set({ status: 'queued' }, stats.queued)
        this.set({ status: 'running' }, stats.running)
        this.set({ status: 'parked' }, stats.parked)
      },
    })
    new Gauge({
      name: 'gateway_queue_daily_tokens_used', help: 'Tokens counted against the queue\'s daily limit today', registers,
      async collect() {
        this.reset()
        const stats = await queueStats()
        if (stats) this.set(stats.dailyTokensUsed)
      },
    })
    new Gauge({
      name: 'gateway_queue_paused', help: '1 when the queue has stopped starting jobs because the daily token limit is reached', registers,
      async collect() {
        this.reset()
        const stats = await queueStats()
        if (stats) this.set(stats.paused ? 1 : 0)
      },
    })
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
      this.#requests.inc(labels)
      this.#duration.observe(labels, Number(process.hrtime.bigint() - start) / 1e9)
    })
  }

  sessionRegistered(engine: string | undefined): void {
    this.#sessionsCreated.inc({ engine: engine ?? ENGINE_UNKNOWN })
  }

  /** A live session event; only a few types count, the rest return at the switch. */
  sessionEvent(session: object, engine: string | undefined, profile: string | undefined, event: SessionEvent): void {
    switch (event.type) {
      case 'turn_result': {
        const e = engine ?? ENGINE_UNKNOWN
        this.#turns.inc({ engine: e, outcome: event.isError ? 'failed' : 'completed' })
        if (Number.isFinite(event.durationMs) && event.durationMs >= 0) this.#turnDuration.observe({ engine: e }, event.durationMs / 1000)
        const usage = event.usage
        const p = profile ?? ENGINE_UNKNOWN
        if (usage?.input_tokens) this.#tokens.inc({ engine: e, profile: p, direction: 'input' }, usage.input_tokens)
        if (usage?.output_tokens) this.#tokens.inc({ engine: e, profile: p, direction: 'output' }, usage.output_tokens)
        return
      }
      case 'session_error':
        this.#sessionErrors.inc({ engine: engine ?? ENGINE_UNKNOWN })
        return
      case 'permission_requested': {
        const e = engine ?? ENGINE_UNKNOWN
        this.#permissions.inc({ engine: e })
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

  /** An engine process started or ended (cli_primary's `onProcess`; `gateway serve` wires it). */
  engineProcess(engine: string, event: { type: 'spawn' | 'exit'; pid: number | undefined; code?: number | null; signal?: NodeJS.Signals | null }): void {
    if (event.pid === undefined) return // a spawn that failed: it never ran, and no exit follows
    if (event.type === 'spawn') {
      this.#engineSpawns.inc({ engine })
      this.#engineLive.inc({ engine })
      return
    }
    this.#engineExits.inc({ engine, reason: event.signal ? 'signal' : event.code === 0 ? 'clean' : 'error' })
    this.#engineLive.dec({ engine })
  }

  webhookAttempt(attempt: WebhookAttempt): void {
    const outcome = attempt.ok ? 'success' : 'failure'
    this.#webhooks.inc({ outcome })
    if (attempt.attempt > 1) this.#webhookRetries.inc()
    if (Number.isFinite(attempt.durationMs)) this.#webhookDuration.observe({ outcome }, attempt.durationMs / 1000)
  }

  jobEvent(event: JobEvent): void {
    if (event.type === 'job_retrying') return void this.#jobRetries.inc()
    if (event.type !== 'job_completed') return
    const { status, startedAt, finishedAt } = event.job
    this.#jobsFinished.inc({ status })
    if (startedAt !== undefined && finishedAt !== undefined && finishedAt >= startedAt) this.#jobDuration.observe({ status }, (finishedAt - startedAt) / 1000)
  }

  /** The exposition text and its content type, for either listener. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() }
  }
}

