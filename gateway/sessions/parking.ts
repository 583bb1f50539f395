/**
 * Deferred execution and parking (session-status-values, engine-facts §4). Watches every session
 * built by the factory: indexes deferred executions by id, arms their watchdogs, parks a session
 * resting on them once no client is attached (after `parkDelayMs` when one just left), answers
 * results by rebuilding the session under its own id, and writes `persistLive` snapshots.
 * Every store operation for one session runs in call order, reads included, so a delivery never
 * misses a park being saved and a discard never loses to a save that would resurrect it.
 */
import type { SessionEvent, SessionInfo } from '../protocol/index.ts'
import { ParkedSession } from './parked-session.ts'
import type { SessionRegistry } from './registry.ts'
import { LIVE_ONLY, type ExecutionOutcome, type Runner, type RunnerConfig } from './runner.ts'
import type { SessionStore, StoredExecution, StoredSession } from './session-store.ts'
import { createMemorySessionStore } from './stores/memory-store.ts'
import { SEQ_RESERVATION, WriteAheadLedger } from './write-ahead.ts'

export interface ParkingOptions {
  store?: SessionStore
  /** Grace after the last client detaches before a session resting on deferred executions parks. */
  parkDelayMs?: number
  /** At boot, a deadline earlier than now + this is pushed out to it. */
  expiredGraceMs?: number
  /** Write the runner snapshot through after every turn (plaintext transcript; off by default). */
  persistLive?: boolean
  onError?: (err: unknown, where: 'park' | 'resume' | 'persist' | 'discard') => void
  /**
   * A shared store (issue 21, Deliver 4): every this often, lapsed deadlines of parks stored by
   * any process are fired here, so they never wait for their parker (maybe dead). The first
   * sweep comes `expiredGraceMs` after start, as deadlines re-armed at boot do.
   */
  deadlineSweepMs?: number
}

export const PARKING_DEFAULTS = { parkDelayMs: 2000, expiredGraceMs: 60_000, deadlineSweepMs: 1000 } as const

export interface ParkingDeps {
  registry: SessionRegistry
  attachedCount(id: string): number
  /** Builds, registers, watches and starts a runner from a stored record (the factory). */
  rebuild(record: StoredSession): Promise<Runner>
  /** The queue may veto a park, and must hand a resumed job its slot back. */
  onParking?(sessionId: string, executionId: string): Promise<boolean>
  /**
   * The park is in the store: only now may the queue record its job as parked, so a process that
   * dies in between leaves a running job whose claim lapses (retried), never a parked job with no
   * park to wake it (job-status.5, job-status.7).
   */
  onParked?(sessionId: string, executionId: string): Promise<void>
  /** The park could not be stored (the store failed): a job's attempt fails (retry rules apply). */
  onParkFailed?(sessionId: string, error: string): void
  /**
   * Resolves when the session may resume; false: another process took its job first (shared
   * store). An object: the queue resumed the job and adopted its park in one transaction (issue
   * 21) and hands over the adopted record (undefined: the park was gone; the attempt fails).
   * `jobId` is the park's own `meta.jobId`; `settledExecutionId` the result that woke it.
   */
  beforeResume?(sessionId: string, hint: { jobId?: string; settledExecutionId?: string }): Promise<boolean | void | { park: unknown }>
  /** A parked session could not be rebuilt here (its job's attempt fails). */
  onResumeFailed?(sessionId: string, error: string): void
  onResumed?(sessionId: string, runner: Runner): void
  onError(err: unknown, where: string): void
}

export interface SubmitOutcome {
  applied: boolean
  sessionId: string
}

export class ParkingManager {
  readonly store: SessionStore
  #options: ParkingOptions
  #deps: ParkingDeps
  #owners = new Map<string, string>()
  #settled = new Map<string, string>()
  #deadlines = new Map<string, ReturnType<typeof setTimeout>>()
  #detachTimers = new Map<string, ReturnType<typeof setTimeout>>()
  #configs = new Map<string, RunnerConfig>()
  #watchers = new Map<string, () => void>()
  #resuming = new Map<string, Promise<Runner | undefined>>()
  /** Parks another process stored, read for a result that reached this process; adopted on wake. */
  #foreign = new Map<string, StoredSession>()
  #ops = new Map<string, Promise<unknown>>()
  #closed = false
  #sweepTimer: ReturnType<typeof setInterval> | undefined
  #sweeping = false
  /** Live writes scheduled but not yet taken: shutdown takes them at once instead of losing them. */
  #persistPending = new Set<Runner>()
  /** Runners whose turn just ended: their snapshot is taken at the very next event (the status move). */
  #turnEnded = new Set<Runner>()
  /** The newest durable live record per session, re-saved with a larger `seqReserved` when needed. */
  #lastLive = new Map<string, StoredSession>()
  #ledger = new WriteAheadLedger((id, upTo) => void this.#reserveSeqs(id, upTo))

  constructor(options: ParkingOptions, deps: ParkingDeps) {
    this.store = options.store ?? createMemorySessionStore()
    this.#options = options
    this.#deps = deps
  }

  get #parkDelayMs(): number {
    return this.#options.parkDelayMs ?? PARKING_DEFAULTS.parkDelayMs
  }

  /** Called by the factory for every runner it builds, before `start()`; `open` are a rebuild's executions. */
  watch(runner: Runner, config: RunnerConfig, open: readonly StoredExecution[] = []): void {
    const id = runner.id
    this.#configs.set(id, config)
    this.#watchers.get(id)?.()
    const unsubscribe = runner.subscribe((event) => this.#onEvent(runner, event), LIVE_ONLY)
    this.#watchers.set(id, unsubscribe)
    for (const e of open) this.#track(e.executionId, id, e.toolName, e.expiresAt)
  }

  #onEvent(runner: Runner, event: SessionEvent): void {
    const id = runner.id
    // Synchronously at the event after turn_result (its status move): a microtask later a queued
    // message may already have started the next turn, and a snapshot then is refused (issue 14).
    if (this.#turnEnded.size && event.type !== 'turn_result' && this.#turnEnded.delete(runner)) void this.#persistLive(runner)
    switch (event.type) {
      case 'execution_dispatched':
        if (event.deferred) this.#track(event.executionId, id, event.toolName, event.expiresAt)
        break
      case 'execution_result':
      case 'execution_failed':
        this.#forget(event.executionId)
        break
      case 'status_changed':
        if (event.status === 'parked' && this.#deps.attachedCount(id) === 0) queueMicrotask(() => void this.#park(runner))
        break
      case 'turn_result':
        if (this.#options.persistLive) {
          this.#turnEnded.add(runner)
          queueMicrotask(() => { if (this.#turnEnded.delete(runner)) void this.#persistLive(runner) })
        }
        break
      case 'model_changed':
      case 'permission_mode_changed':
        // After a microtask: the turn_result is emitted inside the turn, which is still "in flight".
        if (this.#options.persistLive && !this.#persistPending.has(runner)) {
          this.#persistPending.add(runner)
          setImmediate(() => {
            if (this.#persistPending.delete(runner)) void this.#persistLive(runner)
          })
        }
        break
      case 'session_closed':
        if (!this.#closed) this.discard(id)
        break
    }
  }

  /**
   * Write-ahead (issue 14): undefined when `event` may go to a client now, else a promise to wait
   * for first. Only persistLive sessions of an engine that snapshots are ever held.
   */
  hold(runner: Runner, event: SessionEvent): Promise<void> | undefined {
    if (!this.#options.persistLive || this.#closed || !runner.snapshot) return undefined
    return this.#ledger.hold(runner.id, event)
  }

  /** A client left: a session resting on deferred executions parks after the grace (unless someone re-attached). */
  onDetach(id: string): void {
    const runner = this.#deps.registry.get(id)
    if (!runner || runner instanceof ParkedSession || runner.info().status !== 'parked') return
    clearTimeout(this.#detachTimers.get(id))
    this.#detachTimers.set(id, setTimeout(() => {
      this.#detachTimers.delete(id)
      void this.#park(runner)
    }, this.#parkDelayMs))
  }

  /**
   * The execution id a deferred tool call of `sessionId` gets. Protocol 7 uses the tool call's own
   * id, but tool-call ids are only unique within a conversation (a model may repeat one, and two
   * sessions' models may mint the same), while results are looked up by id across every session.
   * So an id this gateway already knows (open or settled here, or parked or settled by any process
   * sharing the store) is refused and the first free `<id>-2`, `<id>-3`, … is used instead. The id is
   * reserved for the session at once, so two sessions claiming the same id cannot both get it.
   */
  async claimExecutionId(sessionId: string, toolCallId: string): Promise<string> {
    for (let n = 1; ; n++) {
      const id = n === 1 ? toolCallId : `${toolCallId}-${n}`
      if (this.#owners.has(id) || this.#settled.has(id)) continue
      this.#owners.set(id, sessionId)
      const stored = this.store.findByExecution && !this.#closed ? await this.store.findByExecution(id).catch(() => undefined) : undefined
      // Settled anywhere in the fleet (issue 21) counts as known too: its duplicates answer for that session.
      const settled = stored === undefined && this.store.findSettled && !this.#closed ? await this.store.findSettled(id).catch(() => undefined) : undefined
      if (stored === undefined && settled === undefined) return id
      // Another session's park holds it: give the reservation back and try the next suffix.
      if (this.#owners.get(id) === sessionId) this.#owners.delete(id)
    }
  }

  /** The owning session of an execution id this process knows (open or settled). */
  ownerOf(executionId: string): string | undefined {
    return this.#owners.get(executionId) ?? this.#settled.get(executionId)
  }

  /**
   * The session an execution result is for, as the route checks visibility on it: known here, or
   * (shared store) parked by another process, read without taking it.
   */
  async sessionOfExecution(executionId: string): Promise<SessionInfo | undefined> {
    const owner = this.ownerOf(executionId)
    if (owner) return this.#deps.registry.info(owner)
    if (!this.store.findByExecution || this.#closed) return undefined
    const sessionId = await this.store.findByExecution(executionId)
    if (sessionId) {
      const row = this.#deps.registry.get(sessionId)
      if (row && !(row instanceof ParkedSession)) return row.info()
      const info = (await this.#serial(sessionId, () => this.store.load(sessionId)))?.info
      if (info) return info
    }
    // Settled anywhere in the fleet (its park adopted, its result applied): a duplicate.
    return this.store.findSettled?.(executionId)
  }

  isParked(id: string): boolean {
    return this.#deps.registry.get(id) instanceof ParkedSession
  }

  /** The live runner, waking a parked or not-yet-rebuilt session; undefined when it is gone. */
  async ensureLive(id: string, settledExecutionId?: string): Promise<Runner | undefined> {
    const current = this.#deps.registry.get(id)
    if (!(current instanceof ParkedSession)) return current
    let pending = this.#resuming.get(id)
    if (!pending) {
      pending = this.#resume(id, settledExecutionId).finally(() => this.#resuming.delete(id))
      this.#resuming.set(id, pending)
    }
    return pending
  }

  async #resume(id: string, settledExecutionId: string | undefined): Promise<Runner | undefined> {
    const peek = this.#foreign.get(id) ?? await this.#serial(id, () => this.store.load(id))
    this.#foreign.delete(id)
    if (!peek) return undefined
    const current = this.#deps.registry.get(id)
    if (!(current instanceof ParkedSession)) return current
    // A job's park: its slot first. On a shared adapter that step is also the one atomic decision
    // of which process resumes the job; with a store on the adapter's database it adopts the park
    // in the same transaction (issue 21), so the park, the job and its history move together.
    let adopted: { park: unknown } | undefined
    if (peek.kind === 'park') {
      const jobId = peek.info.meta?.jobId
      const slot = await this.#deps.beforeResume?.(id, { ...(typeof jobId === 'string' ? { jobId } : {}), ...(settledExecutionId !== undefined ? { settledExecutionId } : {}) })
      if (slot === false) return undefined
      if (typeof slot === 'object') adopted = slot
    }
    // A shared store hands a park to one process only (sessions of no job are decided here).
    // An adopted park is the row this store saved (same database, same table).
    const record = adopted ? adopted.park as StoredSession | undefined : this.store.adopt ? await this.#serial(id, () => this.store.adopt!(id, settledExecutionId)) : peek
    if (!record) {
      this.#deps.onResumeFailed?.(id, 'the parked session was taken by another process')
      return undefined
    }
    let runner: Runner
    try {
      runner = await this.#deps.rebuild(withReservedSeqs(record))
    } catch (err) {
      this.#report(err, 'resume')
      this.#deps.onResumeFailed?.(id, `the parked session could not be rebuilt: ${(err as Error).message}`)
      throw err
    }
    if (record.kind === 'live' && this.#options.persistLive) {
      // Clients may have seen seqs up to the reservation: numbering continues after it.
      this.#lastLive.set(id, record)
      this.#ledger.durable(id, record.snapshot.seq, record.seqReserved ?? record.snapshot.seq)
    }
    // A park record is consumed on wake; a live record is refreshed in place by later writes.
    if (record.kind === 'park') await this.#serial(id, () => this.store.delete(id)).catch((err) => this.#report(err, 'resume'))
    this.#deps.onResumed?.(id, runner)
    return runner
  }

  /**
   * `POST /executions/:id/result` and the watchdog. Undefined: unknown id (404). A duplicate or a
   * delivery that lost the race with the watchdog answers `applied: false`.
   */
  async submitResult(executionId: string, outcome: ExecutionOutcome): Promise<SubmitOutcome | undefined> {
    const sessionId = this.#owners.get(executionId) ?? await this.#adoptForeign(executionId)
    if (!sessionId) {
      const settled = this.#settled.get(executionId)
      return settled ? { applied: false, sessionId: settled } : this.#settledInFleet(executionId)
    }
    const runner = await this.ensureLive(sessionId, executionId)
    if (!runner) {
      // Not woken here: another process took the park (a duplicate, when this result is what it
      // was woken for), or the park is not there yet. Not recorded settled here: a retry must
      // still be able to deliver it.
      this.#owners.delete(executionId)
      clearTimeout(this.#deadlines.get(executionId))
      this.#deadlines.delete(executionId)
      return this.#settledInFleet(executionId)
    }
    clearTimeout(this.#deadlines.get(executionId))
    this.#deadlines.delete(executionId)
    const applied = runner.settleExecution?.(executionId, outcome) ?? false
    if (applied) {
      this.#forget(executionId)
      // For the fleet (a duplicate reaching another process); an adoption already wrote it.
      this.store.settle?.(executionId, runner.info()).catch((err) => this.#report(err, 'resume'))
    }
    return { applied, sessionId }
  }

  /** A duplicate of a result the fleet already took answers `applied: false`; an unknown id, undefined (404). */
  async #settledInFleet(executionId: string): Promise<SubmitOutcome | undefined> {
    if (!this.store.findSettled || this.#closed) return undefined
    const info = await this.store.findSettled(executionId)
    return info ? { applied: false, sessionId: info.id } : undefined
  }

  /**
   * A shared store: the execution belongs to a session another process parked (and may have
   * died since). Register it here as a parked row, so the usual wake-up adopts and rebuilds it;
   * when another process takes it first, the wake-up finds nothing and the id is unknown (404).
   */
  async #adoptForeign(executionId: string): Promise<string | undefined> {
    if (!this.store.findByExecution || !this.store.adopt || this.#closed) return undefined
    const sessionId = await this.store.findByExecution(executionId)
    // A parked row here may be stale (this process parked it once; another resumed and re-parked it).
    const live = () => { const row = this.#deps.registry.get(sessionId!); return row !== undefined && !(row instanceof ParkedSession) }
    if (!sessionId || live()) return undefined
    const record = await this.#serial(sessionId, () => this.store.load(sessionId))
    if (!record || record.kind !== 'park' || live()) return undefined
    this.#foreign.set(sessionId, record)
    this.#configs.set(sessionId, record.config)
    this.#deps.registry.register(new ParkedSession(record, (sid) => this.discard(sid)))
    for (const e of record.snapshot.executions) this.#track(e.executionId, sessionId, e.toolName, e.expiresAt)
    return sessionId
  }

  /** DELETE (or a close): drop everything, stored state included, so a late result cannot wake it. */
  discard(id: string): void {
    // Shutdown closes every row; what a restart should adopt must stay in the store.
    if (this.#closed) return
    clearTimeout(this.#detachTimers.get(id))
    this.#detachTimers.delete(id)
    this.#configs.delete(id)
    this.#watchers.get(id)?.()
    this.#watchers.delete(id)
    this.#lastLive.delete(id)
    this.#ledger.forget(id)
    this.store.forgetSettled?.(id).catch((err) => this.#report(err, 'discard'))
    for (const [executionId, owner] of [...this.#owners, ...this.#settled]) {
      if (owner !== id) continue
      this.#owners.delete(executionId)
      this.#settled.delete(executionId)
      clearTimeout(this.#deadlines.get(executionId))
      this.#deadlines.delete(executionId)
    }
    void this.#serial(id, () => this.store.delete(id)).catch((err) => this.#report(err, 'discard'))
  }

  /** On listen: adopt every stored record as a row; nothing is rebuilt until it is needed. */
  async hydrate(): Promise<void> {
    const records = await this.store.list()
    const notBefore = Date.now() + (this.#options.expiredGraceMs ?? PARKING_DEFAULTS.expiredGraceMs)
    if (this.store.expiredExecutions && !this.#sweepTimer && !this.#closed) {
      this.#sweepTimer = setInterval(() => { if (Date.now() >= notBefore) void this.#sweepDeadlines() }, this.#options.deadlineSweepMs ?? PARKING_DEFAULTS.deadlineSweepMs)
      this.#sweepTimer.unref()
    }
    for (const record of records) {
      if (this.#deps.registry.get(record.id)) continue
      this.#configs.set(record.id, record.config)
      this.#deps.registry.register(new ParkedSession(record, (sid) => this.discard(sid)))
      for (const e of record.snapshot.executions) this.#track(e.executionId, record.id, e.toolName, Math.max(e.expiresAt, notBefore))
    }
  }

  /**
   * Shutdown: timers stop, stored records stay (closing runners must not discard them), and the
   * returned promise waits for writes already issued, so a graceful stop loses no park.
   */
  async close(): Promise<void> {
    for (const runner of this.#persistPending) void this.#persistLive(runner)
    this.#persistPending.clear()
    for (const runner of this.#turnEnded) void this.#persistLive(runner)
    this.#turnEnded.clear()
    this.#closed = true
    clearInterval(this.#sweepTimer)
    this.#ledger.releaseAll()
    for (const t of [...this.#deadlines.values(), ...this.#detachTimers.values()]) clearTimeout(t)
    this.#deadlines.clear()
    this.#detachTimers.clear()
    await Promise.all([...this.#ops.values()])
  }

  #track(executionId: string, sessionId: string, toolName: string, expiresAt: number | undefined): void {
    this.#owners.set(executionId, sessionId)
    if (expiresAt === undefined || this.#deadlines.has(executionId) || this.#closed) return
    const fire = () => {
      this.#deadlines.delete(executionId)
      const outcome: ExecutionOutcome = { status: 'failed', reason: 'timeout', error: `deferred execution '${toolName}' produced no result before its deadline` }
      this.submitResult(executionId, outcome).catch((err) => this.#report(err, 'resume'))
    }
    // setTimeout holds at most ~24.8 days; longer deadlines re-arm on the next process start.
    const delay = Math.max(0, expiresAt - Date.now())
    if (delay < 2 ** 31 - 1) this.#deadlines.set(executionId, setTimeout(fire, delay))
  }

  /**
   * Fires lapsed deadlines of parks in the shared store, whoever parked them: the result goes
   * through the usual delivery, whose adoption is atomic, so exactly one process applies it and a
   * race with the parker's own watchdog is a duplicate (`applied: false`). A deadline this
   * process has armed itself is left to its timer.
   */
  async #sweepDeadlines(): Promise<void> {
    if (this.#sweeping || this.#closed) return
    this.#sweeping = true
    try {
      for (const executionId of await this.store.expiredExecutions!(Date.now(), 20)) {
        if (this.#deadlines.has(executionId) || this.#closed) continue
        const outcome: ExecutionOutcome = { status: 'failed', reason: 'timeout', error: 'deferred execution produced no result before its deadline' }
        await this.submitResult(executionId, outcome).catch((err) => this.#report(err, 'resume'))
      }
    } catch (err) {
      this.#report(err, 'resume')
    } finally {
      this.#sweeping = false
    }
  }

  #forget(executionId: string): void {
    const owner = this.#owners.get(executionId)
    if (!owner) return
    this.#owners.delete(executionId)
    this.#settled.set(executionId, owner)
    clearTimeout(this.#deadlines.get(executionId))
    this.#deadlines.delete(executionId)
  }

  async #park(runner: Runner): Promise<void> {
    const id = runner.id
    const guard = () => !this.#closed && runner.park !== undefined && this.#deps.registry.get(id) === runner
      && runner.info().status === 'parked' && this.#deps.attachedCount(id) === 0 && this.#configs.has(id)
    if (!guard()) return
    const first = [...this.#owners].find(([, owner]) => owner === id)?.[0]
    if (!first) return
    if (this.#deps.onParking && !(await this.#deps.onParking(id, first))) return
    if (!guard()) return
    const snapshot = runner.park!()
    if (!snapshot) return
    const record: StoredSession = { kind: 'park', id, config: this.#configs.get(id)!, info: { ...runner.info(), status: 'parked' }, snapshot, savedAt: Date.now() }
    this.#watchers.get(id)?.()
    this.#watchers.delete(id)
    // A parked runner is inert: no seq beyond the park snapshot was ever shown.
    this.#lastLive.delete(id)
    this.#ledger.forget(id)
    // Evict, not close: the row becomes the stored record and no session_closed is emitted.
    this.#deps.registry.register(new ParkedSession(record, (sid) => this.discard(sid)))
    // One serial step, so a resume of this id (which loads under the same serial) sees the job parked.
    await this.#serial(id, async () => {
      try {
        await this.store.save(record)
      } catch (err) {
        // Not stored: nothing could wake it (issue 21). The queue fails a job's attempt instead
        // of recording it parked; a session of no job stays an evicted row, as before.
        this.#report(err, 'park')
        return this.#deps.onParkFailed?.(id, `the park could not be stored: ${(err as Error).message}`)
      }
      await this.#deps.onParked?.(id, first)
    }).catch((err) => this.#report(err, 'park'))
  }

  async #persistLive(runner: Runner): Promise<void> {
    const id = runner.id
    if (this.#closed || this.#deps.registry.get(id) !== runner || !this.#configs.has(id)) return this.#ledger.release(id)
    const snapshot = runner.snapshot?.()
    if (!snapshot || snapshot.executions.length) return this.#ledger.release(id)
    const reserved = Math.max(snapshot.seq + SEQ_RESERVATION, this.#lastLive.get(id)?.seqReserved ?? 0)
    const record: StoredSession = { kind: 'live', id, config: this.#configs.get(id)!, info: runner.info(), snapshot, savedAt: Date.now(), seqReserved: reserved }
    try {
      await this.#serial(id, () => this.store.save(record))
    } catch (err) {
      this.#report(err, 'persist')
      return this.#ledger.release(id)
    }
    // A discard that ran meanwhile deleted the session; it must not come back into the ledger.
    if (!this.#configs.has(id)) return
    this.#lastLive.set(id, record)
    this.#ledger.durable(id, snapshot.seq, reserved)
  }

  /** Re-saves the newest live record with a larger reservation, before a seq past the old one is shown. */
  async #reserveSeqs(id: string, upTo: number): Promise<void> {
    try {
      const saved = await this.#serial(id, async () => {
        const last = this.#lastLive.get(id)
        if (!last || !this.#configs.has(id)) return undefined
        if ((last.seqReserved ?? 0) >= upTo) return last
        const record: StoredSession = { ...last, seqReserved: upTo, savedAt: Date.now() }
        await this.store.save(record)
        this.#lastLive.set(id, record)
        return record
      })
      if (saved) this.#ledger.durable(id, saved.snapshot.seq, saved.seqReserved ?? saved.snapshot.seq)
      else this.#ledger.release(id)
    } catch (err) {
      this.#report(err, 'persist')
      this.#ledger.release(id)
    }
  }

  #serial<T>(id: string, op: () => Promise<T>): Promise<T> {
    const previous = this.#ops.get(id) ?? Promise.resolve()
    const next = previous.catch(() => undefined).then(op)
    const settled = next.catch(() => undefined)
    this.#ops.set(id, settled)
    void settled.then(() => { if (this.#ops.get(id) === settled) this.#ops.delete(id) })
    return next
  }

  #report(err: unknown, where: 'park' | 'resume' | 'persist' | 'discard'): void {
    try {
      ;(this.#options.onError ?? this.#deps.onError)(err, where)
    } catch {
      // A throwing error hook must not break parking.
    }
  }
}

/** A rebuild numbers on after every seq a client may have seen (the record's reservation). */
function withReservedSeqs(record: StoredSession): StoredSession {
  const reserved = record.seqReserved
  if (reserved === undefined || reserved <= record.snapshot.seq) return record
  return { ...record, snapshot: { ...record.snapshot, seq: reserved } }
}
