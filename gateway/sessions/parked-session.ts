/**
 * The registry row of a session that has no runner: parked on deferred executions, or a
 * persisted-live record not yet rebuilt after a restart. It answers GET, the list, replay and
 * `/files` from the stored record (session-status-values: parked is non-terminal) and refuses
 * everything that needs a live engine; attaching or delivering a result wakes the real session.
 */
import type { SessionClosedReason, SessionInfo } from '../protocol/index.ts'
import { EventLog, type EventListener } from './event-log.ts'
import type { PermissionDecision, Runner, ScratchFiles } from './runner.ts'
import type { StoredSession } from './session-store.ts'

export class ParkedSession implements Runner {
  readonly id: string
  readonly record: StoredSession
  #info: SessionInfo
  #log: EventLog | undefined
  #files: StoredFiles
  #onClose: (id: string) => void

  constructor(record: StoredSession, onClose: (id: string) => void) {
    this.id = record.id
    this.record = record
    this.#info = { ...record.info, status: record.kind === 'park' ? 'parked' : liveStatus(record) }
    this.#files = new StoredFiles(record.snapshot.files)
    this.#onClose = onClose
  }

  /** True for a real park; false for a live record waiting for its first attach. */
  get parked(): boolean {
    return this.record.kind === 'park'
  }

  async start(): Promise<void> {}

  info(): SessionInfo {
    return this.#info
  }

  subscribe(listener: EventListener, afterSeq = 0): () => void {
    // A parked row emits nothing live, so a subscriber at the head (the registry's own) needs no log;
    // the log is built on the first real replay only: most parked rows are listed, never replayed.
    if (afterSeq >= this.record.snapshot.seq) return () => {}
    this.#log ??= new EventLog(this.record.snapshot.events, this.record.snapshot.seq)
    return this.#log.subscribe(listener, afterSeq)
  }

  files(): ScratchFiles {
    return this.#files
  }

  sendMessage(): void {
    throw new Error('session is parked')
  }

  setTitle(): void {
    throw new Error('session is parked')
  }

  resolvePermission(_id: string, _decision: PermissionDecision): boolean {
    return false
  }

  interrupt(): void {}
  setPermissionMode(): void {
    throw new Error('session is parked')
  }

  setModel(): void {
    throw new Error('session is parked')
  }

  fail(): void {
    this.close('error')
  }

  /** DELETE of a parked session: no runner to close, but the stored state must go (session-status-values.5). */
  close(_reason?: SessionClosedReason): void {
    if (this.#info.status === 'closed') return
    this.#info = { ...this.#info, status: 'closed' }
    this.#onClose(this.id)
  }
}

/** Read-only view of a snapshot's scratch files (path → base64). */
class StoredFiles implements ScratchFiles {
  #files: Record<string, string>
  constructor(files: Record<string, string>) {
    this.#files = files
  }

  list(): Array<{ path: string; size: number }> {
    return Object.keys(this.#files).sort().map((path) => ({ path, size: Buffer.from(this.#files[path], 'base64').byteLength }))
  }

  read(path: string): Uint8Array | undefined {
    const data = this.#files[path]
    return data === undefined ? undefined : new Uint8Array(Buffer.from(data, 'base64'))
  }
}

/**
 * A live record's status is the one its rebuild restores: the last status move in its transcript
 * (session-status-values.8). Earlier builds saved the row's status a step behind the transcript
 * (`running` for a turn that had ended); nothing runs in a record until it is woken.
 */
function liveStatus(record: StoredSession): SessionInfo['status'] {
  const events = record.snapshot.events
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]
    if (event.type === 'status_changed') return event.status
  }
  return record.info.status
}
