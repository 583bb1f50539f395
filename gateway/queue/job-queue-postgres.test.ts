/**
 * The JobQueue on a real PostgreSQL: a finished job's final write and the next claim go to the
 * database together (completeAndClaim), with the queue's rules intact.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { startPostgresServer, type PostgresServer } from '../test/postgres-server.ts'
import type { QueueAdapter } from './adapter.ts'
import { createPostgresQueueAdapter, type PostgresQueueAdapter } from './postgres-adapter.ts'
import { scriptedJobQueue } from './testing/scripted-runner.ts'

let server: PostgresServer
const open: PostgresQueueAdapter[] = []
beforeAll(async () => { server = await startPostgresServer() }, 60_000)
afterAll(async () => {
  await Promise.all(open.map((a) => a.close()))
  await server?.stop()
})

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`timed out waiting for ${what}`)
}

async function rig(maxConcurrency: number) {
  const url = await server.createDatabase()
  const real = await createPostgresQueueAdapter({ url, poolSize: 4 })
  open.push(real)
  // Which adapter members the queue calls, in order (the calls go through to the real adapter).
  const calls: string[] = []
  const adapter = new Proxy(real, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => { calls.push(String(key)); return value.apply(target, args) }
    },
  }) as QueueAdapter
  const { queue, runners, events } = scriptedJobQueue({ maxConcurrency, adapter })
  const history = async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      return (await client.query<{ job_id: string; from_status: string | null; to_status: string }>('SELECT job_id, from_status, to_status FROM gateway_job_history ORDER BY id')).rows
    } finally {
      await client.end()
    }
  }
  return { queue, runners, events, calls, history }
}

describe('JobQueue on PostgreSQL', () => {
  it('hands a finished job\'s slot to the next queued job in the same round trip, one job running at a time', async () => {
    const { queue, runners, events, calls, history } = await rig(1)
    const jobs = []
    for (let i = 0; i < 3; i++) jobs.push(await queue.submit({ session: { cwd: '', prompt: `p${i}` } }, undefined))
    for (let i = 0; i < 3; i++) {
      await until(() => runners.length === i + 1 && events.some((e) => e.type === 'job_started' && e.jobId === runners[i].jobId), `job ${i} to start`)
      runners[i].finish()
    }
    // The event follows the write's answer: wait for it, not for the row.
    await until(() => events.filter((e) => e.type === 'job_completed').length === 3, 'every job to complete')
    queue.close()
    // The ends of jobs 2 and 3 at least went with a claim (job 1 may end while the submits' pumps
    // still run: then it is written alone and the pump claims, as before).
    expect(calls.filter((c) => c === 'completeAndClaim').length).toBeGreaterThanOrEqual(2)
    expect(runners.map((r) => r.jobId)).toEqual(jobs.map((j) => j.id))
    for (const job of jobs) {
      expect(events.filter((e) => e.jobId === job.id).map((e) => e.type)).toEqual(['job_submitted', 'job_started', 'job_completed'])
      expect((await queue.get(job.id))?.info).toMatchObject({ status: 'succeeded', result: { subtype: 'success', isError: false } })
    }
    // maxConcurrency from the database's own history: never two running at once.
    let running = 0
    let peak = 0
    for (const h of await history()) {
      if (h.to_status === 'running' && h.from_status !== 'running') running++
      if (h.from_status === 'running' && h.to_status !== 'running') running--
      peak = Math.max(peak, running)
    }
    expect(peak).toBe(1)
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
})
