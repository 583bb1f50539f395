/**
 * Backpressure on every WebSocket (websocket-framing.1, jobs-and-queue.6): a client that stops
 * reading is sent nothing past `webSockets.maxBufferedBytes`, is closed with 1013 after
 * `slowReaderTimeoutMs`, and loses nothing when it re-attaches with `afterSeq`; one that recovers
 * in time catches up from the event log; other clients and the session are unaffected. Caps on
 * sockets per principal and per session answer 429 `too_many_sockets`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import type { GatewayServerOptions } from '../server/options.ts'
import { startTestGateway, TOKENS, until, type TestGateway, type TestSocket } from './harness.ts'
import { parseExposition } from './prometheus-text.ts'

/** About 3 MB of deltas and the same again in the final message: far past any socket buffer here. */
const FIREHOSE_TEXT = 'x'.repeat(3_000_000)
let scenariosDir: string
const cleanups: Array<() => Promise<void> | void> = []

beforeAll(async () => {
  scenariosDir = await mkdtemp(join(tmpdir(), 'gw-firehose-'))
  await writeFile(join(scenariosDir, 'firehose.json'), JSON.stringify({ name: 'firehose', steps: [{ type: 'text', text: FIREHOSE_TEXT, chunkSize: 3000 }] }))
  // About 420 KB of frames per turn, none over 201 KB (the final message holds the whole text).
  await writeFile(join(scenariosDir, 'medium.json'), JSON.stringify({ name: 'medium', steps: [{ type: 'text', text: 'm'.repeat(200_000), chunkSize: 5000 }] }))
  return () => rm(scenariosDir, { recursive: true, force: true })
})
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function start(webSockets: GatewayServerOptions['webSockets'], more: Partial<GatewayServerOptions> = {}): Promise<TestGateway> {
  const gw = await startTestGateway({ webSockets, ...more }, {}, { scenariosDir })
  cleanups.push(() => gw.close())
  return gw
}

async function scrape(gw: TestGateway) {
  return parseExposition((await gw.request('GET', '/metrics')).text)
}

/** Waits until one metric's sum reaches `value` (the error then shows that sum, not the whole scrape). */
function metricReaches(gw: TestGateway, name: string, labels: Record<string, string>, value: number, what: string) {
  return until(async () => (await scrape(gw)).sum(name, labels), (sum) => sum === value, what)
}

/** Every seq from `from` to `to` exactly once, in order. */
function expectContiguous(seqs: number[], from: number, to: number): void {
  expect(seqs).toEqual(Array.from({ length: to - from + 1 }, (_, i) => from + i))
}

const seqsOf = (socket: TestSocket) => socket.events().map((event) => event.seq as number)

function closed(socket: TestSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => socket.ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })))
}

describe('a session socket that stops reading', { timeout: 60_000 }, () => {
  it('is sent nothing past the bound, is closed with 1013 after the timeout, and re-attaching with afterSeq loses nothing; a reading client gets every event', async () => {
    const gw = await start({ maxBufferedBytes: 64 * 1024, slowReaderTimeoutMs: 300 })
    const session = await gw.createSession({ profile: 'default', includePartialMessages: true })
    const reader = await gw.attach(session.id)
    const slow = await gw.attach(session.id)
    slow.ws.pause()
    const slowClosed = closed(slow)
    reader.send({ type: 'user_message', text: 'scenario:firehose' })
    const result = await reader.waitForEvent('turn_result', () => true, 30_000)
    await metricReaches(gw, 'gateway_websocket_slow_reader_closes_total', { kind: 'session' }, 1, 'the slow reader closed')

    slow.ws.resume()
    const { code, reason } = await slowClosed
    expect(code).toBe(1013)
    expect(reason).toMatch(/slow reader/)
    const received = seqsOf(slow)
    const last = received.at(-1)!
    expectContiguous(received, 1, last)
    expect(last).toBeLessThan(result.seq)

    const again = await gw.attach(session.id, { afterSeq: last })
    cleanups.push(() => again.close())
    await again.waitForEvent('turn_result', () => true, 30_000)
    expectContiguous([...received, ...seqsOf(again)].filter((seq) => seq <= result.seq), 1, result.seq)
    expectContiguous(seqsOf(reader).filter((seq) => seq <= result.seq), 1, result.seq)
    expect(result.isError).toBe(false)
    reader.close()
  })

  it('that reads again before the timeout catches up from the event log, every seq once and in order, and stays open', async () => {
    const gw = await start({ maxBufferedBytes: 64 * 1024, slowReaderTimeoutMs: 30_000 })
    const session = await gw.createSession({ profile: 'default', includePartialMessages: true })
    const slow = await gw.attach(session.id)
    cleanups.push(() => slow.close())
    slow.ws.pause()
    slow.send({ type: 'user_message', text: 'scenario:firehose' })
    await metricReaches(gw, 'gateway_websocket_slow_readers', { kind: 'session' }, 1, 'the socket is over its bound')
    expect((await scrape(gw)).sum('gateway_websocket_buffered_bytes', { kind: 'session' })).toBeGreaterThan(64 * 1024)
    slow.ws.resume()
    const result = await slow.waitForEvent('turn_result', () => true, 30_000)
    expectContiguous(seqsOf(slow).filter((seq) => seq <= result.seq), 1, result.seq)
    expect(slow.ws.readyState).toBe(WebSocket.OPEN)
    expect((await scrape(gw)).sum('gateway_websocket_slow_reader_closes_total')).toBe(0)
  })
})

describe('the bound', { timeout: 60_000 }, () => {
  it('is never exceeded by frames smaller than it: a socket over it holds at most maxBufferedBytes', async () => {
    const bound = 256 * 1024
    const gw = await start({ maxBufferedBytes: bound, slowReaderTimeoutMs: 30_000 })
    const session = await gw.createSession({ profile: 'default', includePartialMessages: true })
    const reader = await gw.attach(session.id)
    cleanups.push(() => reader.close())
    for (let turn = 1; turn <= 16; turn++) {
      reader.send({ type: 'user_message', text: 'scenario:medium' })
      await until(async () => reader.events().filter((e) => e.type === 'turn_result').length, (n) => n === turn, `turn ${turn}`)
    }
    // A replay of about 6.7 MB, more than the kernel's socket buffers take: the rest waits at the bound.
    const slow = await gw.attach(session.id)
    cleanups.push(() => slow.close())
    slow.ws.pause()
    await metricReaches(gw, 'gateway_websocket_slow_readers', { kind: 'session' }, 1, 'the socket is over its bound')
    const buffered = (await scrape(gw)).sum('gateway_websocket_buffered_bytes', { kind: 'session' })
    expect(buffered).toBeGreaterThan(0)
    expect(buffered).toBeLessThanOrEqual(bound)
  })
})

describe('a queue socket that stops reading', { timeout: 60_000 }, () => {
  it('is closed with 1013 once it has missed a frame, and the queue keeps running', async () => {
    const gw = await start({ maxBufferedBytes: 64 * 1024, slowReaderTimeoutMs: 300 }, { queue: { maxConcurrency: 2 } })
    const queue = await openRaw(gw, '/queue/ws', TOKENS.operator)
    queue.pause()
    const closedQueue = new Promise<number>((resolve) => queue.once('close', (code) => resolve(code)))
    // Every job event carries the job, prompt included: a few large prompts are megabytes of frames
    // (the padding sits in the scenario's description, so the model answers in one short delta).
    const prompt = `scenario:${JSON.stringify({ name: 'padded', description: 'y'.repeat(400_000), steps: [{ type: 'text', text: 'done' }] })}`
    const jobs = await Promise.all(Array.from({ length: 8 }, async () => (await gw.request('POST', '/jobs', { body: { session: { profile: 'default', prompt } } })).body.job.id as string))
    await metricReaches(gw, 'gateway_websocket_slow_reader_closes_total', { kind: 'queue' }, 1, 'the queue socket closed')
    queue.resume()
    expect(await closedQueue).toBe(1013)
    for (const id of jobs) await until(async () => (await gw.request('GET', `/jobs/${id}`)).body.job.status, (s) => s === 'succeeded', `job ${id} succeeded`)
  })
})

describe('socket caps', { timeout: 30_000 }, () => {
  it('refuse a socket past maxPerSession or maxPerPrincipal with 429 too_many_sockets, and admit one again after a close', async () => {
    const gw = await start({ maxPerSession: 2, maxPerPrincipal: 3 })
    const first = await gw.createSession({ profile: 'default' }, 'tenantA')
    const second = await gw.createSession({ profile: 'default' }, 'tenantA')
    const a1 = await gw.attach(first.id, { who: 'tenantA' })
    const a2 = await gw.attach(first.id, { who: 'tenantA' })
    const perSession = await gw.attach(first.id, { who: 'tenantA' }).then(() => undefined, (err) => err)
    expect(perSession).toMatchObject({ status: 429 })
    expect(JSON.parse(perSession.body)).toMatchObject({ code: 'too_many_sockets', error: expect.stringMatching(/on this session/) })

    const b1 = await gw.attach(second.id, { who: 'tenantA' })
    const perPrincipal = await gw.attach(second.id, { who: 'tenantA' }).then(() => undefined, (err) => err)
    expect(perPrincipal).toMatchObject({ status: 429 })
    expect(JSON.parse(perPrincipal.body)).toMatchObject({ code: 'too_many_sockets', error: expect.stringMatching(/for this principal/) })
    // Another principal has its own count; operators are not capped per principal.
    const b2 = await gw.attach(second.id, { who: 'operator' })

    const a1Closed = closed(a1)
    a1.close()
    await a1Closed
    const a3 = await until(() => gw.attach(first.id, { who: 'tenantA' }).then((s) => s, () => undefined), Boolean, 'a slot freed by the close')
    const metrics = await scrape(gw)
    expect(metrics.sum('gateway_websocket_refused_total', { reason: 'per_session' })).toBeGreaterThanOrEqual(1)
    expect(metrics.sum('gateway_websocket_refused_total', { reason: 'per_principal' })).toBeGreaterThanOrEqual(1)
    for (const socket of [a2, b1, b2, a3!]) socket.close()
  })
})

/** A raw ws client (the harness's TestSocket parses frames; these sockets only need to stall). */
function openRaw(gw: TestGateway, path: string, token: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${gw.url.replace(/^http/, 'ws')}${path}`, { headers: { authorization: `Bearer ${token}` } })
    ws.once('open', () => resolve(ws))
    ws.once('error', reject)
  })
}
