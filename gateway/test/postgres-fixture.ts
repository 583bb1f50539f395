/**
 * One embedded PostgreSQL server for a test file, and every queue adapter the file opens on it:
 * started before the file's tests, the adapters closed and the server stopped after them. The
 * queue's PostgreSQL tests all need exactly this around their cases.
 */
import { afterAll, beforeAll } from 'vitest'
import { startPostgresServer, type PostgresServer } from './postgres-server.ts'

export interface PostgresFixture {
  /** A fresh, empty database on the file's server; its URL. */
  database(): Promise<string>
  /** Closes `closable` when the file ends; returns it. */
  track<T extends { close(): Promise<void> }>(closable: T): T
}

export function usePostgres(): PostgresFixture {
  let server: PostgresServer | undefined
  const open: Array<{ close(): Promise<void> }> = []
  beforeAll(async () => {
    server = await startPostgresServer()
  }, 60_000)
  afterAll(async () => {
    await Promise.all(open.map((a) => a.close()))
    await server?.stop()
  })
  return {
    database: () => server!.createDatabase(),
    track: (closable) => {
      open.push(closable)
      return closable
    },
  }
}
