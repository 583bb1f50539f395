/**
 * The live session registry. Each row's SessionInfo JSON is cached and invalidated by the
 * session's own events, so listing N sessions concatenates N strings instead of re-deriving N
 * objects per request (DESIGN.md §7: serialise a list without re-deriving every row).
 */
import type { SessionInfo } from '../protocol/index.ts'
import { LIVE_ONLY, type Runner } from './runner.ts'

interface Row {
  runner: Runner
  info: SessionInfo | undefined
  json: string | undefined
  body: Buffer | undefined
  unsubscribe: () => void
}

export class SessionRegistry {
  #rows = new Map<string, Row>()
  #version = 0
  #listCache: { version: number; body: Buffer } | undefined
  #onRegister: Array<(runner: Runner) => void> = []
  #onRemoved: Array<(id: string) => void> = []

  onRegister(listener: (runner: Runner) => void): void {
    this.#onRegister.push(listener)
  }

  /** Told after `remove` (DELETE, a discarded job session, shutdown), never after `evict`. */
  onRemoved(listener: (id: string) => void): void {
    this.#onRemoved.push(listener)
  }

  /**
   * Adds a runner. Its SessionInfo is serialised first, so a row that could never be listed (a
   * host hook put a BigInt or a cycle into `meta`) throws here and is never registered: one bad
   * row must not turn every `GET /sessions` into a 500.
   */
  register(runner: Runner): void {
    const info = runner.info()
    const json = JSON.stringify(info)
    const previous = this.#rows.get(runner.id)
    previous?.unsubscribe()
    const row: Row = { runner, info, json, body: undefined, unsubscribe: () => {} }
    this.#rows.set(runner.id, row)
    this.#version++
    row.unsubscribe = runner.subscribe(() => this.invalidate(runner.id), LIVE_ONLY)
    for (const listener of this.#onRegister) listener(runner)
  }

  get(id: string): Runner | undefined {
    return this.#rows.get(id)?.runner
  }

  /** Call after a change no event reports (a rename). */
  invalidate(id: string): void {
    const row = this.#rows.get(id)
    this.#version++
    if (row) {
      row.info = undefined
      row.json = undefined
      row.body = undefined
    }
  }

  info(id: string): SessionInfo | undefined {
    const row = this.#rows.get(id)
    if (!row) return undefined
    return (row.info ??= row.runner.info())
  }

  /** A row's JSON; undefined for a row that cannot be serialised, which listing then skips. */
  json(id: string): string | undefined {
    const row = this.#rows.get(id)
    if (!row) return undefined
    try {
      return (row.json ??= JSON.stringify(row.info ??= row.runner.info()))
    } catch {
      return undefined
    }
  }

  /** The encoded `{session}` body of `GET /sessions/:id`, built on first read after a change. */
  singleBody(id: string): Buffer | undefined {
    const row = this.#rows.get(id)
    if (!row) return undefined
    if (row.body) return row.body
    const text = this.singleText(id)
    return text === undefined ? undefined : (row.body = Buffer.from(text))
  }

  /** The same `{session}` body as text, not kept: for answers given once per change (create, rename). */
  singleText(id: string): string | undefined {
    const json = this.json(id)
    return json === undefined ? undefined : `{"session":${json}}`
  }

  /**
   * The whole `{sessions: [...]}` body for a caller who sees every session, encoded once and
   * reused until any session changes: listing is the hot read of a dashboard.
   */
  fullListBody(): Buffer {
    if (this.#listCache?.version === this.#version) return this.#listCache.body
    const rows: string[] = []
    for (const id of this.#rows.keys()) {
      const json = this.json(id)
      if (json !== undefined) rows.push(json)
    }
    const body = Buffer.from(`{"sessions":[${rows.join(',')}]}`)
    this.#listCache = { version: this.#version, body }
    return body
  }

  ids(): IterableIterator<string> {
    return this.#rows.keys()
  }

  get size(): number {
    return this.#rows.size
  }

  /** Closes (reason `server`) and forgets. */
  remove(id: string): Runner | undefined {
    const row = this.#rows.get(id)
    if (!row) return undefined
    this.#rows.delete(id)
    this.#version++
    row.unsubscribe()
    try {
      row.runner.close('server')
    } catch {
      // Closing is best effort; the row is gone either way.
    }
    for (const listener of this.#onRemoved) listener(id)
    return row.runner
  }

  /** Forgets a row without closing its runner (a stale stored row another process took over). */
  evict(id: string): void {
    const row = this.#rows.get(id)
    if (!row) return
    this.#rows.delete(id)
    this.#version++
    row.unsubscribe()
  }

  closeAll(): void {
    for (const id of [...this.#rows.keys()]) this.remove(id)
  }
}
