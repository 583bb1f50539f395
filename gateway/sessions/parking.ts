/**
 * Deferred execution and parking (session-status-values, engine-facts §4). Watches every session
 * built by the factory: indexes deferred executions by id, arms their watchdogs, parks a session
 * resting on them once no client is attached (after `parkDelayMs` when one just left), answers
 * results by rebuilding the session under its own id, and writes `persistLive` snapshots.
 * Every store operation for one session runs in call order, reads included, so a delivery never
 * misses a park being saved and a discard never loses to a save that would resurrect it.
 * Its parts live beside it, one concept each: execution-index.ts (ids, claims, watchdogs),
 * live-write-through.ts (persistLive and dormant CLI records), deadline-sweep.ts (fleet-wide
 * deadlines), serial-ops.ts (the per-session order) and parking-contract.ts (options and host
 * hooks, re-exported here); this file keeps park, wake and adoption.
 */
import type { SessionEvent, SessionInfo } from '../protocol/index.ts'
import { DeadlineSweep } from './deadline-sweep.ts'
import { ExecutionIndex } from './execution-index.ts'
import { LiveWriteThrough, withReservedSeqs } from './live-write-through.ts'
import { ParkedSession } from './parked-session.ts'
import { PARKING_DEFAULTS, type ParkingDeps, type ParkingOptions, type SubmitOutcome } from './parking-contract.ts'
import { LIVE_ONLY, type ExecutionOutcome, type Runner, type RunnerConfig } from './runner.ts'
import { SerialOps } from './serial-ops.ts'
import type { SessionStore, StoredExecution, StoredSession } from './session-store.ts'
import { createMemorySessionStore } from './stores/memory-store.ts'

export { PARKING_DEFAULTS, type ParkingDeps, type ParkingOptions, type SubmitOutcome } from './parking-contract.ts'

export interface FleetHooks {
  runsElsewhere(id: string): Promise<boolean>
  claimed(id: string): Promise<void>
}

export class ParkingManager {
  readonly store: SessionStore
  #options: ParkingOptions
  #deps: ParkingDeps
  #executions: ExecutionIndex
  #live: LiveWriteThrough
  #sweep: DeadlineSweep
  #ops = new SerialOps()
  #detachTimers = new Map<string, ReturnType<typeof setTimeout>>()
  #configs = new Map<string, RunnerConfig>()
  #watchers = new Map<string, () => void>()
  #resuming = new Map<string, Promise<Runner | undefined>>()
  /** Parks another process stored, read for a result that reached this process; adopted on wake. */
  #foreign = new Map<string, StoredSession>()
  /** Fleet: the session directory (whether a live peer runs `id`; this process's claim of it landed). */
  #fleet: FleetHooks | undefined
  #closed = false

  constructor(options: ParkingOptions, deps: ParkingDeps) {
    this.store = options.store ?? createMemorySessionStore()
    this.#options = options
    this.#deps = deps
    const isClosed = () => this.#closed
    const report = (err: unknown, where: 'resume' | 'persist') => this.#report(err, where)
    this.#executions = new ExecutionIndex(this.store, isClosed, (executionId, outcome) => {
      this.submitResult(executionId, outcome).catch((err) => this.#report(err, 'resume'))
    })
    this.#live = new LiveWriteThrough({
      store: this.store,
      persistLive: options.persistLive === true,
      isClosed,
      isCurrent: (runner) => this.#deps.registry.get(runner.id) === runner && this.#configs.has(runner.id),
      configOf: (id) => this.#configs.get(id),
      serial: (id, op) => this.#serial(id, op),
      report,
    })
    this.#sweep = new DeadlineSweep({
      store: this.store,
      isClosed,
      hasOwnTimer: (executionId) => this.#executions.hasDeadline(executionId),
      submit: (executionId, outcome) => this.submitResult(executionId, outcome),
      report,
    })
  }

  get #parkDelayMs(): number {
    return this.#options.parkDelayMs ?? PARKING_DEFAULTS.parkDelayMs
  }

  /** Fleet: a stale row never rebuilds a session a live peer runs (websocket-framing.1); a wake answers once claimed. */
  setFleet(hooks: FleetHooks): void {
    this.#fleet = hooks
  }

  /** Resolves once every store write already queued for `id` landed (a DELETE answers after its delete). */
  async writesSettled(id: string): Promise<void> {
    await this.#serial(id, async () => undefined).catch(() => undefined)
  }

  /** Called by the factory for every runner it builds, before `start()`; `open` are a rebuild's executions. */
  watch(runner: Runner, config: RunnerConfig, open: readonly StoredExecution[] = []): void {
    const id = runner.id
    this.#configs.set(id, config)
    this.#watchers.get(id)?.()
    const unsubscribe = runner.subscribe((event) => this.#onEvent(runner, event), LIVE_ONLY)
    this.#watchers.set(id, unsubscribe)
    for (const e of open) this.#executions.track(e.executionId, id, e.toolName, e.expiresAt)
  }

  #onEvent(runner: Runner, event: SessionEvent): void {
    const id = runner.id
    this.#live.beforeEvent(runner, event)
    switch (event.type) {
      case 'execution_dispatched':
        if (event.deferred) this.#executions.track(event.executionId, id, event.toolName, event.expiresAt)
        break
      case 'execution_result':
      case 'execution_failed':
        this.#executions.settle(event.executionId)
        break
      case 'status_changed':
        if (event.status === 'parked' && this.#deps.attachedCount(id) === 0) queueMicrotask(() => void this.#park(runner))
        break
      case 'turn_result':
        this.#live.turnEnded(runner)
        break
      case 'system_init':
      case 'conversation_reset':
        // A CLI engine's resume id became known or changed (a new conversation after /clear): its
        // dormant record must name it before a crash can happen (embedding-rules.14). A provider
        // session's system_init starts no conversation worth a record.
        if (this.#configs.get(id)?.engine !== 'provider') this.#live.schedule(runner)
        break
      case 'model_changed':
      case 'permission_mode_changed':
        this.#live.schedule(runner)
        break
      case 'session_closed':
        if (!this.#closed) this.discard(id)
        break
    }
  }

  /** Write-ahead (write-ahead.ts): undefined when `event` may go to a client now, else a promise to wait for first. */
  hold(runner: Runner, event: SessionEvent): Promise<void> | undefined {
    return this.#live.hold(runner, event)
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

  /** The execution id a deferred tool call of `sessionId` gets (see ExecutionIndex.claim: ids are unique fleet-wide). */
  async claimExecutionId(sessionId: string, toolCallId: string): Promise<string> {
    return this.#executions.claim(sessionId, toolCallId)
  }

  /** The owning session of an execution id this process knows (open or settled). */
  ownerOf(executionId: string): string | undefined {
    return this.#executions.openOwner(executionId) ?? this.#executions.settledOwner(executionId)
  }
  /** The session an execution result is for (the route checks visibility): known here, or parked by another process. */
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

  /** A stored row, not rebuilt: resting parked, or a persistLive or dormant record after a restart. */
  isParked(id: string): boolean {
    return this.#deps.registry.get(id) instanceof ParkedSession
  }

  /** A stored row whose status is `parked` (waiting on deferred executions), not a dormant one. */
  restsParked(id: string): boolean {
    const row = this.#deps.registry.get(id)
    return row instanceof ParkedSession && row.info().status === 'parked'
  }

  /** The live runner, waking a parked or not-yet-rebuilt session; undefined when it is gone. */
  async ensureLive(id: string, settledExecutionId?: string): Promise<Runner | undefined> {
    // A wake in progress is answered by the wake itself, even once the runner is registered: its
    // history is not all in the log before start() settles (see #resume).
    let pending = this.#resuming.get(id)
    const current = this.#deps.registry.get(id)
    if (!pending && !(current instanceof ParkedSession)) return current
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
    // A stale row: a live peer runs it, or woke it for this very result (its claim may not have landed yet).
    const settledElsewhere = async () => settledExecutionId !== undefined && (await this.store.findSettled?.(settledExecutionId)) !== undefined
    if (peek.kind !== 'park' && this.#fleet && (await this.#fleet.runsElsewhere(id) || await settledElsewhere())) {
      if (this.#deps.registry.get(id) === current) this.#deps.registry.evict(id)
      return undefined
    }
    // A job's park: its slot first (on a shared adapter, the one atomic decision of who resumes it,
    // adopting the park in the same transaction when the store shares the adapter's database).
    let adopted: { park: unknown } | undefined
    if (peek.kind === 'park') {
      const jobId = peek.info.meta?.jobId
      const slot = await this.#deps.beforeResume?.(id, { ...(typeof jobId === 'string' ? { jobId } : {}), ...(settledExecutionId !== undefined ? { settledExecutionId } : {}) })
      if (slot === false) return undefined
      if (typeof slot === 'object') adopted = slot
    }
    // A shared store hands a park to one process only; an adopted park is the row this store saved.
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
    // Clients may have seen seqs up to a live record's reservation: numbering continues after it.
    this.#live.rebuilt(record)
    // A park is consumed on wake (kept as the live record under persistLive); queued now, ahead of a re-park.
    const kept = this.#live.woken(record)
    const consumed = record.kind !== 'park' ? undefined : kept
      ? this.#serial(id, () => this.store.save(kept)).then(() => this.#live.wokenSaved(kept), (err) => this.#live.wokenSaved(kept, err))
      : this.#serial(id, () => this.store.delete(id)).catch((err) => this.#report(err, 'resume'))
    // Handed over before any await: from the next tick the session can move (a lapsed watchdog
    // restarts the turn), and a job told later could miss its turn_result (job-status.6, job-status.8).
    this.#deps.onResumed?.(id, runner)
    await consumed
    // events.10: a CLI engine replays its store while it starts, so callers get the woken session
    // only once start() settled (a failed start fails the runner; the caller then sees it closed).
    await runner.start().then(() => this.#live.started(record, runner), () => undefined)
    // Other processes find the woken session in the directory before anyone is told it is awake.
    await this.#fleet?.claimed(id)
    return runner
  }

  /** `POST /executions/:id/result` and the watchdog. Undefined: unknown id (404); a duplicate answers `applied: false`. */
  async submitResult(executionId: string, outcome: ExecutionOutcome): Promise<SubmitOutcome | undefined> {
    const sessionId = this.#executions.openOwner(executionId) ?? await this.#adoptForeign(executionId)
    if (!sessionId) {
      const settled = this.#executions.settledOwner(executionId)
      return settled ? { applied: false, sessionId: settled } : this.#settledInFleet(executionId)
    }
    const runner = await this.ensureLive(sessionId, executionId)
    if (!runner) {
      // Not woken here (another process took the park, or it is not stored yet): not settled, a retry may deliver it.
      this.#executions.release(executionId)
      return this.#settledInFleet(executionId)
    }
    this.#executions.clearDeadline(executionId)
    const applied = runner.settleExecution?.(executionId, outcome) ?? false
    if (applied) {
      this.#executions.settle(executionId)
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

  /** Shared store: a park another process stored becomes a row here, so the usual wake-up adopts it (or finds it taken: 404). */
  async #adoptForeign(executionId: string): Promise<string | undefined> {
    if (!this.store.findByExecution || !this.store.adopt || this.#closed) return undefined
    const sessionId = await this.store.findByExecution(executionId)
    // A parked row here may be stale (this process parked it once; another resumed and re-parked it).
    const live = () => { const row = this.#deps.registry.get(sessionId!); return row !== undefined && !(row instanceof ParkedSession) }
    if (!sessionId || live()) return undefined
    const record = await this.#serial(sessionId, () => this.store.load(sessionId))
    if (!record || record.kind !== 'park' || live()) return undefined
    this.#foreign.set(sessionId, record)
    this.#registerStored(record)
    return sessionId
  }

  /** Fleet: `id`'s stored record replaces a (maybe stale) row here, or the row leaves with its record. False: no record. */
  async refreshStoredRow(id: string): Promise<boolean> {
    const settled = () => { const row = this.#deps.registry.get(id); return this.#resuming.has(id) || (row !== undefined && !(row instanceof ParkedSession)) }
    if (settled()) return true
    if (this.#closed) return this.#deps.registry.get(id) !== undefined
    const record = await this.#serial(id, () => this.store.load(id))
    if (settled()) return true
    if (!record) {
      this.#deps.registry.evict(id)
      return false
    }
    this.#registerStored(record)
    return true
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
    this.#live.forget(id)
    this.store.forgetSettled?.(id).catch((err) => this.#report(err, 'discard'))
    this.#executions.forgetSession(id)
    void this.#serial(id, () => this.store.delete(id)).catch((err) => this.#report(err, 'discard'))
  }

  /** On listen: adopt every stored record as a row; nothing is rebuilt until it is needed. */
  async hydrate(): Promise<void> {
    const records = await this.store.list()
    const notBefore = Date.now() + (this.#options.expiredGraceMs ?? PARKING_DEFAULTS.expiredGraceMs)
    this.#sweep.start(notBefore, this.#options.deadlineSweepMs ?? PARKING_DEFAULTS.deadlineSweepMs)
    for (const record of records) {
      if (!this.#deps.registry.get(record.id)) this.#registerStored(record, notBefore)
    }
  }

  /** Shutdown: timers stop, stored records stay, and writes already issued are awaited (a graceful stop loses no park). */
  async close(): Promise<void> {
    this.#live.flush()
    this.#closed = true
    this.#sweep.stop()
    this.#live.releaseAll()
    this.#executions.stopTimers()
    for (const t of this.#detachTimers.values()) clearTimeout(t)
    this.#detachTimers.clear()
    await this.#ops.drain()
  }

  async #park(runner: Runner): Promise<void> {
    const id = runner.id
    const guard = () => !this.#closed && runner.park !== undefined && this.#deps.registry.get(id) === runner
      && runner.info().status === 'parked' && this.#deps.attachedCount(id) === 0 && this.#configs.has(id)
    if (!guard()) return
    const first = this.#executions.firstOpenOf(id)
    if (!first) return
    if (this.#deps.onParking && !(await this.#deps.onParking(id, first))) return
    if (!guard()) return
    const snapshot = runner.park!()
    if (!snapshot) return
    const record: StoredSession = { kind: 'park', id, config: this.#configs.get(id)!, info: { ...runner.info(), status: 'parked' }, snapshot, savedAt: Date.now() }
    this.#watchers.get(id)?.()
    this.#watchers.delete(id)
    // A parked runner is inert: no seq beyond the park snapshot was ever shown.
    this.#live.forget(id)
    // Evict, not close: the row becomes the stored record and no session_closed is emitted.
    this.#deps.registry.register(new ParkedSession(record, (sid) => this.discard(sid)))
    // One serial step, so a resume of this id (which loads under the same serial) sees the job parked.
    await this.#serial(id, async () => {
      try {
        await this.store.save(record)
      } catch (err) {
        // Not stored: nothing could wake it. A job's attempt fails; a session of no job stays an evicted row.
        this.#report(err, 'park')
        return this.#deps.onParkFailed?.(id, `the park could not be stored: ${(err as Error).message}`)
      }
      await this.#deps.onParked?.(id, first)
    }).catch((err) => this.#report(err, 'park'))
  }

  /** A stored record becomes this process's row (not rebuilt); its open executions are tracked here. */
  #registerStored(record: StoredSession, notBefore = 0): void {
    this.#configs.set(record.id, record.config)
    this.#deps.registry.register(new ParkedSession(record, (sid) => this.discard(sid)))
    for (const e of record.snapshot.executions) this.#executions.track(e.executionId, record.id, e.toolName, Math.max(e.expiresAt, notBefore))
  }

  #serial<T>(id: string, op: () => Promise<T>): Promise<T> {
    return this.#ops.run(id, op)
  }

  #report(err: unknown, where: 'park' | 'resume' | 'persist' | 'discard'): void {
    try {
      ;(this.#options.onError ?? this.#deps.onError)(err, where)
    } catch {
      // A throwing error hook must not break parking.
    }
  }
}
