/**
 * The prom-client side of GatewayMetrics: one Registry per createGatewayServer, never
 * the global default, so two servers in one process keep separate series. Built on the first
 * observation or scrape (metrics.ts), never at start: prom-client and the OpenTelemetry API its
 * default metrics require are 83 modules, a third of what the gateway loaded before listening.
 */
import type { Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { QueueStats } from '../protocol/jobs.ts'
import type { MetricsSources, WaitingRequests } from './metrics.ts'
import type { WebSocketStats } from './ws/attached-sockets.ts'

export type PromClient = typeof import('prom-client')

export const ENGINE_UNKNOWN = 'unknown'

/** The registry and the instruments that move on events (the scrape-time gauges live in the registry only). */
export interface Instruments {
  registry: Registry
  requests: Counter<'method' | 'route' | 'status_class'>
  duration: Histogram<'method' | 'route' | 'status_class'>
  sessionsCreated: Counter<'engine'>
  turns: Counter<'engine' | 'outcome'>
  turnDuration: Histogram<'engine'>
  tokens: Counter<'engine' | 'profile' | 'direction'>
  sessionErrors: Counter<'engine'>
  permissions: Counter<'engine'>
  webhooks: Counter<'outcome'>
  webhookRetries: Counter
  webhookDuration: Histogram<'outcome'>
  jobsFinished: Counter<'status'>
  jobRetries: Counter
  jobDuration: Histogram<'status'>
  engineSpawns: Counter<'engine'>
  engineExits: Counter<'engine' | 'reason'>
  engineLive: Gauge<'engine'>
  slowReaderCloses: Counter<'kind'>
  socketsRefused: Counter<'reason'>
}

export function createInstruments(prom: PromClient, sources: MetricsSources, waiting: WaitingRequests): Instruments {
  const registry = new prom.Registry()
  const registers = [registry]
  prom.collectDefaultMetrics({ register: registry })
  const requests = new prom.Counter({ name: 'gateway_http_requests_total', help: 'HTTP requests answered, by method, route template and status class', labelNames: ['method', 'route', 'status_class'], registers })
  const duration = new prom.Histogram({
    name: 'gateway_http_request_duration_seconds', help: 'Time from request to the end of the response, by method, route template and status class',
    labelNames: ['method', 'route', 'status_class'], buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30], registers,
  })
  const sessionsCreated = new prom.Counter({ name: 'gateway_sessions_created_total', help: 'Sessions registered (created, forked or resumed), by engine', labelNames: ['engine'], registers })
  const turns = new prom.Counter({ name: 'gateway_turns_total', help: 'Turns that ended with a result, by engine and outcome (completed or failed)', labelNames: ['engine', 'outcome'], registers })
  const turnDuration = new prom.Histogram({ name: 'gateway_turn_duration_seconds', help: 'Duration of a turn as its result reports it, by engine', labelNames: ['engine'], buckets: [1, 5, 15, 30, 60, 120, 300, 900, 1800], registers })
  const tokens = new prom.Counter({ name: 'gateway_tokens_total', help: 'Model tokens reported by turn results, by engine, profile and direction (input or output)', labelNames: ['engine', 'profile', 'direction'], registers })
  const sessionErrors = new prom.Counter({ name: 'gateway_session_errors_total', help: 'session_error events (an engine failure the session reported), by engine', labelNames: ['engine'], registers })
  const permissions = new prom.Counter({ name: 'gateway_permission_requests_total', help: 'Permission requests raised by engines, by engine', labelNames: ['engine'], registers })
  const webhooks = new prom.Counter({ name: 'gateway_webhook_attempts_total', help: 'Webhook delivery attempts (jobs and notifications), by outcome (success or failure)', labelNames: ['outcome'], registers })
  const webhookRetries = new prom.Counter({ name: 'gateway_webhook_retries_total', help: 'Webhook delivery attempts after the first for the same delivery', registers })
  const webhookDuration = new prom.Histogram({ name: 'gateway_webhook_attempt_duration_seconds', help: 'Webhook attempt latency, from the request to the end of the response or the failure, by outcome', labelNames: ['outcome'], buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers })
  const jobsFinished = new prom.Counter({ name: 'gateway_jobs_finished_total', help: 'Jobs that reached a final status in this process, by status', labelNames: ['status'], registers })
  const jobRetries = new prom.Counter({ name: 'gateway_job_retries_total', help: 'Job attempts scheduled for a retry in this process', registers })
  const jobDuration = new prom.Histogram({ name: 'gateway_job_duration_seconds', help: 'Time from a job starting to its final status, by status', labelNames: ['status'], buckets: [1, 10, 30, 60, 300, 900, 1800, 3600, 7200], registers })
  const engineSpawns = new prom.Counter({ name: 'gateway_engine_process_spawns_total', help: 'Engine processes started, by engine (reported by the engine adapter\'s process observer)', labelNames: ['engine'], registers })
  const engineExits = new prom.Counter({ name: 'gateway_engine_process_exits_total', help: 'Engine processes that ended, by engine and reason (requested: the gateway asked it to end, whatever the exit; otherwise clean: exit 0, error: another exit code, signal: killed)', labelNames: ['engine', 'reason'], registers })
  const engineLive = new prom.Gauge({ name: 'gateway_engine_processes', help: 'Engine processes alive now, by engine', labelNames: ['engine'], registers })
  const slowReaderCloses = new prom.Counter({ name: 'gateway_websocket_slow_reader_closes_total', help: 'WebSockets closed with 1013 because they stayed above webSockets.maxBufferedBytes (or a queue socket that missed a frame), by kind', labelNames: ['kind'], registers })
  const socketsRefused = new prom.Counter({ name: 'gateway_websocket_refused_total', help: 'WebSocket upgrades refused with 429 by a socket cap, by reason (per_principal or per_session)', labelNames: ['reason'], registers })
  scrapeGauges(prom, registers, sources, waiting)
  return { registry, requests, duration, sessionsCreated, turns, turnDuration, tokens, sessionErrors, permissions, webhooks, webhookRetries, webhookDuration, jobsFinished, jobRetries, jobDuration, engineSpawns, engineExits, engineLive, slowReaderCloses, socketsRefused }
}

/** The socket gauges, each one pass over the open sockets when scraped. */
function webSocketGauges(prom: PromClient, registers: Registry[], sources: MetricsSources): void {
  const gauge = (name: string, help: string, field: keyof WebSocketStats) => new prom.Gauge({
    name, help, labelNames: ['kind'], registers,
    collect() {
      const value = sources.webSockets()[field]
      this.set({ kind: 'session' }, value.session)
      this.set({ kind: 'queue' }, value.queue)
    },
  })
  gauge('gateway_websocket_connections', 'Open WebSocket connections, by kind (session or queue)', 'open')
  gauge('gateway_websocket_buffered_bytes', 'Bytes queued on open WebSockets and not yet taken by the kernel, by kind', 'bufferedBytes')
  gauge('gateway_websocket_slow_readers', 'WebSockets above webSockets.maxBufferedBytes now (nothing more is queued for them until they drain), by kind', 'slowReaders')
}

/** Gauges computed when scraped: no work per session between scrapes. */
function scrapeGauges(prom: PromClient, registers: Registry[], sources: MetricsSources, waiting: WaitingRequests): void {
  new prom.Gauge({
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
  new prom.Gauge({
    name: 'gateway_permission_requests_pending', help: 'Permission requests waiting for an answer, by engine', labelNames: ['engine'], registers,
    collect() {
      this.reset()
      for (const info of sources.sessions()) {
        if (info.pendingPermissionCount) this.inc({ engine: info.engine ?? ENGINE_UNKNOWN }, info.pendingPermissionCount)
      }
    },
  })
  webSocketGauges(prom, registers, sources)
  new prom.Gauge({
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
  new prom.Gauge({
    name: 'gateway_queue_reachable', help: '1 when the queue\'s store answered this scrape, 0 when it failed (the other queue series are then absent)', registers,
    async collect() {
      this.set((await queueStats()) ? 1 : 0)
    },
  })
  new prom.Gauge({
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
  new prom.Gauge({
    name: 'gateway_queue_daily_tokens_used', help: 'Tokens counted against the queue\'s daily limit today', registers,
    async collect() {
      this.reset()
      const stats = await queueStats()
      if (stats) this.set(stats.dailyTokensUsed)
    },
  })
  new prom.Gauge({
    name: 'gateway_queue_paused', help: '1 when the queue has stopped starting jobs because the daily token limit is reached', registers,
    async collect() {
      this.reset()
      const stats = await queueStats()
      if (stats) this.set(stats.paused ? 1 : 0)
    },
  })
}
