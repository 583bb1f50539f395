/** One connection pool per database URL option, migrated once before first use. */
import { createHash } from 'node:crypto'
import pg from 'pg'
import { migrate } from './migrations.ts'

export interface PostgresConnectionOptions {
  /**
   * `postgres://user@host:port/db`. The operator layer takes it from an environment variable,
   * so no credential sits in a configuration file; it is never logged or echoed.
   */
  url: string
  /** Connections in the pool (default 10). */
  poolSize?: number
  /** Idle-connection errors (the server restarted, the network dropped); default: ignored, the pool reconnects. */
  onError?: (err: Error) => void
  /**
   * A transaction left open this long between statements is ended by the server, which rolls it
   * back and frees its locks (default 10 000 ms). Only a stalled process leaves one open (a long
   * GC pause, SIGSTOP, a frozen VM): without a bound it would hold its row locks, and the fleet's
   * claim lock, until it continued. The stalled transaction runs again from the start when its
   * process continues (retry.ts, 25P03).
   */
  idleInTransactionMs?: number
}

export const POOL_DEFAULTS = { idleInTransactionMs: 10_000 } as const

export async function openPool(options: PostgresConnectionOptions): Promise<pg.Pool> {
  const pool = new pg.Pool({
    connectionString: options.url, max: options.poolSize ?? 10,
    idle_in_transaction_session_timeout: options.idleInTransactionMs ?? POOL_DEFAULTS.idleInTransactionMs,
  })
  // An idle client's error would otherwise be an unhandled 'error' event and crash the process.
  pool.on('error', (err) => options.onError?.(err))
  // A client being handed out has neither the pool's listener nor yet its borrower's: a new one
  // whose server ends it right after its handshake (the FATAL read in one chunk with the
  // handshake's ReadyForQuery, as a pg_terminate_backend under load gives) emitted an unhandled
  // 'error' before transaction() could listen, and ended the process. Every client keeps this
  // listener for life; the borrower's next statement fails as on any broken connection.
  pool.on('connect', (client) => client.on('error', () => {}))
  try {
    await migrate(pool)
  } catch (err) {
    await pool.end().catch(() => undefined)
    throw new Error(`PostgreSQL migration failed: ${redact((err as Error).message, options.url)}`)
  }
  return pool
}

/** Error texts may quote the connection string; it can carry a password. */
export function redact(text: string, url: string): string {
  return url ? text.split(url).join('postgres://…') : text
}

/**
 * Which database a URL names, as an opaque digest (never the URL, which may carry a password):
 * a queue and a session store with the same id can change a job and its park in one transaction.
 */
export function databaseIdOf(url: string): string {
  return createHash('sha256').update(url).digest('hex').slice(0, 32)
}
