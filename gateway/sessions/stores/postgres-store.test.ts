import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPostgresServer, type PostgresServer } from '../../test/postgres-server.ts'
import { createPostgresSessionStore, type PostgresSessionStore } from './postgres-store.ts'
import { describeSessionStoreContract, storedSessionFixture } from './store-contract.ts'

let server: PostgresServer
beforeAll(async () => {
  server = await startPostgresServer()
}, 60_000)
afterAll(() => server?.stop())

const fresh = async (url?: string): Promise<PostgresSessionStore> => createPostgresSessionStore({ url: url ?? await server.createDatabase(), poolSize: 3 })

describeSessionStoreContract('postgres', async () => {
  const store = await fresh()
  return { store, cleanup: () => store.close() }
})

describe('postgres session store shared by several processes', () => {
  it('lets exactly one of several processes adopt a park, and keeps a live record for each', async () => {
    const url = await server.createDatabase()
    const stores = await Promise.all([1, 2, 3, 4].map(() => fresh(url)))
    try {
      await stores[0].save(storedSessionFixture('parked'))
      const adopted = await Promise.all(stores.map((s) => s.adopt!('parked')))
      expect(adopted.filter((r) => r !== undefined)).toEqual([storedSessionFixture('parked')])
      expect(await stores[1].load('parked')).toBeUndefined()

      await stores[0].save({ ...storedSessionFixture('live'), kind: 'live' })
      expect((await stores[2].adopt!('live'))?.kind).toBe('live')
      expect((await stores[3].load('live'))?.kind).toBe('live')
    } finally {
      await Promise.all(stores.map((s) => s.close()))
    }
  })

  it('finds the session of an open execution from any process, until the park is gone', async () => {
    const url = await server.createDatabase()
    const [a, b] = await Promise.all([fresh(url), fresh(url)])
    try {
      await a.save(storedSessionFixture('s1'))
      expect(await b.findByExecution!('e1')).toBe('s1')
      expect(await b.findByExecution!('e2')).toBeUndefined()
      await b.adopt!('s1')
      expect(await a.findByExecution!('e1')).toBeUndefined()
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })
})
