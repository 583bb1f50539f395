import { describe, expect, it } from 'vitest'
import type { SessionInfo } from '../../protocol/index.ts'
import type { SessionStore, StoredSession } from '../session-store.ts'

/** A parked provider session as a runner would leave it. */
export function storedSessionFixture(id: string, savedAt = 1_700_000_000_000): StoredSession {
  const createdAt = 1_699_999_000_000
  return {
    kind: 'park',
    id,
    config: {
      id,
      profile: 'default',
      engine: 'provider',
      permissionMode: 'default',
      canBypassPermissions: false,
      createdAt,
    },
    info: {
      id,
      status: 'idle',
      profile: 'default',
      engine: 'provider',
      capabilities: {},
      permissionMode: 'default',
      canBypassPermissions: false,
      apiKeySource: 'none',
      lastSeq: 1,
      pendingPermissionCount: 0,
      totalCostUsd: 0,
      numTurns: 0,
      activityCount: 0,
      createdAt,
      subagents: [],
    } as unknown as SessionInfo,
    snapshot: {
      events: [{ type: 'status_changed', status: 'idle', seq: 1, ts: 1 }],
      seq: 1,
      createdAt,
      engineState: { history: [] },
      files: {},
      executions: [{ executionId: 'e1', toolName: 't', expiresAt: 123 }],
    },
    savedAt,
  }
}

type MakeStore = () => Promise<{ store: SessionStore; cleanup?: () => Promise<void> }>

/** The behaviour every SessionStore must share; run it from each implementation's test file. */
export function describeSessionStoreContract(name: string, make: MakeStore): void {
  const withStore = (fn: (store: SessionStore) => Promise<void>) => async () => {
    const { store, cleanup } = await make()
    try {
      await fn(store)
    } finally {
      await cleanup?.()
    }
  }

  describe(`SessionStore contract: ${name}`, () => {
    it('round-trips a record', withStore(async (store) => {
      const record = storedSessionFixture('s1')
      await store.save(record)
      expect(await store.load('s1')).toEqual(record)
    }))

    it('keeps a live record\'s seq reservation (write-ahead)', withStore(async (store) => {
      const record: StoredSession = { ...storedSessionFixture('s1'), kind: 'live', seqReserved: 1001 }
      await store.save(record)
      expect((await store.load('s1'))?.seqReserved).toBe(1001)
      expect((await store.list())[0].seqReserved).toBe(1001)
    }))

    it('loads an unknown id as undefined', withStore(async (store) => {
      expect(await store.load('nope')).toBeUndefined()
    }))

    it('replaces on save', withStore(async (store) => {
      await store.save(storedSessionFixture('s1', 1))
      await store.save({ ...storedSessionFixture('s1', 2), kind: 'live' })
      expect(await store.load('s1')).toMatchObject({ kind: 'live', savedAt: 2 })
      expect(await store.list()).toHaveLength(1)
    }))

    it('deletes, idempotently', withStore(async (store) => {
      await store.save(storedSessionFixture('s1'))
      await store.delete('s1')
      expect(await store.load('s1')).toBeUndefined()
      await store.delete('s1')
      await store.delete('never-saved')
    }))

    it('lists every record', withStore(async (store) => {
      const ids = ['a', 'b', 'c']
      for (const id of ids) await store.save(storedSessionFixture(id))
      const listed = await store.list()
      expect(listed.map((r) => r.id).sort()).toEqual(ids)
      expect(listed.find((r) => r.id === 'b')).toEqual(storedSessionFixture('b'))
    }))

    it('does not alias stored records', withStore(async (store) => {
      const record = storedSessionFixture('s1')
      await store.save(record)
      record.snapshot.seq = 99

      const loaded = await store.load('s1')
      loaded!.snapshot.events.length = 0
      loaded!.snapshot.executions[0].expiresAt = 0
      const [listed] = await store.list()
      listed.info.title = 'mutated'

      expect(await store.load('s1')).toEqual(storedSessionFixture('s1'))
    }))

    it('applies save then delete in call order', withStore(async (store) => {
      await Promise.all([store.save(storedSessionFixture('a', 1)), store.delete('a')])
      expect(await store.load('a')).toBeUndefined()
    }))

    it('applies delete then save in call order', withStore(async (store) => {
      await store.save(storedSessionFixture('a', 1))
      await Promise.all([store.delete('a'), store.save(storedSessionFixture('a', 2))])
      expect(await store.load('a')).toEqual(storedSessionFixture('a', 2))
    }))

    it('sees a save from a load issued right after it', withStore(async (store) => {
      const saved = store.save(storedSessionFixture('a', 3))
      const loaded = store.load('a')
      await saved
      expect(await loaded).toEqual(storedSessionFixture('a', 3))
    }))

    it('round-trips awkward ids', withStore(async (store) => {
      const ids = ['a/b', '..', '../x', 'with space', '%2F', 'ü?#*\\']
      for (const id of ids) await store.save(storedSessionFixture(id))
      for (const id of ids) expect(await store.load(id)).toEqual(storedSessionFixture(id))
      expect((await store.list()).map((r) => r.id).sort()).toEqual([...ids].sort())
    }))
  })
}
