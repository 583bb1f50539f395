/**
 * job-status.12 at the phases the gateway tests cannot hold open: a claim that is in the store
 * but not yet answered (a database round trip), and an attempt that ended and whose final write is
 * still in flight. That write may queue a retry (job-status.7); a cancel meanwhile waits for it
 * and then ends the retry, rather than answering `running` and letting the job run on.
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

/** The in-memory adapter whose claims are made at once but answered only after `release()`. */
function gatedClaims(): { adapter: QueueAdapter; release: () => void; claimed: () => boolean } {
  const real = createMemoryQueueAdapter()
  let release!: () => void
  const gate = new Promise<void>((resolve) => { release = resolve })
  let claimed = false
  const adapter: QueueAdapter = {
    ...real,
    async claimNext(now, limits) {
      const record = await real.claimNext(now, limits)
      claimed ||= record !== undefined
      await gate
      return record
    },
  }
  return { adapter, release, claimed: () => claimed }
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

describe('a cancel while the job\'s claim is in the store but not yet answered (job-status.12)', () => {
  it('waits for the claim, then cancels the job: its session closed, one job_completed, canceled', async () => {
    const { adapter, release, claimed } = gatedClaims()
    const { queue, runners, events } = scriptedJobQueue({ adapter })
    const job = await queue.submit({ session: { cwd: '', prompt: 'p' } }, undefined)
    await until(claimed, 'the job claimed in the store')
    expect((await queue.get(job.id))?.info.status).toBe('running')
    const canceling = queue.cancel(job.id)
    release()
    expect((await canceling)?.status).toBe('canceled')
    await until(() => runners.length === 1 && runners[0].core.closed, 'the started session closed')
    // Started or not by the time the cancel looked again, the job ends once, canceled.
    const ends = events.filter((e) => e.jobId === job.id && e.type === 'job_completed')
    expect(ends.map((e) => e.job.status)).toEqual(['canceled'])
    queue.close()
  })
})
