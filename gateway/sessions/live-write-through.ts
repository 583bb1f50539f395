/**
 * `persistLive` write-through, split out of parking.ts: live snapshots saved
 * after each turn and on setting changes, CLI dormant records (idle, nothing pending) that name the
 * engine's resume id, and the write-ahead seq reservation that holds an event back until the seq
 * it carries is covered by a durable record. Store writes go through the parking manager's
 * per-session serial order, so they never race a park, a resume or a discard of the same session.
 */
import type { SessionEvent } from '../protocol/index.ts'
import type { Runner, RunnerConfig } from './runner.ts'
import type { SessionStore, StoredSession } from './session-store.ts'
import { SEQ_RESERVATION, WriteAheadLedger } from './write-ahead.ts'

export interface LiveWriteThroughDeps {
  store: SessionStore
  persistLive: boolean
  isClosed(): boolean
  /** True while `runner` is the session's registered live runner and the session is watched. */
  isCurrent(runner: Runner): boolean
  /** The session's runner config; undefined once it was discarded (or never watched). */
  configOf(id: string): RunnerConfig | undefined
  serial<T>(id: string, op: () => Promise<T>): Promise<T>
  report(err: unknown, where: 'persist'): void
}

export class LiveWriteThrough {
  #deps: LiveWriteThroughDeps
  /** Live writes scheduled but not yet taken: shutdown takes them at once instead of losing them. */
  #persistPending = new Set<Runner>()
  /** Runners whose turn just ended: their snapshot is taken at the very next event (the status move). */
  #turnEnded = new Set<Runner>()
  /** The newest durable live record per session, re-saved with a larger `seqReserved` when needed. */
  #lastLive = new Map<string, StoredSession>()
  #ledger = new WriteAheadLedger((id, upTo) => void this.#reserveSeqs(id, upTo))

  constructor(deps: LiveWriteThroughDeps) {
    this.#deps = deps
  }

  /**
   * Every event of a watched runner, first: synchronously at the event after turn_result (its
   * status move), since a microtask later a queued message may already have started the next
   * turn, and a snapshot then is refused.
   */
  beforeEvent(runner: Runner, event: SessionEvent): void {
    if (this.#turnEnded.size && event.type !== 'turn_result' && this.#turnEnded.delete(runner)) void this.persist(runner)
    if (event.type === 'status_changed' && event.status === 'running' && this.#deps.persistLive && runner.endLostTurn) void this.#markTurnRunning(runner.id)
  }

  /** A rebuilt session started: a turn its record says was running died with its process (session-status-values.8). */
  started(record: StoredSession, runner: Runner): void {
    if (record.kind === 'live' && record.turnRunning) runner.endLostTurn?.('the gateway process running this turn ended before the turn did')
  }

  /** A turn ended: its snapshot is taken at the next event, or a microtask later at the latest. */
  turnEnded(runner: Runner): void {
    if (!this.#deps.persistLive) return
    this.#turnEnded.add(runner)
    queueMicrotask(() => { if (this.#turnEnded.delete(runner)) void this.persist(runner) })
  }

  /** After a microtask: the turn_result is emitted inside the turn, which is still "in flight". */
  schedule(runner: Runner): void {
    if (!this.#deps.persistLive || this.#persistPending.has(runner)) return
    this.#persistPending.add(runner)
    setImmediate(() => {
      if (this.#persistPending.delete(runner)) void this.persist(runner)
    })
  }

  /**
   * Write-ahead: undefined when `event` may go to a client now, else a promise to wait
   * for first. Only persistLive sessions of an engine that snapshots are ever held.
   */
  hold(runner: Runner, event: SessionEvent): Promise<void> | undefined {
    if (!this.#deps.persistLive || this.#deps.isClosed() || !runner.snapshot) return undefined
    return this.#ledger.hold(runner.id, event)
  }

  /** A parked or discarded session: no live record to refresh, nothing held for it. */
  forget(id: string): void {
    this.#lastLive.delete(id)
    this.#ledger.forget(id)
  }

  /** A live record was rebuilt: clients may have seen seqs up to its reservation, so numbering continues after it. */
  rebuilt(record: StoredSession): void {
    if (record.kind !== 'live' || !this.#deps.persistLive) return
    this.#lastLive.set(record.id, record)
    this.#ledger.durable(record.id, record.snapshot.seq, record.seqReserved ?? record.snapshot.seq)
  }

  /**
   * A park consumed on wake: with persistLive the record that replaces it in the store, else
   * undefined (the park is deleted). Until the woken turn ends no live snapshot can be taken, so
   * deleting the park left nothing durable: a crash or restart in that window lost the session and
   * its whole transcript (embedding-rules.14, session-status-values.8). The park's snapshot is kept
   * as the live record instead; a restart rebuilds the session waiting on its executions again
   * (the result delivered to the lost process is lost, nothing before it). Events of the woken
   * turn wait for this write like any seq past a reservation.
   */
  woken(record: StoredSession): StoredSession | undefined {
    if (record.kind !== 'park' || !this.#deps.persistLive) return undefined
    const seq = record.snapshot.seq
    const live: StoredSession = { ...record, kind: 'live', savedAt: Date.now(), seqReserved: Math.max(record.seqReserved ?? 0, seq + SEQ_RESERVATION) }
    this.#lastLive.set(record.id, live)
    this.#ledger.writing(record.id, seq, live.seqReserved!)
    return live
  }

  /** The record `woken` returned is durable (or could not be written: `failed`). */
  wokenSaved(live: StoredSession, failed?: unknown): void {
    if (failed !== undefined) {
      this.#deps.report(failed, 'persist')
      return this.#ledger.release(live.id)
    }
    if (this.#deps.configOf(live.id)) this.#ledger.durable(live.id, live.snapshot.seq, live.seqReserved ?? live.snapshot.seq)
  }

  /** Shutdown, before the manager closes: writes scheduled but not yet taken are taken now. */
  flush(): void {
    for (const runner of this.#persistPending) void this.persist(runner)
    this.#persistPending.clear()
    for (const runner of this.#turnEnded) void this.persist(runner)
    this.#turnEnded.clear()
  }

  /** Shutdown: nothing is held back any longer. */
  releaseAll(): void {
    this.#ledger.releaseAll()
  }

  async persist(runner: Runner): Promise<void> {
    const id = runner.id
    if (this.#deps.isClosed() || !this.#deps.isCurrent(runner)) return this.#ledger.release(id)
    const snapshot = runner.snapshot?.()
    if (!snapshot || snapshot.executions.length) return this.#ledger.release(id)
    const reserved = Math.max(snapshot.seq + SEQ_RESERVATION, this.#lastLive.get(id)?.seqReserved ?? 0)
    // A CLI session's dormant record reads as idle with nothing pending: a rebuild starts it so.
    const info = snapshot.resumeId === undefined ? runner.info() : { ...runner.info(), status: 'idle' as const, pendingPermissionCount: 0 }
    const record: StoredSession = { kind: 'live', id, config: this.#deps.configOf(id)!, info, snapshot, savedAt: Date.now(), seqReserved: reserved }
    try {
      await this.#deps.serial(id, () => this.#deps.store.save(record))
    } catch (err) {
      this.#deps.report(err, 'persist')
      return this.#ledger.release(id)
    }
    // A discard that ran meanwhile deleted the session; it must not come back into the ledger.
    if (!this.#deps.configOf(id)) return
    this.#lastLive.set(id, record)
    this.#ledger.durable(id, snapshot.seq, reserved)
  }

  /**
   * A turn started: the newest live record says so, until the turn's own snapshot replaces it, so
   * a rebuild after a crash ends that turn instead of leaving it running for ever (for a client
   * that saw it start). Engines that cannot end a lost turn (`endLostTurn`) are not marked.
   */
  async #markTurnRunning(id: string): Promise<void> {
    try {
      await this.#deps.serial(id, async () => {
        const last = this.#lastLive.get(id)
        if (!last || last.turnRunning || !this.#deps.configOf(id) || this.#deps.isClosed()) return
        const record: StoredSession = { ...last, turnRunning: true, savedAt: Date.now() }
        await this.#deps.store.save(record)
        this.#lastLive.set(id, record)
      })
    } catch (err) {
      this.#deps.report(err, 'persist')
    }
  }

  /** Re-saves the newest live record with a larger reservation, before a seq past the old one is shown. */
  async #reserveSeqs(id: string, upTo: number): Promise<void> {
    try {
      const saved = await this.#deps.serial(id, async () => {
        const last = this.#lastLive.get(id)
        if (!last || !this.#deps.configOf(id)) return undefined
        if ((last.seqReserved ?? 0) >= upTo) return last
        const record: StoredSession = { ...last, seqReserved: upTo, savedAt: Date.now() }
        await this.#deps.store.save(record)
        this.#lastLive.set(id, record)
        return record
      })
      if (saved) this.#ledger.durable(id, saved.snapshot.seq, saved.seqReserved ?? saved.snapshot.seq)
      else this.#ledger.release(id)
    } catch (err) {
      this.#deps.report(err, 'persist')
      this.#ledger.release(id)
    }
  }
}

/** A rebuild numbers on after every seq a client may have seen (the record's reservation). */
export function withReservedSeqs(record: StoredSession): StoredSession {
  const reserved = record.seqReserved
  if (reserved === undefined || reserved <= record.snapshot.seq) return record
  return { ...record, snapshot: { ...record.snapshot, seq: reserved } }
}
