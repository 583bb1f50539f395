/** Out-of-band session notifications (events.24, other-shapes.4). */
import type { PermissionRequest, SessionClosedReason } from './events.ts'
import type { SessionInfo } from './session.ts'

export const NOTIFICATION_TYPES = ['permission_requested', 'turn_completed', 'session_error', 'session_closed'] as const
export type NotificationType = (typeof NOTIFICATION_TYPES)[number]

export interface SessionNotification {
  type: NotificationType
  sessionId: string
  seq: number
  ts: number
  /** One line. */
  preview: string
  session: SessionInfo
  request?: PermissionRequest
  result?: { isError: boolean; durationMs: number; numTurns: number; totalCostUsd: number }
  reason?: SessionClosedReason
}
