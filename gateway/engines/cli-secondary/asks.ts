/**
 * Codex's server requests as the session answers them (reference §7): mapped to a permission
 * request (server-requests.ts), settled by `questionBehavior` when it is a question and a policy
 * is set, else asked of the client with the session `awaiting_approval`. Remembers which gateway
 * request answers which codex request, so codex's own `serverRequest/resolved` retires the card.
 */
import { randomUUID } from 'node:crypto'
import { settleQuestionByPolicy } from '../questions.ts'
import type { TurnMachinery } from '../turn-machinery.ts'
import type { Approvals, Settled } from '../cli-primary/approvals.ts'
import type { Json } from './peer.ts'
import { mapServerRequest, type Ask } from './server-requests.ts'
import type { Turn } from './turn.ts'

export interface AskHost {
  turns: TurnMachinery
  questionBehavior: unknown
  currentTurn(): Turn | undefined
  interrupt(): void
}

export class CodexAsks {
  /** Codex server request id → gateway request id. */
  readonly #asked = new Map<string, string>()
  readonly #host: AskHost

  constructor(host: AskHost) {
    this.#host = host
  }

  async answer(method: string, params: Json, serverId: number | string): Promise<unknown> {
    const host = this.#host
    const mapped = mapServerRequest(method, params, host.currentTurn())
    // Every other server request is answered, so nothing hangs (reference §3).
    if (!mapped) throw new Error(`the gateway does not handle ${method}`)
    const behavior = host.questionBehavior
    if (mapped.questions && (behavior === 'auto' || behavior === 'deny')) {
      const request = { id: randomUUID(), requestId: '', ...mapped.ask }
      request.requestId = request.id
      const answer = settleQuestionByPolicy((body) => host.turns.emit(body), request, behavior, mapped.questions)
      return mapped.answer(answer.behavior === 'allow' ? { behavior: 'allow', updatedInput: { answers: answer.answers }, resolvedBy: 'policy' } : { ...answer, resolvedBy: 'policy' }, () => host.interrupt())
    }
    return mapped.answer(await this.#ask(serverId, mapped.ask), () => host.interrupt())
  }

  /** Codex settled a request itself (interrupt): retire the card (reference §7). */
  withdrawn(serverId: unknown): void {
    const requestId = this.#asked.get(String(serverId))
    if (requestId) this.#host.turns.approvals?.resolve(requestId, { behavior: 'deny', message: 'codex withdrew the request' }, 'policy')
  }

  async #ask(serverId: number | string, request: Ask): Promise<Settled> {
    const { turns } = this.#host
    const requestId = randomUUID()
    this.#asked.set(String(serverId), requestId)
    turns.core.setStatus('awaiting_approval')
    try {
      return await (turns.approvals as Approvals).ask({ id: requestId, requestId, ...request })
    } finally {
      this.#asked.delete(String(serverId))
      if (!turns.closed && turns.unasked) turns.core.setStatus(this.#host.currentTurn() ? 'running' : 'idle')
    }
  }
}
