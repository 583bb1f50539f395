/**
 * Pending waits on a stream of items (events or frames): each wait has its own predicate, an
 * optional timeout and AbortSignal of the caller's, and ends with the first matching item, the
 * timeout, the abort, or the stream's end. Nothing here times out unless the caller asked.
 */
import type { SignalLike } from './transport.ts'

export interface WaitOptions {
  /** Give up after this many milliseconds (a TimeoutError). No default: a turn may run for hours. */
  timeoutMs?: number
  /** Give up when this signal aborts (rejects with the signal's reason). */
  signal?: SignalLike
}

interface Waiter<T> {
  match(item: T): boolean
  resolve(item: T): void
  reject(error: unknown): void
}

export class TimeoutError extends Error {
  override readonly name = 'TimeoutError'
}

export class Waiters<T> {
  #waiters = new Set<Waiter<T>>()
  #ended: Error | undefined

  /** Offers an item to every pending wait; each matching wait ends with it. */
  offer(item: T): void {
    for (const waiter of [...this.#waiters]) {
      if (waiter.match(item)) waiter.resolve(item)
    }
  }

  /** Ends every pending wait, and every later one, with `error`. */
  end(error: Error): void {
    this.#ended ??= error
    for (const waiter of [...this.#waiters]) waiter.reject(error)
  }

  wait(match: (item: T) => boolean, what: string, options: WaitOptions = {}): Promise<T> {
    if (this.#ended) return Promise.reject(this.#ended)
    if (options.signal?.aborted) return Promise.reject(options.signal.reason ?? new Error('aborted'))
    return new Promise<T>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined
      const onAbort = () => waiter.reject(options.signal?.reason ?? new Error('aborted'))
      const settle = () => {
        this.#waiters.delete(waiter)
        if (timer !== undefined) clearTimeout(timer)
        options.signal?.removeEventListener('abort', onAbort)
      }
      const waiter: Waiter<T> = {
        match,
        resolve: (item) => { settle(); resolve(item) },
        reject: (error) => { settle(); reject(error) },
      }
      this.#waiters.add(waiter)
      if (options.timeoutMs !== undefined) timer = setTimeout(() => waiter.reject(new TimeoutError(`no ${what} within ${options.timeoutMs} ms`)), options.timeoutMs)
      options.signal?.addEventListener('abort', onAbort, { once: true })
    })
  }
}
