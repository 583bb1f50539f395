/**
 * job-status.5-6 on the PostgreSQL queue: the write that records a job's start also names its
 * session, which a park's resume checks (the job must be this session's). When that write fails
 * on a broken connection (the database killed it, as the fleet's database-errors test does), the
 * job used to run on unrecorded, park with no session named, and its result was refused on every
 * process: parked for good. The start write is tried again, and the park waits for it.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { QueueAdapter } from '../queue/adapter.ts'
import { createPostgresQueueAdapter } from '../queue/postgres-adapter.ts'
import { createPostgresSessionStore } from '../sessions/stores/postgres-store.ts'
import { startTestGateway, until, type TestGateway } from './harness.ts'
import { usePostgres } from './postgres-fixture.ts'

const postgres = usePostgres()
let g: TestGateway | undefined
afterEach(async () => {
  await g?.close()
  g = undefined
})

/** The adapter, whose first write of a job's start fails as on a connection the server terminated (nothing written). */
function failingFirstStart(real: QueueAdapter): { adapter: QueueAdapter; failed: () => number } {
  let failed = 0
  const adapter = new Proxy(real, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver)
      if (key !== 'update' || typeof value !== 'function') return value
      return (id: string, patch: Record<string, unknown>, ...rest: unknown[]) => {
        if (failed === 0 && 'startedAt' in patch && 'sessionId' in patch) {
          failed++
          return Promise.reject(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))
        }
        return value.call(target, id, patch, ...rest)
      }
    },
  })
  return { adapter, failed: () => failed }
}

describe('a job whose start write failed (job-status.5-6, PostgreSQL queue)', () => {
  it('parks with its session recorded, and its result resumes it to the end', async () => {
    const url = await postgres.database()
    const { adapter, failed } = failingFirstStart(postgres.track(await createPostgresQueueAdapter({ url, poolSize: 4 })))
    const store = postgres.track(await createPostgresSessionStore({ url }))
    g = await startTestGateway({ queue: { adapter }, parking: { store, parkDelayMs: 20 } }, { deferredTools: { deferred_task: { expiresInMs: 60_000 } } })
    const submitted = await g.request('POST', '/jobs', { body: { session: { prompt: 'scenario:deferred' } } })
    expect(submitted.status).toBe(201)
    const id = submitted.body.job.id
    const parked = await until(async () => (await g!.request('GET', `/jobs/${id}`)).body.job, (j) => j.status === 'parked', 'the job parked')
    expect(failed()).toBe(1)
    expect(typeof parked.sessionId).toBe('string')
    const result = await g.request('POST', `/executions/${parked.parkedExecutionId}/result`, { body: { status: 'ok', output: { type: 'text', value: 'go on' } } })
    expect({ status: result.status, applied: result.body?.applied }).toEqual({ status: 200, applied: true })
    const done = await until(async () => (await g!.request('GET', `/jobs/${id}`)).body.job, (j) => !['queued', 'running', 'parked'].includes(j.status), 'the job ended')
    expect(done).toMatchObject({ status: 'succeeded', attempt: 1, sessionId: parked.sessionId })
  }, 60_000)
})
