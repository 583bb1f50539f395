/**
 * What a CLI runner does when its engine process dies outside a shutdown: the running
 * turn ends with an error `turn_result` (session_error is terminal in the spec), and the next
 * message respawns the engine on the same conversation. Deaths with no successful turn in between
 * are a crash loop: each respawn waits longer, and past `maxDeaths` the session fails.
 */
export interface RespawnOptions {
  /** Consecutive deaths (no turn completed in between) after which the session fails; default 3. */
  maxDeaths?: number
  /** Wait before the first respawn after a death, doubled after each further one; default 500 ms. */
  backoffMs?: number
}

export const RESPAWN_DEFAULTS = { maxDeaths: 3, backoffMs: 500 } as const

export class RespawnPolicy {
  #deaths = 0
  #maxDeaths: number
  #backoffMs: number

  constructor(options: RespawnOptions = {}) {
    this.#maxDeaths = options.maxDeaths ?? RESPAWN_DEFAULTS.maxDeaths
    this.#backoffMs = options.backoffMs ?? RESPAWN_DEFAULTS.backoffMs
  }

  /** A death: false when it ends a crash loop (the session must fail). */
  noteDeath(): boolean {
    this.#deaths += 1
    return this.#deaths < this.#maxDeaths
  }

  /** A turn completed on the engine: it is healthy again. */
  noteSuccess(): void {
    this.#deaths = 0
  }

  /** How long to wait before the next spawn: 0 when the engine never died since its last success. */
  get delayMs(): number {
    return this.#deaths === 0 ? 0 : this.#backoffMs * 2 ** (this.#deaths - 1)
  }
}
