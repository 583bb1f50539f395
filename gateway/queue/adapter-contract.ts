/**
 * The QueueAdapter contract as a vitest suite any adapter can run:
 * `describeQueueAdapterContract('my adapter', () => createMyAdapter())`.
 */
import { describe, expect, it } from 'vitest'
import type { JobInfo } from '../protocol/index.ts'
import type { JobRecord, QueueAdapter } from './adapter.ts'

function job(id: string, extra: Partial<JobInfo> = {}): JobRecord {
  return {
    info: { id, status: 'queued', cwd: '', prompt: 'p', createdAt: 0, attempt: 1, maxAttempts: 1, usage: { tokens: 0, totalCostUsd: 0, numTurns: 0 }, ...extra },
    request: { session: { cwd: '', prompt: 'p' } },
  }
}

export function describeQueueAdapterContract(name: string, create: () => QueueAdapter | Promise<QueueAdapter>): void {
  describe(`QueueAdapter contract: ${name}`, () => {
    it('claims the oldest queued job first and never the same job twice', async () => {
      const adapter = await create()
      await adapter.add(job('a'))
      await adapter.add(job('b'))
      const claims = await Promise.all([adapter.claimNext(1), adapter.claimNext(1), adapter.claimNext(1)])
      expect(claims.map((c) => c?.info.id)).toEqual(['a', 'b', undefined])
      expect((await adapter.get('a'))?.info.status).toBe('running')
    })

    it('skips queued jobs whose nextRunAt is in the future', async () => {
      const adapter = await create()
      await adapter.add(job('later', { nextRunAt: 1000 }))
      expect(await adapter.claimNext(999)).toBeUndefined()
      expect((await adapter.claimNext(1000))?.info.id).toBe('later')
    })

    it('updates by shallow merge and clears keys set to undefined', async () => {
      const adapter = await create()
      await adapter.add(job('a', { nextRunAt: 5, error: 'x' }))
      const updated = await adapter.update('a', { error: undefined, attempt: 2 })
      expect(updated?.info.attempt).toBe(2)
      expect('error' in (updated?.info ?? {})).toBe(false)
      expect(updated?.info.nextRunAt).toBe(5)
      expect(await adapter.update('missing', { attempt: 3 })).toBeUndefined()
    })

    it('a queued-fenced update lands only while the job is still queued (a cancel racing a claim, job-status.12)', async () => {
      const adapter = await create()
      await adapter.add(job('a'))
      await adapter.add(job('b'))
      expect((await adapter.update('a', { status: 'canceled' }, { queued: true }))?.info.status).toBe('canceled')
      expect((await adapter.claimNext(1))?.info.id).toBe('b')
      expect(await adapter.update('b', { status: 'canceled' }, { queued: true })).toBeUndefined()
      expect((await adapter.get('b'))?.info.status).toBe('running')
    })

    it('cancels a running job through the held fence only while it is still in that attempt (job-status.12)', async () => {
      const adapter = await create()
      await adapter.add(job('a'))
      await adapter.add(job('b'))
      expect(await adapter.update('a', { status: 'canceled' }, { held: 1 })).toBeUndefined()
      expect((await adapter.get('a'))?.info.status).toBe('queued')
      const claimed = (await adapter.claimNext(1))!
      expect(await adapter.update('a', { status: 'canceled' }, { held: claimed.info.attempt + 1 })).toBeUndefined()
      expect((await adapter.update('a', { status: 'canceled' }, { held: claimed.info.attempt }))?.info.status).toBe('canceled')
      expect(await adapter.update('a', { status: 'failed' }, { held: claimed.info.attempt })).toBeUndefined()
      expect((await adapter.get('a'))?.info.status).toBe('canceled')
    })

    it('lists oldest first and returns copies callers cannot mutate', async () => {
      const adapter = await create()
      await adapter.add(job('a'))
      await adapter.add(job('b'))
      const list = await adapter.list()
      expect(list.map((r) => r.info.id)).toEqual(['a', 'b'])
      list[0].info.status = 'failed'
      expect((await adapter.get('a'))?.info.status).toBe('queued')
    })

    it('prunes only terminal jobs finished long enough ago, never queued, running or parked ones', async () => {
      const adapter = await create()
      await adapter.add(job('old', { status: 'succeeded', finishedAt: 100 }))
      await adapter.add(job('new', { status: 'failed', finishedAt: 950 }))
      await adapter.add(job('parked', { status: 'parked' }))
      await adapter.add(job('queued'))
      expect(await adapter.prune(100, 1000)).toBe(1)
      expect((await adapter.list()).map((r) => r.info.id)).toEqual(['new', 'parked', 'queued'])
    })

    it('keeps daily token counters per UTC day key', async () => {
      const adapter = await create()
      expect(await adapter.addDailyTokens('2026-11-22', 10)).toBe(10)
      expect(await adapter.addDailyTokens('2026-11-22', 5)).toBe(15)
      expect(await adapter.dailyTokens('2026-11-23')).toBe(0)
      expect(await adapter.dailyTokens('2026-11-22')).toBe(15)
    })
  })
}
