/**
 * The JobQueue on a real PostgreSQL: a finished job's final write and the next claim go to the
 * database together (completeAndClaim), with the queue's rules intact.
 */
import { describe, expect, it } from 'vitest'
import pg from 'pg'
import { usePostgres } from '../test/postgres-fixture.ts'
import type { QueueAdapter } from './adapter.ts'
import { createPostgresQueueAdapter } from './postgres-adapter.ts'
import { scriptedJobQueue } from './testing/scripted-runner.ts'

const postgres = usePostgres()

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`timed out waiting for ${what}`)
}

async function rig(maxConcurrency: number, onSession?: Parameters<typeof scriptedJobQueue>[2]) {
  const url = await postgres.database()
  const real = await createPostgresQueueAdapter({ url, poolSize: 4 })
  postgres.track(real)
  // Which adapter members the queue calls, in order (the calls go through to the real adapter),
  // and how many of them have not answered yet.
  const calls: string[] = []
  let inFlight = 0
  const adapter = new Proxy(real, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver)
      if (typeof value !== 'function') return value
      // The jobs table's notifications and the heartbeat wake the queue (a pump) at moments the
      // database and the timer choose; here the queue's own pumps (a submit, a job's end) drive it,
      // so which path a job's end takes depends only on the order the test sets.
      if (key === 'onWork') return () => { calls.push('onWork') }
      return (...args: unknown[]) => {
        calls.push(String(key))
        const out = value.apply(target, args)
        if (out instanceof Promise) {
          inFlight++
          out.then(() => { inFlight-- }, () => { inFlight-- })
        }
        return out
      }
    },
  }) as QueueAdapter
  const { queue, runners, events } = scriptedJobQueue({ maxConcurrency, adapter }, undefined, onSession)
  const history = async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      return (await client.query<{ job_id: string; from_status: string | null; to_status: string }>('SELECT job_id, from_status, to_status FROM gateway_job_history ORDER BY id')).rows
    } finally {
      await client.end()
    }
  }
  return { queue, runners, events, calls, history, idle: () => inFlight === 0 }
}

describe('JobQueue on PostgreSQL', () => {
  it('hands a finished job\'s slot to the next queued job in the same round trip, one job running at a time', async () => {
    const { queue, runners, events, calls, history, idle } = await rig(1)
    const jobs = []
    for (let i = 0; i < 3; i++) jobs.push(await queue.submit({ session: { cwd: '', prompt: `p${i}` } }, undefined))
    const claimNexts: number[] = []
    for (let i = 0; i < 3; i++) {
      // Each job ends once the queue is at rest (it has started, and no store call is unanswered:
      // the pumps that submits and the previous end started are over), so its end finds no pump
      // running and a free slot, the case where the end and the next claim go together.
      await until(() => runners.length === i + 1 && events.some((e) => e.type === 'job_started' && e.jobId === runners[i].jobId) && idle(), `job ${i} to start and the queue to rest`)
      claimNexts.push(calls.filter((c) => c === 'claimNext').length)
      runners[i].finish()
    }
    // The event follows the write's answer: wait for it, not for the row.
    await until(() => events.filter((e) => e.type === 'job_completed').length === 3 && idle(), 'every job to complete')
    queue.close()
    // Every end was written with a claim; jobs 2 and 3 were claimed by the ends of 1 and 2, not by
    // a pump's claimNext (only job 1 was claimed by a pump; the pump after job 3's end finds none).
    expect(calls.filter((c) => c === 'completeAndClaim')).toHaveLength(3)
    expect(claimNexts[1]).toBe(claimNexts[0])
    expect(claimNexts[2]).toBe(claimNexts[0])
    expect(runners.map((r) => r.jobId)).toEqual(jobs.map((j) => j.id))
    for (const job of jobs) {
      expect(events.filter((e) => e.jobId === job.id).map((e) => e.type)).toEqual(['job_submitted', 'job_started', 'job_completed'])
      expect((await queue.get(job.id))?.info).toMatchObject({ status: 'succeeded', result: { subtype: 'success', isError: false } })
    }
    // maxConcurrency from the database's own history: never two running at once.
    expect(peakRunning(await history())).toBe(1)
  })

  it('retries a failed attempt through the same step, and completes it on the next attempt', async () => {
    const { queue, runners, events } = await rig(1)
    const job = await queue.submit({ session: { cwd: '', prompt: 'p' }, attempts: 2, retryDelayMs: 0 }, undefined)
    await until(() => runners.length === 1, 'the first attempt')
    runners[0].finish(true)
    await until(() => runners.length === 2, 'the retry to start')
    runners[1].finish()
    await until(() => events.some((e) => e.type === 'job_completed'), 'the retry to complete')
    queue.close()
    expect(events.filter((e) => e.jobId === job.id).map((e) => e.type)).toEqual(['job_submitted', 'job_started', 'job_retrying', 'job_started', 'job_completed'])
    expect((await queue.get(job.id))?.info).toMatchObject({ status: 'succeeded', attempt: 2 })
  })

  it('runs jobs that end as soon as they start in two round trips each: the end with the next claim, and the fenced start', async () => {
    const { queue, runners, events, calls, history, idle } = await rig(1)
    // Each job's session ends its turn the moment its job_started is out, as the bench's no-op
    // session does; the first one once every job is submitted (no submit's pump then runs).
    let submitted = false
    const end = (jobId: string) => queueMicrotask(() => runners.find((r) => r.jobId === jobId)?.finish())
    queue.subscribe((e) => {
      if (e.type === 'job_started' && submitted) end(e.jobId)
    })
    const jobs = []
    for (let i = 0; i < 6; i++) jobs.push(await queue.submit({ session: { cwd: '', prompt: `p${i}` } }, undefined))
    await until(() => events.some((e) => e.type === 'job_started') && idle(), 'the first job to start and the queue to rest')
    submitted = true
    end(jobs[0].id)
    await until(() => events.filter((e) => e.type === 'job_completed').length === 6 && idle(), 'every job to complete')
    queue.close()
    for (const job of jobs) {
      expect(events.filter((e) => e.jobId === job.id).map((e) => e.type)).toEqual(['job_submitted', 'job_started', 'job_completed'])
      expect((await queue.get(job.id))?.info.status).toBe('succeeded')
    }
    // No read of a job before its end (the run holds the row its start write answered), lapsed
    // claims asked at most by the first pump (then once per heartbeat), and once the first job
    // runs each end claims the next with its own write.
    expect(calls.filter((c) => c === 'get')).toHaveLength(6) // the test's own reads above
    expect(calls.filter((c) => c === 'reclaimExpired').length).toBeLessThanOrEqual(1)
    expect(calls.filter((c) => c === 'completeAndClaim')).toHaveLength(6)
    // The first job's claim, and the pump after the last end, finding none (an end claims beside
    // a running pump, so no pump waits for a completion's claim to run after it).
    expect(calls.filter((c) => c === 'claimNext' || c === 'claimBatch')).toHaveLength(2)
    expect(peakRunning(await history())).toBe(1)
  })
})

describe('JobQueue on PostgreSQL: an attempt that ends as it starts', () => {
  it('records its start with its end in one fenced write: job_started, then its end, numbered in order, every job once', async () => {
    // Every session ends its turn before the queue watches it (nothing to do); job 2's first attempt fails.
    let failed = false
    const { queue, events, calls, history, idle } = await rig(2, (runner, request) => {
      const fail = request.prompt === 'p2' && !failed
      if (fail) failed = true
      runner.finish(fail)
    })
    const jobs = []
    for (let i = 0; i < 5; i++) jobs.push(await queue.submit({ session: { cwd: '', prompt: `p${i}` }, attempts: 2, retryDelayMs: 0 }, undefined))
    await until(() => events.filter((e) => e.type === 'job_completed').length === 5 && idle(), 'every job to complete')
    queue.close()
    for (const job of jobs) {
      const mine = events.filter((e) => e.jobId === job.id)
      const expected = job.prompt === 'p2'
        ? ['job_submitted', 'job_started', 'job_retrying', 'job_started', 'job_completed']
        : ['job_submitted', 'job_started', 'job_completed']
      expect(mine.map((e) => e.type)).toEqual(expected)
      // Numbered in the order written, no gaps: the start step's event before the end's.
      expect(mine.slice(1).map((e) => e.seq)).toEqual(expected.slice(1).map((_, i) => i + 1))
      // job_started shows the job as its start left it (running, its session named); the end the job ended.
      const started = mine.filter((e) => e.type === 'job_started')
      for (const e of started) expect(e.job).toMatchObject({ status: 'running', sessionId: expect.any(String), startedAt: expect.any(Number) })
      expect(mine.at(-1)?.job).toMatchObject({ status: 'succeeded', sessionId: started.at(-1)!.job.sessionId })
      expect((await queue.get(job.id))?.info).toMatchObject({ status: 'succeeded', sessionId: started.at(-1)!.job.sessionId })
    }
    // One write per attempt: no start write of its own (6 attempts: 5 jobs, one retried).
    expect(calls.filter((c) => c === 'update' || c === 'completeAndClaim')).toHaveLength(6)
    expect(peakRunning(await history())).toBeLessThanOrEqual(2)
  })
})

describe('JobQueue on PostgreSQL: a session that closes as it starts', () => {
  it('has its start written on its own first (a parking session closes too, and its park needs the start): job_started, then its end', async () => {
    const { queue, events, calls, idle } = await rig(1, (runner) => { runner.core.emit({ type: 'session_closed', reason: 'server' }) })
    const job = await queue.submit({ session: { cwd: '', prompt: 'p' } }, undefined)
    await until(() => events.some((e) => e.type === 'job_completed') && idle(), 'the job to end')
    queue.close()
    const mine = events.filter((e) => e.jobId === job.id)
    expect(mine.map((e) => [e.type, e.seq])).toEqual([['job_submitted', undefined], ['job_started', 1], ['job_completed', 2]])
    expect(mine[2]?.job).toMatchObject({ status: 'failed', error: 'session closed before completing' })
    // Two writes: the start, then the end (no start step).
    expect(calls.filter((c) => c === 'update' || c === 'completeAndClaim')).toHaveLength(2)
  })
})

/** Jobs running at once at the busiest moment, read from the database's own transition history. */
function peakRunning(history: Array<{ from_status: string | null; to_status: string }>): number {
  let running = 0
  let peak = 0
  for (const h of history) {
    if (h.to_status === 'running' && h.from_status !== 'running') running++
    if (h.from_status === 'running' && h.to_status !== 'running') running--
    peak = Math.max(peak, running)
  }
  return peak
}
