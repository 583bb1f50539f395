/**
 * The soak's black-box observers: a webhook receiver recording every job
 * event as it arrives, and a `/queue/ws` watcher per gateway process checking what that process
 * streams: a job's events in their recorded order (seq) and fleet-wide stats within the limit.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import WebSocket from 'ws'
import type { ReceivedEvent } from './webhook-stream.ts'

export interface WebhookReceiver {
  url: string
  /** Per job, every webhook in arrival order. */
  events: Map<string, ReceivedEvent[]>
  close(): Promise<void>
}

/** `onEvent` sees each event's raw body once received (the soak answers job_parked from it). */
export async function startWebhookReceiver(onEvent: (event: { jobId: string; type: string; executionId?: string; ts?: number; job?: { parkedAt?: number } }) => void): Promise<WebhookReceiver> {
  const events = new Map<string, ReceivedEvent[]>()
  const server = createServer((req, res) => {
    let text = ''
    req.on('data', (c) => { text += c })
    req.on('end', () => {
      res.end()
      const event = JSON.parse(text) as { jobId: string; type: string; seq?: number; executionId?: string; ts?: number; job: { attempt: number; error?: string; parkedAt?: number } }
      const list = events.get(event.jobId) ?? []
      list.push({ type: event.type, seq: event.seq, attempt: event.job.attempt, ...(event.job.error !== undefined ? { error: event.job.error } : {}) })
      events.set(event.jobId, list)
      onEvent(event)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    events,
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((r) => server.close(() => r()))
    },
  }
}

export interface QueueWatcher {
  workerId: string
  /** job_event frames received. */
  events: number
  statsFrames: number
  violations: string[]
  close(): void
}

/**
 * Watches one process's queue socket. A process streams every job's events of the fleet
 * (job-status.2): per job their seq only grows, and each queue_stats counts the fleet, never
 * above maxConcurrency running.
 */
export function watchQueue(workerId: string, baseUrl: string, token: string, maxConcurrency: number): QueueWatcher {
  const lastSeq = new Map<string, number>()
  const watcher: QueueWatcher = { workerId, events: 0, statsFrames: 0, violations: [], close: () => ws.terminate() }
  const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/queue/ws`, { headers: { authorization: `Bearer ${token}` } })
  ws.on('error', () => { /* the process was killed: its socket ends */ })
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data)) as { type: string; event?: { jobId: string; type: string; seq?: number }; stats?: { running: number; parked: number; queued: number } }
    if (frame.type === 'job_event' && frame.event) {
      watcher.events++
      const { jobId, seq, type } = frame.event
      if (type === 'job_submitted') return // not numbered
      if (typeof seq !== 'number') return void watcher.violations.push(`${workerId} /queue/ws: ${type} of job ${jobId} without seq`)
      const before = lastSeq.get(jobId) ?? 0
      if (seq <= before) watcher.violations.push(`${workerId} /queue/ws: job ${jobId} ${type} #${seq} after #${before}`)
      lastSeq.set(jobId, Math.max(before, seq))
    } else if (frame.stats) {
      watcher.statsFrames++
      const { running, parked, queued } = frame.stats
      if (running > maxConcurrency) watcher.violations.push(`${workerId} /queue/ws: queue_stats running ${running} > maxConcurrency ${maxConcurrency}`)
      if (running < 0 || parked < 0 || queued < 0) watcher.violations.push(`${workerId} /queue/ws: negative queue_stats ${JSON.stringify(frame.stats)}`)
    }
  })
  return watcher
}
