/**
 * Pending approvals of one session (permission-request.*): each request is resolved exactly once,
 * by a client (WS or REST, both `client`), the approval timeout, or a policy; a second answer finds nothing (404).
 * `permission_requested` and `permission_resolved` are state events, so they always replay.
 */
import type { PermissionRequest, ResolvedBy, SessionEventBody } from '../../protocol/index.ts'
import type { PermissionDecision } from '../../sessions/runner.ts'

export interface Settled extends PermissionDecision {
  resolvedBy: ResolvedBy
}

/** The message of a deny that gave none (protocol 7's default). */
export const DEFAULT_DENY_MESSAGE = 'Denied'

interface Pending {
  resolve: (settled: Settled) => void
  timer?: ReturnType<typeof setTimeout>
}

export class Approvals {
  #pending = new Map<string, Pending>()
  #emit: (body: SessionEventBody) => void
  #timeoutMs: number | null

  constructor(emit: (body: SessionEventBody) => void, timeoutMs: number | null | undefined) {
    this.#emit = emit
    // null, 0 or omitted waits for the session's lifetime (server-configuration: approvalTimeoutMs).
    this.#timeoutMs = timeoutMs ? timeoutMs : null
  }

  get size(): number {
    return this.#pending.size
  }

  ask(request: PermissionRequest, signal?: AbortSignal): Promise<Settled> {
    return new Promise((resolve) => {
      const pending: Pending = { resolve }
      this.#pending.set(request.id, pending)
      // Protocol 7 tells clients when the timeout policy will answer for them.
      this.#emit({ type: 'permission_requested', request: this.#timeoutMs === null ? request : { ...request, expiresAt: Date.now() + this.#timeoutMs } })
      if (this.#timeoutMs !== null) {
        pending.timer = setTimeout(() => this.resolve(request.id, { behavior: 'deny', message: 'No answer before the approval timeout' }, 'timeout'), this.#timeoutMs)
      }
      signal?.addEventListener('abort', () => this.resolve(request.id, { behavior: 'deny', message: 'The request was withdrawn' }, 'policy'), { once: true })
    })
  }

  /** False for an unknown, already resolved or expired request. */
  resolve(requestId: string, decision: PermissionDecision, resolvedBy: ResolvedBy): boolean {
    const pending = this.#pending.get(requestId)
    if (!pending) return false
    this.#pending.delete(requestId)
    clearTimeout(pending.timer)
    // A deny always carries a message, as protocol 7's permission_resolved does ('Denied' when the
    // answer gave none); the engine is told the same words the transcript shows.
    const settled: Settled = decision.behavior === 'deny' ? { ...decision, message: decision.message || DEFAULT_DENY_MESSAGE, resolvedBy } : { ...decision, resolvedBy }
    this.#emit({ type: 'permission_resolved', requestId, behavior: settled.behavior, resolvedBy, ...(settled.behavior === 'deny' ? { message: settled.message } : {}) })
    pending.resolve(settled)
    return true
  }

  denyAll(message: string): void {
    for (const requestId of [...this.#pending.keys()]) this.resolve(requestId, { behavior: 'deny', message }, 'policy')
  }
}
