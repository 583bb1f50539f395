/**
 * Which session owns each deferred execution id, split out of parking.ts: open ids
 * with their deadline watchdogs, ids settled here (their duplicates answer `applied: false`), and
 * the claim of a fresh id for a deferred tool call. No store writes happen here; the watchdog
 * delivers its timeout through the callback the parking manager gives (its usual result path).
 */
import type { ExecutionOutcome } from './runner.ts'
import type { SessionStore } from './session-store.ts'

export class ExecutionIndex {
  #owners = new Map<string, string>()
  #settled = new Map<string, string>()
  #deadlines = new Map<string, ReturnType<typeof setTimeout>>()
  #store: SessionStore
  #isClosed: () => boolean
  #onDeadline: (executionId: string, outcome: ExecutionOutcome) => void

  constructor(store: SessionStore, isClosed: () => boolean, onDeadline: (executionId: string, outcome: ExecutionOutcome) => void) {
    this.#store = store
    this.#isClosed = isClosed
    this.#onDeadline = onDeadline
  }

  /**
   * The execution id a deferred tool call of `sessionId` gets. Protocol 7 uses the tool call's own
   * id, but tool-call ids are only unique within a conversation (a model may repeat one, and two
   * sessions' models may mint the same), while results are looked up by id across every session.
   * So an id this gateway already knows (open or settled here, or parked or settled by any process
   * sharing the store) is refused and the first free `<id>-2`, `<id>-3`, … is used instead. The id is
   * reserved for the session at once, so two sessions claiming the same id cannot both get it.
   */
  async claim(sessionId: string, toolCallId: string): Promise<string> {
    for (let n = 1; ; n++) {
      const id = n === 1 ? toolCallId : `${toolCallId}-${n}`
      if (this.#owners.has(id) || this.#settled.has(id)) continue
      this.#owners.set(id, sessionId)
      const stored = this.#store.findByExecution && !this.#isClosed() ? await this.#store.findByExecution(id).catch(() => undefined) : undefined
      // Settled anywhere in the fleet counts as known too: its duplicates answer for that session.
      const settled = stored === undefined && this.#store.findSettled && !this.#isClosed() ? await this.#store.findSettled(id).catch(() => undefined) : undefined
      if (stored === undefined && settled === undefined) return id
      // Another session's park holds it: give the reservation back and try the next suffix.
      if (this.#owners.get(id) === sessionId) this.#owners.delete(id)
    }
  }

  /** The session of an open execution id (undefined once settled or unknown). */
  openOwner(executionId: string): string | undefined {
    return this.#owners.get(executionId)
  }

  /** The session of an execution id settled here. */
  settledOwner(executionId: string): string | undefined {
    return this.#settled.get(executionId)
  }

  /** The first open execution id of a session (what a park is recorded against). */
  firstOpenOf(sessionId: string): string | undefined {
    return [...this.#owners].find(([, owner]) => owner === sessionId)?.[0]
  }

  hasDeadline(executionId: string): boolean {
    return this.#deadlines.has(executionId)
  }

  /** Indexes an open execution and arms its watchdog (none after shutdown or when already armed). */
  track(executionId: string, sessionId: string, toolName: string, expiresAt: number | undefined): void {
    this.#owners.set(executionId, sessionId)
    if (expiresAt === undefined || this.#deadlines.has(executionId) || this.#isClosed()) return
    const fire = () => {
      this.#deadlines.delete(executionId)
      const outcome: ExecutionOutcome = { status: 'failed', reason: 'timeout', error: `deferred execution '${toolName}' produced no result before its deadline` }
      this.#onDeadline(executionId, outcome)
    }
    // setTimeout holds at most ~24.8 days; longer deadlines re-arm on the next process start.
    const delay = Math.max(0, expiresAt - Date.now())
    if (delay < 2 ** 31 - 1) this.#deadlines.set(executionId, setTimeout(fire, delay))
  }

  /** The execution's result was applied: it moves to settled (duplicates still find its session). */
  settle(executionId: string): void {
    const owner = this.#owners.get(executionId)
    if (!owner) return
    this.#owners.delete(executionId)
    this.#settled.set(executionId, owner)
    this.clearDeadline(executionId)
  }

  /**
   * Not woken here (another process took the park, or it is not there yet): dropped without
   * recording it settled, so a retry can still deliver it.
   */
  release(executionId: string): void {
    this.#owners.delete(executionId)
    this.clearDeadline(executionId)
  }

  clearDeadline(executionId: string): void {
    clearTimeout(this.#deadlines.get(executionId))
    this.#deadlines.delete(executionId)
  }

  /** A discarded session: every id it owned, open or settled, is forgotten with its watchdog. */
  forgetSession(sessionId: string): void {
    for (const [executionId, owner] of [...this.#owners, ...this.#settled]) {
      if (owner !== sessionId) continue
      this.#owners.delete(executionId)
      this.#settled.delete(executionId)
      this.clearDeadline(executionId)
    }
  }

  /** Shutdown: watchdogs stop (their deadlines re-arm from the store on the next start). */
  stopTimers(): void {
    for (const t of this.#deadlines.values()) clearTimeout(t)
    this.#deadlines.clear()
  }
}
