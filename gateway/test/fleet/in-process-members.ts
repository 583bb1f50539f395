/**
 * Servers of one fleet inside the test process (the `fleet` library option of createGatewayServer),
 * each with its own session-store pool and directory on one embedded PostgreSQL, as separate
 * processes would have. `useInProcessFleet` registers the database's start and the teardown of
 * every member and pool with vitest.
 */
import { afterAll, beforeAll } from 'vitest'
import { createSessionDirectory } from '../../fleet/directory.ts'
import type { GatewayServerOptions } from '../../server/options.ts'
import { createPostgresSessionStore } from '../../sessions/stores/postgres-store.ts'
import { startTestGateway, type TestGateway } from '../harness.ts'
import { startPostgresServer, type PostgresServer } from '../postgres-server.ts'

type RunnerOptions = Parameters<typeof startTestGateway>[1]

export interface InProcessFleet {
  /** The fleet's database (set once the suite's beforeAll ran). */
  readonly url: string
  /**
   * A member named `processId`: persistLive parking on the shared store, the fleet's directory
   * and secret; `overrides` add to the server's options, `runner` replaces the provider runner's
   * (a deferred_task of 60 s by default).
   */
  member(processId: string, overrides?: Partial<GatewayServerOptions>, runner?: RunnerOptions): Promise<TestGateway>
  /** Something else opened on the database (a profile store), closed after the members. */
  closeAfter(closable: { close(): Promise<void> }): void
}

export function useInProcessFleet(database: string): InProcessFleet {
  let server: PostgresServer | undefined
  let url = ''
  const gateways: TestGateway[] = []
  const closers: Array<{ close(): Promise<void> }> = []
  beforeAll(async () => {
    server = await startPostgresServer()
    url = await server.createDatabase(database)
  }, 120_000)
  afterAll(async () => {
    for (const g of gateways) await g.close().catch(() => undefined)
    for (const c of closers) await c.close().catch(() => undefined)
    await server?.stop()
  })
  return {
    get url() { return url },
    async member(processId, overrides = {}, runner = { deferredTools: { deferred_task: { expiresInMs: 60_000 } } }) {
      const store = await createPostgresSessionStore({ url, poolSize: 2 })
      closers.push(store)
      const directory = await createSessionDirectory({ url, processId, leaseMs: 60_000 })
      const g = await startTestGateway({ parking: { store, persistLive: true, parkDelayMs: 20 }, fleet: { directory, secret: `${database}-secret` }, ...overrides }, runner)
      gateways.push(g)
      return g
    },
    closeAfter(closable) {
      closers.push(closable)
    },
  }
}
