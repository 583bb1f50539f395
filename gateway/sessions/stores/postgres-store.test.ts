import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { until } from '../../test/harness.ts'
import { startPostgresServer, type PostgresServer } from '../../test/postgres-server.ts'
import { createSessionDirectory } from '../../fleet/directory.ts'
import { SessionMovedError } from '../session-store.ts'
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

describe('postgres session store fenced to a fleet process (fenceTo)', () => {
  it("refuses a write or a delete of a session another live process holds, and takes them again once that holder is dead", async () => {
    const url = await server.createDatabase()
    const [a, b] = await Promise.all([fresh(url), fresh(url)])
    const dirB = await createSessionDirectory({ url, processId: 'p-b', leaseMs: 60_000 })
    try {
      a.fenceTo!('p-a')
      b.fenceTo!('p-b')
      const first = { ...storedSessionFixture('s1'), kind: 'live' as const }
      await a.save(first) // no directory row yet: a create's record lands before its claim
      await dirB.start('http://127.0.0.1:1')
      await dirB.claim(first.info) // B adopted s1 while A stalled
      const stale = { ...first, snapshot: { ...first.snapshot, seq: 1 } }
      await expect(a.save(stale)).rejects.toBeInstanceOf(SessionMovedError)
      await a.delete('s1')
      expect(await b.load('s1')).toEqual(first)
      const newer = { ...first, snapshot: { ...first.snapshot, seq: 99 } }
      await b.save(newer)
      expect((await a.load('s1'))?.snapshot.seq).toBe(99)
      // A dead holder fences nothing: whoever rebuilds its session writes before its own claim lands.
      await dirB.stop()
      await a.save(stale)
      expect((await b.load('s1'))?.snapshot.seq).toBe(1)
    } finally {
      await dirB.stop()
      await Promise.all([a.close(), b.close()])
    }
  })

  it('tells a process once when a renewal finds its lease had lapsed, and which of its sessions another live process holds', async () => {
    const url = await server.createDatabase()
    const a = await createSessionDirectory({ url, processId: 'p-a', leaseMs: 60_000, heartbeatMs: 20 })
    const b = await createSessionDirectory({ url, processId: 'p-b', leaseMs: 60_000 })
    const { default: pg } = await import('pg')
    const raw = new pg.Pool({ connectionString: url, max: 1 })
    const leaseOfA = async () => String((await raw.query("SELECT lease_until FROM gateway_fleet_members WHERE process_id = 'p-a'")).rows[0]?.lease_until)
    const renewed = async () => { const before = await leaseOfA(); await until(leaseOfA, (now) => now !== before, 'a renewal of A') }
    const told: number[] = []
    try {
      a.onLapsed(() => told.push(Date.now()))
      await a.start('http://127.0.0.1:1')
      await b.start('http://127.0.0.1:2')
      for (const id of ['s1', 's2']) await a.claim(storedSessionFixture(id).info)
      // Renewals while the lease holds: never told.
      await renewed()
      await renewed()
      expect(told).toEqual([])
      expect(await a.heldElsewhere(['s1', 's2'])).toEqual([])
      // A's lease ends (as a stall past leaseMs leaves it) and B adopts s2, in one transaction:
      // A's next renewal (every 20 ms) must find both, whatever the machine's load.
      await raw.query(`BEGIN;
        UPDATE gateway_fleet_members SET lease_until = clock_timestamp() - interval '1 second' WHERE process_id = 'p-a';
        UPDATE gateway_session_directory SET process_id = 'p-b', epoch = epoch + 1 WHERE session_id = 's2';
        COMMIT`)
      await until(async () => told.length, (n) => n > 0, 'A told its lease had lapsed')
      expect(await a.heldElsewhere(['s1', 's2'])).toEqual(['s2'])
      await renewed()
      await renewed()
      expect(told).toHaveLength(1)
    } finally {
      await Promise.all([a.stop(), b.stop(), raw.end()])
    }
  })
})
