import { afterEach, describe, expect, it, vi } from 'vitest'
import type { JobEvent } from '../protocol/index.ts'
import { JobEventOrder } from './job-event-order.ts'

const ev = (type: string, seq?: number, status = 'running', jobId = 'j1'): JobEvent =>
  ({ type, jobId, ts: 0, job: { id: jobId, status }, ...(seq !== undefined ? { seq } : {}) }) as unknown as JobEvent

describe('JobEventOrder (job-status.2 across a fleet)', () => {
  afterEach(() => { vi.useRealTimers() })

  it('holds a job\'s events until their predecessors come, then sends them in order, once each', () => {
    const out: string[] = []
    const order = new JobEventOrder((e) => out.push(`${e.type}${e.seq ?? ''}`))
    order.push(ev('job_started', 1))
    order.push(ev('job_progress'))
    order.push(ev('job_completed', 2, 'completed'))
    expect(out).toEqual([])
    order.push(ev('job_submitted', undefined, 'queued'))
    expect(out).toEqual(['job_submitted', 'job_started1', 'job_progress', 'job_completed2'])
    order.push(ev('job_started', 1))
    expect(out).toHaveLength(4)
    order.close()
  })

  it('sends what it holds after gapWaitMs when a predecessor never comes', () => {
    vi.useFakeTimers()
    const out: string[] = []
    const order = new JobEventOrder((e) => out.push(`${e.type}${e.seq ?? ''}`), { gapWaitMs: 50 })
    order.push(ev('job_resumed', 4))
    order.push(ev('job_completed', 5, 'completed'))
    expect(out).toEqual([])
    vi.advanceTimersByTime(50)
    expect(out).toEqual(['job_resumed4', 'job_completed5'])
    order.close()
  })

  it('drops what it hears of a job after the job_completed it sent: a relay later than gapWaitMs never goes out after the end', () => {
    vi.useFakeTimers()
    const out: string[] = []
    const order = new JobEventOrder((e) => out.push(`${e.type}${e.seq ?? ''}`), { gapWaitMs: 50 })
    order.push(ev('job_submitted', undefined, 'queued'))
    order.push(ev('job_started', 1))
    order.push(ev('job_completed', 3, 'completed')) // its job_retrying #2 is late (its process stalled before relaying it)
    vi.advanceTimersByTime(50)
    expect(out).toEqual(['job_submitted', 'job_started1', 'job_completed3'])
    order.push(ev('job_retrying', 2))
    order.push(ev('job_progress'))
    vi.advanceTimersByTime(500)
    expect(out).toEqual(['job_submitted', 'job_started1', 'job_completed3'])
    order.close()
  })
})
