/**
 * `gateway serve --config <file>`: a configuration file to a listening gateway with logs, health
 * routes and a graceful shutdown. Nothing here is test-only; the development gateway on the fakes
 * is `gateway dev` (dev-gateway.ts).
 */
import type { Server } from 'node:http'
import { dirname } from 'node:path'
import type { Logger } from 'pino'
import { createGatewayServer, type GatewayServer } from '../server/create-server.ts'
import { attachAccessLog, recordingPrincipal } from './access-log.ts'
import { EngineProcesses } from './engine-processes.ts'
import type { EngineProcessEvent } from '../engines/cli-primary/index.ts'
import { logQueueTransitions, logSessionLifecycle } from './lifecycle-log.ts'
import { credentialValues } from './env.ts'
import { preflight } from './preflight.ts'
import { readinessDependencies } from './run-time-checks.ts'
import { createLogger, flushLog, flushLogSync } from './logger.ts'
import { buildServerOptions, loadHooks } from './server-options.ts'
import type { LivePrincipals } from './live-principals.ts'
import type { GatewayConfig } from './schema.ts'

export interface ServeOptions {
  /** Overrides `listen.port` (0 picks a free port). */
  port?: number
  host?: string
  logDestination?: NodeJS.WritableStream
  /** The environment the file's variables are read from (process.env). */
  env?: NodeJS.ProcessEnv
}

export interface RunningGateway {
  gateway: GatewayServer
  url: string
  port: number
  logger: Logger
  config: GatewayConfig
  shutdown(): Promise<void>
  /**
   * Reads the principals file again (the command calls it on SIGHUP; a change to the file does
   * too): a valid file replaces the principals at once and WebSockets of revoked principals are
   * closed; an invalid one is logged and the previous principals stay in force.
   */
  reloadPrincipals(why: string): Promise<void>
  /**
   * Resolves when this process must stop on its own (its fleet lease lapsed and its sessions were
   * adopted elsewhere); the command then shuts down and exits 1. Never resolves otherwise.
   */
  readonly mustStop: Promise<string>
}

export class ConfigProblems extends Error {
  readonly problems: string[]
  constructor(problems: string[]) {
    super(problems.join('\n'))
    this.problems = problems
  }
}

export async function serveConfigFile(file: string, overrides: ServeOptions = {}): Promise<RunningGateway> {
  // Every check `gateway check` runs, the same function: a file check passes is a file serve starts.
  const loaded = await preflight(file, { env: overrides.env })
  if (!loaded.config || loaded.problems.length) throw new ConfigProblems(loaded.problems)
  const config = loaded.config
  const logger = createLogger({
    level: config.logging?.level, redact: config.logging?.redact,
    secrets: credentialValues(config), destination: overrides.logDestination,
  })
  // A missing credential variable is a warning, not a refusal: the profile reports unavailable.
  for (const warning of loaded.warnings) logger.warn({ kind: 'config' }, warning)
  const hooks = await loadHooks(config.hooks)
  const engineProcesses = new EngineProcesses(logger)
  const closers: Array<() => Promise<void>> = []
  let principals: LivePrincipals | undefined
  // The server's metrics exist once it is built; processes are only spawned after that (by sessions).
  let metrics: GatewayServer['metrics']
  const onEngineProcess = (event: EngineProcessEvent, engine: 'cli_primary' | 'cli_secondary') => {
    metrics?.engineProcess(engine, engineProcesses.observe(event))
  }
  // Every line `serve` writes is JSON (the journalctl | jq pipeline of operating.md), warnings included.
  const onWarning = (message: string) => logger.warn({ kind: 'credentials' }, message)
  const options = await buildServerOptions(config, hooks, { onEngineProcess, closers, onWarning, onPrincipals: (p) => { principals = p } })
  options.onWarning = onWarning
  options.authenticate = recordingPrincipal(options.authenticate)
  const hostOnError = options.onError
  options.onError = (err, where) => {
    logger.error({ kind: 'error', where, err }, `${where} failed`)
    hostOnError?.(err, where)
  }
  // Health routes are on by default here (off in the library); `health: false` turns them off.
  if (config.health !== false) {
    const health = config.health ?? { healthPath: '/healthz', readyPath: '/readyz' }
    options.health = {
      ...health,
      writableDirs: [
        ...(config.parking?.store?.kind === 'file' ? [config.parking.store.dir] : []),
        ...(config.profileStore?.kind === 'file' ? [dirname(config.profileStore.file)] : []),
      ],
      // The database pool and each engine's programs, asked while serving.
      dependencies: readinessDependencies(config, options, overrides.env),
    }
  }
  let stopOnOwn: (reason: string) => void = () => {}
  const mustStop = new Promise<string>((resolve) => { stopOnOwn = resolve })
  if (options.fleet) {
    const fleet = options.fleet
    options.fleet.onAdopted = (event) => logger.info({ kind: 'fleet', processId: fleet.directory.processId, ...event }, 'session adopted from a dead process')
    options.fleet.onLeaseLost = (event) => {
      logger.error({ kind: 'fleet', ...event }, 'fleet lease lapsed and other processes adopted sessions of this one: stopping')
      stopOnOwn('fleet lease lost')
    }
  }
  logQueueTransitions(options, logger)
  options.onWebhookAttempt = (attempt) => logger[attempt.ok ? 'info' : 'warn']({ kind: 'webhook', ...attempt }, attempt.ok ? 'webhook delivered' : 'webhook attempt failed')
  const gateway = createGatewayServer(options)
  metrics = gateway.metrics
  attachAccessLog(gateway.server, logger)
  keepConnectionsAlive(gateway.server, config.listen.keepAliveTimeoutMs)
  logSessionLifecycle(gateway, logger)
  const { port, url } = await gateway.listen(overrides.port ?? config.listen.port, overrides.host ?? config.listen.host)
  logger.info({ kind: 'lifecycle', url, profiles: (config.profiles ?? []).map((p) => p.name) }, 'gateway listening')
  const metricsAddress = gateway.metricsAddress()
  if (metricsAddress) logger.info({ kind: 'lifecycle', url: metricsAddress.url }, 'metrics listening')
  // Lines are buffered (logger.ts); a supervisor waiting for "gateway listening" sees it at once.
  logger.flush()
  // One reload at a time; a change while one runs is read by a second pass after it.
  let reloading: Promise<void> | undefined
  let again = false
  const reloadPrincipals = async (why: string): Promise<void> => {
    if (!principals) return
    if (reloading) {
      again = true
      return reloading
    }
    reloading = (async () => {
      do {
        again = false
        const result = await principals.reload()
        if (!result.ok) {
          logger.warn({ kind: 'auth', why, error: result.error }, 'principals file not reloaded; the previous principals stay in force')
          continue
        }
        const closed = await gateway.reauthenticateSockets()
        logger.info({ kind: 'auth', why, principals: result.count, socketsClosed: closed }, 'principals reloaded')
      } while (again)
    })().finally(() => { reloading = undefined })
    return reloading
  }
  const stopWatching = principals?.watch(() => void reloadPrincipals('file changed'))
  const graceMs = config.shutdown?.graceMs ?? 10_000
  const killGraceMs = config.shutdown?.killGraceMs ?? 5000
  let stopping: Promise<void> | undefined
  return {
    gateway, url, port, logger, config, reloadPrincipals, mustStop,
    shutdown() {
      stopWatching?.()
      stopping ??= (async () => {
        logger.info({ kind: 'lifecycle', graceMs }, 'shutting down')
        const { busy } = await gateway.shutdown({ graceMs })
        if (busy.length) logger.warn({ kind: 'lifecycle', graceMs, busy }, 'grace ended with turns running')
        else logger.info({ kind: 'lifecycle', busy }, 'turns drained')
        // The sessions are closed, so their CLIs have end of input; whatever still runs is ended.
        await engineProcesses.endAll({ graceMs: Math.min(graceMs, 2000), killGraceMs })
        // Parks and snapshots are written by now: the shared database's pools may close.
        await Promise.allSettled(closers.map((close) => close()))
        logger.info({ kind: 'lifecycle' }, 'stopped')
      })()
      return stopping
    },
  }
}

/**
 * The command's process: first SIGTERM/SIGINT drains and exits 0; a second exits at once. Given
 * the starting gateway (a promise), a signal that arrives while it starts waits for it to listen,
 * then drains; a start that fails exits through the command's own error path.
 */
export function exitOnSignals(starting: RunningGateway | Promise<RunningGateway>): void {
  let signalled = false
  // The log's buffer is written before the process ends, so no line of the drain is lost; a
  // second signal asks to exit at once, so it writes only what is buffered, synchronously.
  const exit = async (running: RunningGateway | undefined, code: number, atOnce = false) => {
    if (running && atOnce) flushLogSync(running.logger)
    else if (running) await flushLog(running.logger)
    process.exit(code)
  }
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      void Promise.resolve(starting).then((running) => {
        running.logger.warn({ kind: 'lifecycle', signal }, 'second signal: exiting now')
        void exit(running, 1, true)
      }, () => void exit(undefined, 1))
      return
    }
    signalled = true
    Promise.resolve(starting).then((running) => {
      running.logger.info({ kind: 'lifecycle', signal }, 'signal received')
      running.shutdown().then(() => exit(running, 0), (err) => {
        running.logger.error({ kind: 'lifecycle', err }, 'shutdown failed')
        return exit(running, 1)
      })
    }, () => {}) // a failed start is reported (and exits) where it is awaited
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
  // A stop the process decided itself (fleet lease lost) drains like a signal, then exits 1.
  void Promise.resolve(starting).then((running) => running.mustStop.then(() => {
    if (signalled) return
    signalled = true
    running.shutdown().then(() => exit(running, 1), () => exit(running, 1))
  }), () => {})
  // SIGHUP: read the principals file again (revocation without a restart), never a stop.
  process.on('SIGHUP', () => void Promise.resolve(starting).then((running) => running.reloadPrincipals('SIGHUP'), () => {}))
}

/**
 * listen.keepAliveTimeoutMs. Node wants a request's headers timeout above the keep-alive timeout,
 * or a connection reused at the last moment can be cut while its request's headers arrive.
 */
function keepConnectionsAlive(server: Server, ms: number): void {
  server.keepAliveTimeout = ms
  server.headersTimeout = Math.max(server.headersTimeout, ms + 1000)
}
