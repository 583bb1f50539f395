/**
 * The principals file, kept current without a restart: re-read when it changes (its
 * path is polled, so the atomic rename `token create` does is seen) and on demand (SIGHUP). A file
 * that does not read as a valid principals file keeps the previous principals in force; the
 * caller logs why. The authenticate function always asks the current set, so a revoked token is
 * refused from the first request after the reload.
 */
import { unwatchFile, watchFile, type Stats } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import type { Principal } from '../server/principal.ts'
import { principalsAuthenticator, readPrincipals } from './principals.ts'

export type ReloadResult = { ok: true; count: number } | { ok: false; error: string }

export class LivePrincipals {
  readonly file: string
  #current: (req: IncomingMessage) => Principal | null
  #count: number

  private constructor(file: string, current: (req: IncomingMessage) => Principal | null, count: number) {
    this.file = file
    this.#current = current
    this.#count = count
  }

  /** The first read fails loudly: `serve` does not start on a bad principals file. */
  static async load(file: string): Promise<LivePrincipals> {
    const data = await readPrincipals(file)
    return new LivePrincipals(file, principalsAuthenticator(data), Object.keys(data.principals).length)
  }

  readonly authenticate = (req: IncomingMessage): Principal | null => this.#current(req)

  get count(): number {
    return this.#count
  }

  /** Reads the file again; on any problem the principals in force stay as they are. */
  async reload(): Promise<ReloadResult> {
    try {
      const data = await readPrincipals(this.file)
      this.#current = principalsAuthenticator(data)
      this.#count = Object.keys(data.principals).length
      return { ok: true, count: this.#count }
    } catch (err) {
      return { ok: false, error: (err as Error).message }
    }
  }

  /** Calls `onChange` when the file's content may have changed; returns the function that stops watching. */
  watch(onChange: () => void, { intervalMs = 250 } = {}): () => void {
    const listener = (now: Stats, before: Stats) => {
      if (now.mtimeMs !== before.mtimeMs || now.ino !== before.ino || now.size !== before.size) onChange()
    }
    watchFile(this.file, { interval: intervalMs, persistent: false }, listener)
    return () => unwatchFile(this.file, listener)
  }
}
