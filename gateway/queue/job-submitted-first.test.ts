/**
 * job_submitted goes out before job_started (job-status.2) even when the job is claimed while its
 * submit is still settling: with a shared store (PostgreSQL) the inserted row is claimable, and
 * announced by NOTIFY, before `add` returns to `submit`. The kit's self-serve target saw the queue
 * WebSocket get job_started first under load.
 */
import { describe, expect, it } from 'vitest'
import type { JobEvent } from '../protocol/index.ts'
import type { QueueAdapter } from './adapter.ts'
import type { JobQueue } from './job-queue.ts'
import { createMemoryQueueAdapter } from './memory-adapter.ts'
import { scriptedJobQueue } from './testing/scripted-runner.ts'

describe('job_submitted first', () => {
  it('is emitted before job_started when a pump claims the job before submit resumes', async () => {
    const inner = createMemoryQueueAdapter()
    let queue: JobQueue | undefined
    // An adapter whose add returns late, after another pump (a NOTIFY, another job's end) ran.
    const adapter = new Proxy(inner, {
      get(target, key) {
        if (key === 'add') {
          return async (record: Parameters<QueueAdapter['add']>[0]) => {
            await target.add(record)
            void queue!.pump()
            await new Promise((resolve) => setTimeout(resolve, 20))
          }
        }
        const value = Reflect.get(target, key) as unknown
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const rig = scriptedJobQueue({ adapter })
    queue = rig.queue
    const events: JobEvent[] = rig.events
    const job = await queue.submit({ session: { cwd: '', prompt: 'p' } }, undefined)
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(rig.runners).toHaveLength(1)
    expect(events.filter((e) => e.jobId === job.id).map((e) => e.type)).toEqual(['job_submitted', 'job_started'])
    queue.close()
  })
})
