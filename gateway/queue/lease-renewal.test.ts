/**
 * Lease renewal follows the runs a process has (job-status.7): with
 * `renewOnly`, the heartbeat renews only the attempts the queue names, so a job whose run ended or
 * was never started here lapses and another process reclaims it, instead of staying `running`
 * forever under a live process's renewed lease.
 */
import { describe, expect, it } from 'vitest'
import { usePostgres } from '../test/postgres-fixture.ts'
import { createPostgresQueueAdapter, type PostgresQueueAdapter } from './postgres-adapter.ts'

const postgres = usePostgres()

const LEASE_MS = 300

async function adapter(url: string, workerId: string): Promise<PostgresQueueAdapter> {
  const a = await createPostgresQueueAdapter({ url, poolSize: 3, leaseMs: LEASE_MS, workerId })
  postgres.track(a)
  return a
}

function job(id: string) {
  return {
    info: { id, status: 'queued' as const, cwd: '', prompt: 'p', createdAt: 0, attempt: 1, maxAttempts: 1, usage: { tokens: 0, totalCostUsd: 0, numTurns: 0 } },
    request: { session: { cwd: '', prompt: 'p' } },
  }
}

describe('lease renewal with renewOnly', () => {
  it('renews the claims of runs the queue names and lets the others lapse to another process', async () => {
    const url = await postgres.database()
    const holder = await adapter(url, 'holder')
    const other = await adapter(url, 'other')
    for (const id of ['run', 'orphan', 'stale']) await holder.add(job(id))
    for (let i = 0; i < 3; i++) expect(await holder.claimNext(Date.now())).toBeDefined()
    // 'run' is running here; 'orphan' has no run; 'stale' names an attempt the job is not at.
    holder.renewOnly(() => [{ id: 'run', attempt: 1 }, { id: 'stale', attempt: 2 }])
    await new Promise((r) => setTimeout(r, LEASE_MS * 3))
    expect((await other.reclaimExpired!(Date.now())).map((r) => r.info.id).sort()).toEqual(['orphan', 'stale'])
    expect(holder.leaseHeld('run')).toBe(true)
    expect(holder.leaseHeld('orphan')).toBe(false)
  })

  it('without renewOnly renews every running job the process holds a lease on', async () => {
    const url = await postgres.database()
    const holder = await adapter(url, 'holder')
    const other = await adapter(url, 'other')
    await holder.add(job('a'))
    expect(await holder.claimNext(Date.now())).toBeDefined()
    await new Promise((r) => setTimeout(r, LEASE_MS * 3))
    expect(await other.reclaimExpired!(Date.now())).toEqual([])
  })
})
