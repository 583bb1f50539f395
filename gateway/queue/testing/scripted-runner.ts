/** A runner the queue's tests drive by hand, on the real SessionCore (numbering, status, log). */
import type { CreateSessionRequest, JobEvent } from '../../protocol/index.ts'
import type { Runner } from '../../sessions/runner.ts'
import { SessionCore } from '../../sessions/session-core.ts'
import type { WebhookDeliverer } from '../../sessions/webhooks.ts'
import { JobQueue } from '../job-queue.ts'
import type { QueueOptions } from '../options.ts'

export class ScriptedRunner {
  core: SessionCore
  readonly id: string
  readonly jobId: string

  constructor(id: string, jobId: string) {
    this.id = id
    this.jobId = jobId
    this.core = new SessionCore({ id, profile: 'p', engine: 'provider', permissionMode: 'default', canBypassPermissions: false, createdAt: 0 })
  }

  finish(isError = false, usage?: { input_tokens: number; output_tokens: number }): void {
    this.core.emit({ type: 'turn_result', subtype: isError ? 'error' : 'success', isError, durationMs: 1, numTurns: 1, totalCostUsd: 0, ...(usage ? { usage } : {}) })
  }

  runner(): Runner {
    const core = this.core
    return {
      id: this.id, start: async () => {}, info: () => core.info(), subscribe: (l, a) => core.subscribe(l, a),
      sendMessage: () => {}, setTitle: () => {}, resolvePermission: () => false, interrupt: () => {},
      setPermissionMode: () => {}, setModel: () => {}, fail: () => {},
      close: (reason = 'client') => { if (!core.closed) { core.emit({ type: 'session_closed', reason }); core.setStatus('closed') } },
    }
  }
}

/**
 * A JobQueue whose every job session is a ScriptedRunner (in `runners`, in start order) and whose
 * events are recorded in `events`; webhooks go nowhere. `onSession` sees each runner as its
 * session is started (before the queue has it: one that finishes there ends at once).
 */
export function scriptedJobQueue(options: QueueOptions, now?: () => number, onSession?: (runner: ScriptedRunner, request: CreateSessionRequest) => void) {
  const runners: ScriptedRunner[] = []
  const events: JobEvent[] = []
  let n = 0
  const queue = new JobQueue(options, {
    now,
    deliverer: { deliver: () => {} } as unknown as WebhookDeliverer,
    async startSession(request: CreateSessionRequest) {
      const r = new ScriptedRunner(`s${++n}`, String(request.meta?.jobId))
      runners.push(r)
      onSession?.(r, request)
      return r.runner()
    },
  })
  queue.subscribe((e) => events.push(e))
  return { queue, runners, events }
}
