/** Queue options (queue-options.*) with the spec's defaults. */
import type { JobEvent } from '../protocol/index.ts'
import type { QueueAdapter } from './adapter.ts'

export interface QueueOptions {
  maxConcurrency?: number
  sessionTokenLimit?: number
  dailyTokenLimit?: number
  maxJobDurationMs?: number
  maxParkedDurationMs?: number
  killGraceMs?: number
  retention?: { maxAgeMs: number; sweepIntervalMs?: number }
  adapter?: QueueAdapter
  webhookAttempts?: number
  webhookRetryDelayMs?: number
  /**
   * One webhook attempt's timeout (default 10 000 ms). With a queue adapter that records events
   * (PostgreSQL) a delivery's claim lasts this plus 5 s: an event whose deliverer died goes out
   * from another process after that.
   */
  webhookTimeoutMs?: number
  onEvent?: (event: JobEvent) => void
}

export const QUEUE_DEFAULTS = {
  maxConcurrency: 1,
  killGraceMs: 5000,
  retryDelayMs: 5000,
  webhookAttempts: 3,
  webhookRetryDelayMs: 500,
} as const
