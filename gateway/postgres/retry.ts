/**
 * The one place PostgreSQL calls are retried and transactions are run.
 *
 * A serialisation failure (40001) or a deadlock victim (40P01) rolled its whole transaction back,
 * so running it again is safe: it is retried here after a jittered, doubling pause, a bounded
 * number of times. Any other error, or the last retryable one, reaches the caller, which fails
 * that one request or job operation; nothing here ever throws outside a returned promise.
 *
 * A checked-out client has no `error` listener of the pool's (pg-pool removes its idle listener
 * on checkout), so a connection that breaks mid-transaction would emit an unhandled `error` event
 * and end the process: `transaction` listens for it while it holds the client, and hands a broken
 * client back to the pool to be destroyed rather than reused.
 */
import type pg from 'pg'

/**
 * SQLSTATEs whose transaction PostgreSQL rolled back and which may simply run again: 40001, 40P01,
 * and 25P03, a transaction the server ended because it sat idle past
 * idle_in_transaction_session_timeout (its process stalled holding it: openPool's
 * `idleInTransactionMs`), which a single statement outside a transaction never gets.
 */
export const RETRYABLE_SQLSTATES: ReadonlySet<string> = new Set(['40001', '40P01', '25P03'])

export const RETRY_DEFAULTS = { attempts: 5, baseDelayMs: 10 } as const

export interface RetryOptions {
  /** Tries in all, the first included (default 5). */
  attempts?: number
  /** The first pause; each next one doubles, every pause drawn uniformly from [0, its bound] (default 10 ms). */
  baseDelayMs?: number
  /** Told of every retried failure (so an operator sees contention), never of the final one. */
  onRetry?: (err: Error, attempt: number) => void
}

/**
 * A connection that broke or could not be made: the server terminated it (57P01 admin_shutdown,
 * 57P02 crash_shutdown, 57P03 cannot_connect_now), the SQLSTATE class 08 (connection exception),
 * a socket error, pg's own "Connection terminated" when the socket closed under a query, or its
 * "not queryable" for a statement on a client whose connection had already broken.
 */
const BROKEN_SQLSTATES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03'])
const BROKEN_SOCKET_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND'])

export function isBrokenConnection(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false
  const code = (err as { code?: unknown }).code
  if (typeof code === 'string' && (BROKEN_SQLSTATES.has(code) || code.startsWith('08') || BROKEN_SOCKET_CODES.has(code))) return true
  // pg's own texts: the socket closed under a query; no connection in time; a client whose
  // connection broke before its statement was sent (pool.ts: a handshake the server ended).
  return /^Connection terminated|timeout exceeded when trying to connect|^Client has encountered a connection error/.test((err as { message?: unknown }).message as string ?? '')
}

/** Database failures that reached a caller: a request answers them 503 `database_unavailable`, never 500. */
const unavailable = new WeakSet<object>()

/** Whether `err` (or an error it wraps, via `cause`) is a database connection failure from this module. */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; typeof e === 'object' && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (unavailable.has(e)) return true
  }
  return false
}

/** Marks a broken-connection failure (the error itself, unchanged: callers still read its code and message). */
function marked<T>(op: () => Promise<T>): Promise<T> {
  return op().catch((err: unknown) => {
    if (isBrokenConnection(err)) unavailable.add(err as object)
    throw err
  })
}

export function isRetryable(err: unknown): boolean {
  return typeof err === 'object' && err !== null && RETRYABLE_SQLSTATES.has((err as { code?: string }).code ?? '')
}

/** Runs `op`; on 40001/40P01 runs it again after a jittered pause, up to `attempts` tries in all. */
export async function withRetry<T>(op: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? RETRY_DEFAULTS.attempts)
  const base = options.baseDelayMs ?? RETRY_DEFAULTS.baseDelayMs
  for (let attempt = 1; ; attempt++) {
    try {
      return await op()
    } catch (err) {
      if (!isRetryable(err) || attempt >= attempts) throw err
      try { options.onRetry?.(err as Error, attempt) } catch { /* an observer never breaks a retry */ }
      // Full jitter: the two sides of a deadlock must not collide again on the same schedule.
      await new Promise((r) => setTimeout(r, Math.random() * base * 2 ** (attempt - 1)))
    }
  }
}

/**
 * `op` inside BEGIN … COMMIT on one pooled client, retried as a whole on 40001/40P01. `op` must
 * be safe to run again from the start: its effects on the database were rolled back.
 */
export function transaction<T>(pool: pg.Pool, op: (client: pg.PoolClient) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  return marked(() => withRetry(async () => {
    const client = await pool.connect()
    let broken: Error | undefined
    // The server's own reason, when it ended the session (its FATAL arrives as an error event,
    // while the failed query may only say the connection terminated).
    let ended: Error | undefined
    const onBroken = (err: Error) => {
      broken = err
      if (isRetryable(err)) ended ??= err
    }
    client.on('error', onBroken)
    try {
      await client.query('BEGIN')
      const result = await op(client)
      await client.query('COMMIT')
      return result
    } catch (err) {
      await client.query('ROLLBACK').catch((rollbackErr: Error) => { broken ??= rollbackErr })
      // Rolled back by the server (25P03): retried as a whole, like a deadlock victim.
      throw ended && !isRetryable(err) ? ended : err
    } finally {
      // A broken client is destroyed by the pool, and its error event may still come after this
      // (the server's FATAL message trails the failed query): it keeps the listener for good.
      if (!broken) client.removeListener('error', onBroken)
      client.release(broken)
    }
  }, options))
}

/** A pool's single statement, retried on 40001/40P01 (a statement that failed so had no effect). */
export function query<R extends pg.QueryResultRow>(pool: pg.Pool, config: pg.QueryConfig | string, values?: unknown[], options: RetryOptions = {}): Promise<pg.QueryResult<R>> {
  return marked(() => withRetry(() => (typeof config === 'string' ? pool.query<R>(config, values) : pool.query<R>(config)), options))
}

/**
 * A read-only statement: as `query`, and a connection that broke under it is tried once more
 * (the pool destroys a broken client, so the second try runs on another or a fresh one). Only
 * for statements without effects: a write whose connection broke may have committed, and running
 * it again could apply it twice.
 */
export function read<R extends pg.QueryResultRow>(pool: pg.Pool, config: pg.QueryConfig | string, values?: unknown[], options: RetryOptions = {}): Promise<pg.QueryResult<R>> {
  const once = () => withRetry(() => (typeof config === 'string' ? pool.query<R>(config, values) : pool.query<R>(config)), options)
  return marked(() => once().catch((err: unknown) => {
    if (!isBrokenConnection(err)) throw err
    try { options.onRetry?.(err as Error, 1) } catch { /* an observer never breaks a retry */ }
    return once()
  }))
}
