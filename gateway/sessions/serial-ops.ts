/**
 * Per-session ordering of store operations, split out of parking.ts: every store call for one
 * session (reads included) runs in call order, so a delivery never misses a park being saved and
 * a discard never loses to a save that would resurrect it. Shutdown waits for what is in flight.
 */
export class SerialOps {
  #ops = new Map<string, Promise<unknown>>()

  /** Runs `op` after every earlier op of `id` settled (a failure does not stop the chain). */
  run<T>(id: string, op: () => Promise<T>): Promise<T> {
    const previous = this.#ops.get(id) ?? Promise.resolve()
    const next = previous.catch(() => undefined).then(op)
    const settled = next.catch(() => undefined)
    this.#ops.set(id, settled)
    void settled.then(() => { if (this.#ops.get(id) === settled) this.#ops.delete(id) })
    return next
  }

  /** Resolves once every op issued so far has settled (a graceful stop loses no write). */
  async drain(): Promise<void> {
    await Promise.all([...this.#ops.values()])
  }
}
