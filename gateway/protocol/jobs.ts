/** Job queue shapes (other-shapes.5-6, job-status.*, queue-options.*). */
import type { CreateSessionRequest, Scope } from './session.ts'
import type { PermissionRequest } from './events.ts'

export const JOB_STATUSES = ['queued', 'running', 'parked', 'succeeded', 'failed', 'canceled'] as const
export type JobStatus = (typeof JOB_STATUSES)[number]
export const TERMINAL_JOB_STATUSES: readonly JobStatus[] = ['succeeded', 'failed', 'canceled']

export interface JobWebhook {
  url: string
  headers?: Record<string, string>
  /** `'completion'` quiets `job_progress` deliveries; `'messages'` (protocol 7's default name) or absent delivers them. */
  progress?: 'messages' | 'completion'
}

export interface CreateJobRequest {
  session: CreateSessionRequest & { cwd: string; prompt: string }
  webhook?: JobWebhook
  attempts?: number
  retryDelayMs?: number
  maxTokens?: number
  maxDurationMs?: number
  meta?: Record<string, unknown>
}

export interface JobUsage { tokens: number; totalCostUsd: number; numTurns: number }
export interface JobResult { subtype: string; isError: boolean; result?: string; errors?: string[]; durationMs: number }

export interface JobInfo {
  id: string
  status: JobStatus
  cwd: string
  profile?: string
  prompt: string
  sessionId?: string
  sdkSessionId?: string
  createdAt: number
  startedAt?: number
  finishedAt?: number
  attempt: number
  maxAttempts: number
  nextRunAt?: number
  parkedAt?: number
  parkedExecutionId?: string
  usage: JobUsage
  result?: JobResult
  error?: string
  meta?: Record<string, unknown>
  scope?: Scope
}

export interface JobProgress {
  kind: 'assistant_text' | 'tool_use' | 'permission_requested' | 'permission_resolved'
  preview: string
  request?: PermissionRequest
}

export type JobEventBody =
  | { type: 'job_submitted' }
  | { type: 'job_started' }
  | { type: 'job_progress'; progress: JobProgress }
  | { type: 'job_parked'; executionId: string }
  | { type: 'job_resumed'; executionId?: string }
  | { type: 'job_retrying'; nextRunAt: number; error?: string }
  | { type: 'job_completed' }

/**
 * `seq`: the event's number among its job's events, from 1, when the queue records its events in
 * a shared store (PostgreSQL): job webhooks are delivered at least once and in `seq`
 * order per job, so a receiver drops an event whose (jobId, seq) it has already seen.
 */
export type JobEvent = JobEventBody & { jobId: string; job: JobInfo; ts: number; seq?: number }

export interface QueueStats {
  maxConcurrency: number
  running: number
  queued: number
  parked: number
  sessionTokenLimit?: number
  dailyTokenLimit?: number
  dailyTokensUsed: number
  paused: boolean
}

export type QueueServerFrame =
  | { type: 'queue_attached'; protocolVersion: number; stats: QueueStats }
  | { type: 'job_event'; event: JobEvent }
  | { type: 'queue_stats'; stats: QueueStats }
