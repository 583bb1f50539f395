/**
 * Out-of-band session notifications (events.24): `permission_requested`, `turn_completed`,
 * `session_error` and `session_closed` for every registry session, job runs and rebuilt sessions
 * included. Every notification goes to `onNotification`; the webhook gets those in `events`,
 * ordered per session through the shared deliverer.
 */
import { NOTIFICATION_TYPES, type NotificationType, type SessionEvent, type SessionNotification } from '../protocol/index.ts'
import type { SessionRegistry } from './registry.ts'
import { LIVE_ONLY } from './runner.ts'
import type { WebhookDeliverer } from './webhooks.ts'

export interface NotificationOptions {
  webhook?: { url: string; headers?: Record<string, string>; events?: NotificationType[] }
  onNotification?: (notification: SessionNotification) => void
  attempts?: number
  retryDelayMs?: number
}

export const NOTIFICATION_DEFAULTS = { attempts: 3, retryDelayMs: 500 } as const
const PREVIEW_CHARS = 200

export function attachNotifier(registry: SessionRegistry, options: NotificationOptions, deliverer: WebhookDeliverer): void {
  const events = new Set<NotificationType>(options.webhook?.events ?? NOTIFICATION_TYPES)
  registry.onRegister((runner) => {
    // From the runner's current seq, so a rebuilt session does not re-announce its history.
    runner.subscribe((event) => {
      const body = notificationBody(event)
      if (!body) return
      // One microtask later, so the snapshot shows the state the event left (a closed session is closed).
      queueMicrotask(() => {
        const notification: SessionNotification = { ...body, sessionId: runner.id, seq: event.seq, ts: event.ts, session: runner.info() }
        try { options.onNotification?.(notification) } catch { /* an observer never breaks a session */ }
        if (options.webhook && events.has(notification.type)) deliverer.deliver(`session:${runner.id}`, options.webhook, notification)
      })
    }, LIVE_ONLY)
  })
}

type Body = Omit<SessionNotification, 'sessionId' | 'seq' | 'ts' | 'session'>

function notificationBody(event: SessionEvent): Body | undefined {
  switch (event.type) {
    case 'permission_requested':
      return { type: 'permission_requested', preview: oneLine(event.request.title ?? event.request.toolName), request: event.request }
    case 'turn_result':
      return {
        type: 'turn_completed',
        preview: oneLine(event.isError ? (event.errors ?? [event.subtype]).join(' ') : event.result ?? ''),
        result: { isError: event.isError, durationMs: event.durationMs, numTurns: event.numTurns, totalCostUsd: event.totalCostUsd },
      }
    case 'session_error':
      return { type: 'session_error', preview: oneLine(event.message) }
    case 'session_closed':
      return { type: 'session_closed', preview: `session closed (${event.reason})`, reason: event.reason }
    default:
      return undefined
  }
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS - 1)}…` : line
}
