import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { startTestGateway, TOKENS, until, type TestGateway } from './harness.ts'
import type { QueueOptions } from '../queue/options.ts'

let gw: TestGateway | undefined
let hook: Server | undefined
afterEach(async () => {
  await gw?.close()
  await new Promise<void>((r) => (hook ? hook.close(() => r()) : r()))
  gw = hook = undefined
})

async function receiver(script: number[] = []) {
  const got: any[] = []
  hook = createServer((req, res) => {
    let text = ''
    req.on('data', (c) => { text += c })
    req.on('end', () => {
      res.statusCode = script.shift() ?? 200
      if (res.statusCode === 200) got.push(JSON.parse(text))
      res.end()
    })
  })
  await new Promise<void>((r) => hook!.listen(0, '127.0.0.1', r))
  return { url: `http://127.0.0.1:${(hook!.address() as AddressInfo).port}/hook`, got }
}

async function start(queue: QueueOptions = {}) {
  gw = await startTestGateway({ queue: { webhookRetryDelayMs: 10, ...queue } })
  return gw
}

const job = (g: TestGateway, id: string) => g.request('GET', `/jobs/${id}`).then((r) => r.body.job)
const submit = async (g: TestGateway, body: Record<string, unknown>, who: 'operator' | 'tenantA' | 'tenantB' | 'restricted' = 'operator') => {
  const res = await g.request('POST', '/jobs', { who, body })
  if (res.status !== 201) throw new Error(`submit failed: ${res.status} ${res.text}`)
  return res.body.job
}
const types = (got: any[], jobId: string) => got.filter((e) => e.jobId === jobId).map((e) => e.type)

describe('job queue (job-status.*)', () => {
  it('is absent without the queue option', async () => {
    gw = await startTestGateway()
    expect((await gw.request('GET', '/jobs')).status).toBe(404)
  })

  it('runs a job to succeeded and reports started, progress, completed in order on the webhook', async () => {
    const g = await start()
    const hook = await receiver()
    const j = await submit(g, { session: { prompt: 'scenario:hello' }, webhook: { url: hook.url, headers: { authorization: 'Bearer hook-secret' } } })
    expect(j.status).toBe('queued')
    const done = await until(() => job(g, j.id), (x) => x.status === 'succeeded', 'succeeded')
    expect(done).toMatchObject({ attempt: 1, result: { isError: false, result: 'Hello, world!' }, usage: { tokens: 16, numTurns: 1 } })
    await until(async () => types(hook.got, j.id), (t) => t.includes('job_completed'), 'job_completed delivered')
    expect(types(hook.got, j.id)).toEqual(['job_started', 'job_progress', 'job_completed'])
    const session = (await g.request('GET', `/sessions/${done.sessionId}`)).body.session
    expect(session.status).toBe('closed')
    expect(session.meta.jobId).toBe(j.id)
  })

  it('retries a failed run with a doubled delay, then fails it', async () => {
    const g = await start()
    const hook = await receiver()
    const j = await submit(g, { session: { prompt: 'scenario:model-error' }, attempts: 3, retryDelayMs: 20, webhook: { url: hook.url } })
    const done = await until(() => job(g, j.id), (x) => x.status === 'failed', 'failed')
    expect(done.attempt).toBe(3)
    expect(done.error).toContain('bad day')
    await until(async () => types(hook.got, j.id), (t) => t.includes('job_completed'), 'completed delivered')
    expect(types(hook.got, j.id)).toEqual(['job_started', 'job_retrying', 'job_started', 'job_retrying', 'job_started', 'job_completed'])
    const retrying = hook.got.filter((e) => e.jobId === j.id && e.type === 'job_retrying')
    expect(retrying).toHaveLength(2)
    expect(retrying[1].nextRunAt - retrying[1].ts).toBe(40)
    expect(retrying[0].nextRunAt - retrying[0].ts).toBe(20)
  })

  it('suppresses progress on the webhook with progress: completion, and never sends job_submitted', async () => {
    const g = await start()
    const hook = await receiver([500, 500])
    const j = await submit(g, { session: { prompt: 'hello' }, webhook: { url: hook.url, progress: 'completion' } })
    await until(() => job(g, j.id), (x) => x.status === 'succeeded', 'succeeded')
    await until(async () => types(hook.got, j.id), (t) => t.includes('job_completed'), 'completed delivered')
    expect(types(hook.got, j.id)).toEqual(['job_started', 'job_completed'])
  })

  it('fails a run whose tokens exceed the stricter of maxTokens and sessionTokenLimit', async () => {
    const g = await start({ sessionTokenLimit: 100_000, killGraceMs: 50 })
    const j = await submit(g, { session: { prompt: 'scenario:usage-heavy' }, maxTokens: 100 })
    const done = await until(() => job(g, j.id), (x) => x.status === 'failed', 'failed')
    expect(done.error).toMatch(/session token limit exceeded \(11000 > 100\)/)
  })

  it('interrupts a run over its duration and force-finalizes it after killGraceMs', async () => {
    const g = await start({ maxJobDurationMs: 60_000, killGraceMs: 30 })
    const j = await submit(g, { session: { prompt: 'scenario:hang' }, maxDurationMs: 80 })
    const done = await until(() => job(g, j.id), (x) => x.status === 'failed', 'failed')
    expect(done.error).toBe('job exceeded max duration (80ms)')
  })

  it('cancels queued and running jobs, and never exceeds maxConcurrency', async () => {
    const g = await start({ maxConcurrency: 2 })
    const jobs = []
    for (let i = 0; i < 6; i++) jobs.push(await submit(g, { session: { prompt: 'scenario:slow' } }))
    let maxRunning = 0
    await until(async () => {
      const stats = (await g.request('GET', '/queue')).body.stats
      maxRunning = Math.max(maxRunning, stats.running)
      return stats
    }, (s) => s.running === 2, 'two running')
    const queued = jobs[5]
    expect((await g.request('DELETE', `/jobs/${queued.id}`)).body.job.status).toBe('canceled')
    const running = (await g.request('GET', '/jobs')).body.jobs.find((x: any) => x.status === 'running')
    expect((await g.request('DELETE', `/jobs/${running.id}`)).body.job.status).toBe('canceled')
    await until(async () => (await g.request('GET', '/jobs')).body.jobs, (all: any[]) => all.every((x) => ['succeeded', 'canceled'].includes(x.status)), 'all done')
    expect(maxRunning).toBeLessThanOrEqual(2)
  })

  it('holds queued jobs once the daily token budget is spent (paused)', async () => {
    const g = await start({ dailyTokenLimit: 10 })
    const first = await submit(g, { session: { prompt: 'scenario:hello' } })
    await until(() => job(g, first.id), (x) => x.status === 'succeeded', 'first done')
    const second = await submit(g, { session: { prompt: 'scenario:hello' } })
    const stats = (await g.request('GET', '/queue')).body.stats
    expect(stats).toMatchObject({ paused: true, dailyTokenLimit: 10, queued: 1, running: 0 })
    expect(stats.dailyTokensUsed).toBeGreaterThanOrEqual(10)
    expect((await job(g, second.id)).status).toBe('queued')
  })

  it('scopes jobs like sessions and refuses /queue to scoped principals', async () => {
    const g = await start()
    const mine = await submit(g, { session: { prompt: 'hello' } }, 'tenantA')
    expect(mine.scope).toEqual({ tenant: 'a' })
    expect((await g.request('GET', `/jobs/${mine.id}`, { who: 'tenantB' })).status).toBe(404)
    expect((await g.request('GET', '/jobs', { who: 'tenantB' })).body.jobs).toEqual([])
    expect((await g.request('GET', '/queue', { who: 'tenantA' })).status).toBe(404)
    expect((await g.request('POST', '/jobs', { who: 'restricted', body: { session: { profile: 'alt', prompt: 'x' } } })).status).toBe(403)
  })

  it('refuses bad job requests with 400', async () => {
    const g = await start()
    for (const body of [{}, { session: {} }, { session: { prompt: '  ' } }, { session: { prompt: 'x', resume: 'abc' } }, { session: { prompt: 'x' }, attempts: 0 }, { session: { prompt: 'x' }, webhook: { url: 'ftp://x' } }]) {
      expect((await g.request('POST', '/jobs', { body })).status, JSON.stringify(body)).toBe(400)
    }
  })

  it('streams queue_attached, job events and refreshed stats on /queue/ws to operators only', async () => {
    const g = await start()
    const frames: any[] = []
    const ws = new WebSocket(`${g.url.replace(/^http/, 'ws')}/queue/ws`, { headers: { authorization: `Bearer ${TOKENS.operator}` } })
    ws.on('message', (d) => frames.push(JSON.parse(d.toString())))
    await new Promise((r) => ws.once('open', r))
    const j = await submit(g, { session: { prompt: 'hello' } })
    await until(async () => frames, (f) => f.some((x) => x.type === 'job_event' && x.event.type === 'job_completed' && x.event.jobId === j.id), 'completed frame')
    expect(frames[0]).toMatchObject({ type: 'queue_attached', protocolVersion: 7 })
    expect(frames.filter((f) => f.type === 'job_event').map((f) => f.event.type).slice(0, 2)).toEqual(['job_submitted', 'job_started'])
    expect(frames.some((f) => f.type === 'queue_stats')).toBe(true)
    ws.close()
    const refused = await new Promise<number>((resolve) => {
      const other = new WebSocket(`${g.url.replace(/^http/, 'ws')}/queue/ws`, { headers: { authorization: `Bearer ${TOKENS.tenantA}` } })
      other.once('unexpected-response', (_q, res) => resolve(res.statusCode ?? 0))
      other.once('open', () => resolve(101))
    })
    expect(refused).toBe(404)
  })
})
