/**
 * One app-server turn in play: the items it completed, the last tool result a later text quotes,
 * the usage it reports, and the notifications and server requests every step sends through
 * (reference §6-§8). An interrupt anywhere surfaces as `Interrupted`.
 */
import { forget, notify, request } from './wire.ts'

export interface TurnSettings {
  /** `readOnly` | `workspaceWrite` | `dangerFullAccess` */
  sandbox: string
  approvalPolicy: unknown
  approvalsReviewer: string
}

export interface TurnHost {
  threadId: string
  turnId: string
  cwd: string
  settings: TurnSettings
  /** The model this turn runs on: the one turn/start (or an earlier turn/start, thread/start) named. */
  model?: string
  signal: AbortSignal
  /** Server requests still unanswered: interrupt settles them with `serverRequest/resolved`. */
  pending: Set<number>
}

export interface TurnEnd {
  status: 'completed' | 'interrupted' | 'failed'
  items: Record<string, unknown>[]
  error: { message: string } | null
}

export interface TokenUsage { input: number; output: number; cacheRead: number; cacheCreation: number }

export class Interrupted extends Error {}

export class TurnState {
  readonly host: TurnHost
  readonly base: { threadId: string; turnId: string }
  readonly items: Record<string, unknown>[] = []
  /** What the last tool call answered; a later text step may quote it. */
  toolResult = ''
  usage: TokenUsage | undefined
  /** Whether the thread's policy lets this turn ask the client at all. */
  readonly mayAsk: boolean
  #n = 0
  #message: { id: string; text: string } | undefined

  constructor(host: TurnHost) {
    this.host = host
    this.base = { threadId: host.threadId, turnId: host.turnId }
    this.mayAsk = host.settings.approvalPolicy !== 'never' && host.settings.sandbox !== 'dangerFullAccess'
  }

  /** The turn's running item number: `msg_1`, `call_2`, ... */
  nextNumber(): number {
    return ++this.#n
  }

  /** Waits `ms` (forever when undefined); an interrupt rejects with Interrupted. */
  pause(ms: number | undefined): Promise<void> {
    const { signal } = this.host
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(new Interrupted())
      const timer = ms === undefined ? undefined : setTimeout(resolve, ms)
      signal.addEventListener('abort', () => { clearTimeout(timer); reject(new Interrupted()) }, { once: true })
    })
  }

  started(item: Record<string, unknown>): void {
    notify('item/started', { ...this.base, item, startedAtMs: Date.now() })
  }

  completed(item: Record<string, unknown>): void {
    this.items.push(item)
    notify('item/completed', { ...this.base, item, completedAtMs: Date.now() })
  }

  /**
   * The agentMessage being written, started on first use. Adjacent text steps are one message in
   * several deltas, as a model writes one answer (and as the fake Responses API and the provider
   * fake play them): `hello` is "Hello, world!".
   */
  openMessage(): { id: string; text: string } {
    if (!this.#message) {
      this.#message = { id: `msg_${this.nextNumber()}`, text: '' }
      this.started({ type: 'agentMessage', id: this.#message.id, text: '', phase: null })
    }
    return this.#message
  }

  /** Completes the agentMessage being written, if any. */
  endMessage(): void {
    if (this.#message) this.completed({ type: 'agentMessage', id: this.#message.id, text: this.#message.text, phase: null })
    this.#message = undefined
  }

  /** Asks the client and returns its answer; an interrupt while asking ends the turn. */
  async askFor(method: string, params: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
    const { host } = this
    const { id, answer } = request(method, { ...this.base, ...params, startedAtMs: Date.now() })
    host.pending.add(id)
    const result = await Promise.race([answer, this.pause(undefined).then(() => undefined)]).catch(() => undefined)
    // Interrupted: the request stays pending; the turn's end settles it after turn/completed.
    if (host.signal.aborted) {
      forget(id)
      throw new Interrupted()
    }
    host.pending.delete(id)
    notify('serverRequest/resolved', { threadId: host.threadId, requestId: id })
    return result as Record<string, unknown> | undefined
  }

  /** An approval request: the client's decision, `decline` when it gave none. */
  async ask(method: string, params: Record<string, unknown>): Promise<string> {
    const decision = (await this.askFor(method, params))?.decision
    return typeof decision === 'string' ? decision : 'decline'
  }

  /** `auto_review`: codex's own reviewer decides; no server request (reference §8). */
  review(itemId: string, action: Record<string, unknown>): void {
    const reviewId = `review_${itemId}`
    const { base } = this
    notify('item/autoApprovalReview/started', { ...base, reviewId, targetItemId: itemId, review: { status: 'inProgress', riskLevel: null, rationale: null }, action })
    notify('item/autoApprovalReview/completed', { ...base, reviewId, targetItemId: itemId, review: { status: 'approved', riskLevel: 'low', rationale: 'fake reviewer approves' }, action })
  }
}
