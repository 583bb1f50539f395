/**
 * Lifecycle lines: sessions starting, parking, waking and closing, engine errors, and every queue
 * transition. Read from the public seams (registry events, the queue's `onEvent`), so the server
 * itself stays free of logging; nothing here carries message text or tool input.
 */
import type { Logger } from 'pino'
import type { GatewayServer } from '../server/create-server.ts'
import type { GatewayServerOptions } from '../server/options.ts'

/** Wraps the queue's `onEvent` so every job transition is a line (before the server is built). */
export function logQueueTransitions(options: GatewayServerOptions, logger: Logger): void {
  if (!options.queue) return
  const host = options.queue.onEvent
  options.queue.onEvent = (event) => {
    if (event.type !== 'job_progress') {
      logger.info({ kind: 'queue', event: event.type, jobId: event.jobId, profile: event.job.profile, status: event.job.status }, `job ${event.type.replace(/^job_/, '')}`)
    }
    host?.(event)
  }
}

/** Session lines from the registry: a (re)built runner, parks, errors, closes. */
export function logSessionLifecycle(gateway: GatewayServer, logger: Logger): void {
  gateway.context.registry.onRegister((runner) => {
    const info = runner.info()
    logger.info({ kind: 'session', sessionId: runner.id, profile: info.profile, engine: info.engine, status: info.status }, info.status === 'parked' ? 'session adopted (parked)' : 'session started')
    runner.subscribe((event) => {
      if (event.type === 'status_changed' && (event.status === 'parked' || event.status === 'failed')) {
        logger.info({ kind: 'session', sessionId: runner.id, status: event.status }, `session ${event.status}`)
      } else if (event.type === 'system_init') {
        logger.info({ kind: 'engine', sessionId: runner.id, engine: info.engine }, 'engine process ready')
      } else if (event.type === 'session_error') {
        logger.warn({ kind: 'engine', sessionId: runner.id }, 'engine error')
      } else if (event.type === 'session_closed') {
        logger.info({ kind: 'session', sessionId: runner.id, reason: event.reason }, 'session closed')
      }
    }, info.lastSeq)
  })
}
