/**
 * Gateway permission modes on codex's three wire settings (reference §8). The sandbox and the
 * approval policy are stated twice: strings on thread/start and thread/resume, objects on
 * turn/start. `auto` maps to codex's own reviewer (`approvalsReviewer: auto_review`).
 */
import type { PermissionMode } from '../../protocol/index.ts'

export interface WireMode {
  /** thread/start, thread/resume */
  sandbox: 'read-only' | 'workspace-write' | 'danger-full-access'
  /** turn/start */
  sandboxPolicy: { type: 'readOnly' | 'workspaceWrite' | 'dangerFullAccess' }
  approvalPolicy: 'on-request' | 'never'
  approvalsReviewer: 'user' | 'auto_review'
}

const READ_ONLY = { sandbox: 'read-only', sandboxPolicy: { type: 'readOnly' } } as const
const WORKSPACE = { sandbox: 'workspace-write', sandboxPolicy: { type: 'workspaceWrite' } } as const

export function wireMode(mode: PermissionMode): WireMode {
  switch (mode) {
    case 'acceptEdits':
      return { ...WORKSPACE, approvalPolicy: 'on-request', approvalsReviewer: 'user' }
    case 'bypassPermissions':
      return { sandbox: 'danger-full-access', sandboxPolicy: { type: 'dangerFullAccess' }, approvalPolicy: 'never', approvalsReviewer: 'user' }
    case 'auto':
      return { ...WORKSPACE, approvalPolicy: 'on-request', approvalsReviewer: 'auto_review' }
    default:
      // `default` (and anything the capability record already refused) asks: 0.169's string policy does (reference §0).
      return { ...READ_ONLY, approvalPolicy: 'on-request', approvalsReviewer: 'user' }
  }
}

export function threadSettings(mode: PermissionMode): Record<string, unknown> {
  const w = wireMode(mode)
  return { sandbox: w.sandbox, approvalPolicy: w.approvalPolicy, approvalsReviewer: w.approvalsReviewer }
}

export function turnSettings(mode: PermissionMode): Record<string, unknown> {
  const w = wireMode(mode)
  return { sandboxPolicy: w.sandboxPolicy, approvalPolicy: w.approvalPolicy, approvalsReviewer: w.approvalsReviewer }
}
