/**
 * job-status.12 at the one phase the gateway tests cannot hold open: an attempt that ended and
 * whose final write is still in flight. That write may queue a retry (job-status.7); a cancel
 * meanwhile waits for it and then ends the retry, rather than answering `running` and letting the
 * job run its next attempt.
 */
import { describe, expect, it } from 'vitest'
import type { QueueAdapter } from './adapter.ts'
import { createMemoryQueueAdapter } from './memory-adapter.ts'
import { scriptedJobQueue } from './testing/scripted-runner.ts'

/** The in-memory adapter whose retry writes (back to `queued`) wait until `release()`. */
function gatedRetries(): { adapter: QueueAdapter; release: () => void; waiting: () => boolean } {
  const real = createMemoryQueueAdapter()
  let release!: () => void
  const gate = new Promise<void>((resolve) => { release = resolve })
  let waiting = false
  const adapter: QueueAdapter = {
    ...real,
    async update(id, patch, fence, event) {
      if (patch.status === 'queued') {
        waiting = true
        await gate
      }
      return real.update(id, patch, fence, event)
    },
  }
  return { adapter, release, waiting: () => waiting }
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 5))
  if (!check()) throw new Error(`timed out waiting for ${what}`)
}

describe('a cancel while an ended attempt\'s write is in flight (job-status.12)', () => {
  it('waits for the write that queues the retry, then cancels the retry: no second attempt', async () => {
    const { adapter, release, waiting } = gatedRetries()
    const { queue, runners, events } = scriptedJobQueue({ adapter })
    const job = await queue.submit({ session: { cwd: '', prompt: 'p' }, attempts: 2, retryDelayMs: 50 }, undefined)
    await until(() => runners.length === 1, 'the first attempt started')
    runners[0].finish(true)
    await until(waiting, 'the retry write in flight')
    const canceling = queue.cancel(job.id)
    release()
    expect((await canceling)?.status).toBe('canceled')
    // Past the retry delay: the retry was never claimed.
    await new Promise((r) => setTimeout(r, 100))
    expect(runners).toHaveLength(1)
    expect((await queue.get(job.id))?.info.status).toBe('canceled')
    expect(events.filter((e) => e.jobId === job.id).map((e) => e.type)).toEqual(['job_submitted', 'job_started', 'job_retrying', 'job_completed'])
    queue.close()
  })
})
