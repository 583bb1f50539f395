import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { QueueOptions } from './options.ts'
import { scriptedJobQueue } from './testing/scripted-runner.ts'

beforeEach(() => { vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] }) })
afterEach(() => { vi.useRealTimers() })

function rig(options: QueueOptions, now?: () => number) {
  const { queue, runners, events } = scriptedJobQueue(options, now)
  const submit = () => queue.submit({ session: { cwd: '', prompt: 'p' } }, undefined)
  const status = async (id: string) => (await queue.get(id))?.info.status
  return { queue, runners, events, submit, status }
}

describe('JobQueue timers', () => {
  it('claims a retry even when its timer fires before the queue clock reaches nextRunAt', async () => {
    // After the retry is scheduled the queue's clock falls 3 ms behind the timers, as the wall
    // clock may drift against the monotonic one: the timer then fires "early".
    let lag = 0
    const { queue, runners, status } = rig({}, () => Date.now() - lag)
    const job = await queue.submit({ session: { cwd: '', prompt: 'p' }, attempts: 2, retryDelayMs: 50 }, undefined)
    await vi.advanceTimersByTimeAsync(0)
    runners[0].finish(true)
    await vi.advanceTimersByTimeAsync(0)
    expect(await status(job.id)).toBe('queued')
    lag = 3
    await vi.advanceTimersByTimeAsync(50 + 10)
    expect(runners).toHaveLength(2)
    expect(await status(job.id)).toBe('running')
  })

  it('excludes parked time from the duration watchdog', async () => {
    const { queue, runners, submit, status } = rig({ maxJobDurationMs: 100, killGraceMs: 10 })
    const job = await submit()
    await vi.advanceTimersByTimeAsync(60)
    expect(await queue.onSessionParking(runners[0].id, 'e1')).toBe(true)
    await queue.onSessionParked(runners[0].id, 'e1')
    await vi.advanceTimersByTimeAsync(1000) // parked: the clock does not run
    expect(await status(job.id)).toBe('parked')
    await queue.onSessionResumed(runners[0].id, runners[0].runner())
    await vi.advanceTimersByTimeAsync(30)
    expect(await status(job.id)).toBe('running')
    await vi.advanceTimersByTimeAsync(30) // 60 + 60 > 100 running, then the kill grace
    expect(await status(job.id)).toBe('failed')
    expect((await queue.get(job.id))?.info.error).toBe('job exceeded max duration (100ms)')
  })

  it('fails a job parked longer than maxParkedDurationMs', async () => {
    const { queue, runners, submit, status } = rig({ maxParkedDurationMs: 500 })
    const job = await submit()
    await vi.advanceTimersByTimeAsync(0)
    await queue.onSessionParking(runners[0].id, 'e1')
    await queue.onSessionParked(runners[0].id, 'e1')
    await vi.advanceTimersByTimeAsync(499)
    expect(await status(job.id)).toBe('parked')
    await vi.advanceTimersByTimeAsync(2)
    expect(await status(job.id)).toBe('failed')
    expect((await queue.get(job.id))?.info.error).toBe('job exceeded max parked duration (500ms)')
  })

  it('frees the slot while parked and reports parked then resumed', async () => {
    const { queue, runners, events, submit, status } = rig({ maxConcurrency: 1 })
    const first = await submit()
    const second = await submit()
    await vi.advanceTimersByTimeAsync(0)
    expect(await status(second.id)).toBe('queued')
    await queue.onSessionParking(runners[0].id, 'exec-1')
    await queue.onSessionParked(runners[0].id, 'exec-1')
    await vi.advanceTimersByTimeAsync(0)
    expect(await status(second.id)).toBe('running')
    const resumed = queue.waitForResumeSlot(runners[0].id).then(() => queue.onSessionResumed(runners[0].id, runners[0].runner()))
    runners[1].finish()
    await vi.advanceTimersByTimeAsync(0)
    await resumed
    expect(await status(first.id)).toBe('running')
    runners[0].finish()
    await vi.advanceTimersByTimeAsync(0)
    const mine = events.filter((e) => e.jobId === first.id).map((e) => e.type)
    expect(mine).toEqual(['job_submitted', 'job_started', 'job_parked', 'job_resumed', 'job_completed'])
    expect(events.find((e) => e.type === 'job_parked')).toMatchObject({ executionId: 'exec-1' })
  })

  it('holds queued jobs while the daily budget is spent and starts them at the UTC rollover', async () => {
    vi.setSystemTime(new Date('2026-11-22T23:59:00Z'))
    const { runners, submit, status } = rig({ dailyTokenLimit: 100 })
    const first = await submit()
    await vi.advanceTimersByTimeAsync(0)
    runners[0].finish(false, { input_tokens: 80, output_tokens: 40 })
    await vi.advanceTimersByTimeAsync(0)
    expect(await status(first.id)).toBe('succeeded')
    const held = await submit()
    await vi.advanceTimersByTimeAsync(30_000)
    expect(await status(held.id)).toBe('queued')
    await vi.advanceTimersByTimeAsync(31_000) // past midnight UTC: no other event needed
    expect(await status(held.id)).toBe('running')
  })

  it('prunes terminal jobs older than maxAgeMs on the retention sweep', async () => {
    const { queue, runners, submit } = rig({ retention: { maxAgeMs: 1000, sweepIntervalMs: 500 } })
    const job = await submit()
    await vi.advanceTimersByTimeAsync(0)
    runners[0].finish()
    await vi.advanceTimersByTimeAsync(0)
    expect(await queue.get(job.id)).toBeDefined()
    await vi.advanceTimersByTimeAsync(1600)
    expect(await queue.get(job.id)).toBeUndefined()
  })
})
