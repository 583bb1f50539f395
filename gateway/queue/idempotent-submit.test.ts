/**
 * POST /jobs under an Idempotency-Key: a submission retried after an answer was lost
 * (a 503 on a broken connection whose insert had committed) finds its job and adds none, on the
 * memory adapter and on PostgreSQL, where two processes may receive the retry at once.
 */
import { describe, expect, it } from 'vitest'
import { usePostgres } from '../test/postgres-fixture.ts'
import type { QueueAdapter } from './adapter.ts'
import { QueueRefusal } from './job-queue.ts'
import { createMemoryQueueAdapter } from './memory-adapter.ts'
import { createPostgresQueueAdapter } from './postgres-adapter.ts'
import { scriptedJobQueue } from './testing/scripted-runner.ts'

const postgres = usePostgres()

const request = (prompt: string) => ({ session: { cwd: '/w', prompt } })

async function check(adapters: QueueAdapter[]) {
  // maxConcurrency 0: nothing is claimed, so what the store holds is what was submitted.
  const queues = adapters.map((adapter) => scriptedJobQueue({ adapter, maxConcurrency: 0 }))
  const scope = { tenant: 'a' }
  const first = await Promise.all(queues.map(({ queue }) => queue.submit(request('p'), scope, 'key-1')))
  expect(new Set(first.map((j) => j.id)).size).toBe(1)
  expect(await queues[0].queue.submit(request('p'), scope, 'key-1')).toMatchObject({ id: first[0].id })
  // job_submitted once, for the one job added.
  expect(queues.flatMap((q) => q.events).filter((e) => e.type === 'job_submitted')).toHaveLength(1)
  // Another scope's key is another key; a reused key with another request is refused; no key adds every time.
  expect((await queues[0].queue.submit(request('p'), { tenant: 'b' }, 'key-1')).id).not.toBe(first[0].id)
  await expect(queues[0].queue.submit(request('other'), scope, 'key-1')).rejects.toBeInstanceOf(QueueRefusal)
  const a = await queues[0].queue.submit(request('p'), scope)
  const b = await queues[0].queue.submit(request('p'), scope)
  expect(a.id).not.toBe(b.id)
  expect(await queues[0].queue.list()).toHaveLength(4)
  for (const { queue } of queues) queue.close()
}

describe('idempotent job submission', () => {
  it('memory adapter: one job per key and scope', async () => {
    await check([createMemoryQueueAdapter()])
  })

  it('PostgreSQL: the same key submitted through two processes at once adds one job', async () => {
    const url = await postgres.database()
    const adapters = await Promise.all([1, 2].map(() => createPostgresQueueAdapter({ url, poolSize: 2 })))
    adapters.forEach((a) => postgres.track(a))
    await check(adapters)
  }, 60_000)
})
