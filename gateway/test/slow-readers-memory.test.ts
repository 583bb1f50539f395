/**
 * Fifty WebSockets that never read cost the gateway a bounded amount of memory (websocket-framing.1):
 * `gateway serve` runs as its own process (its RSS is its own), two sessions stream long texts to
 * 25 paused sockets each, and the process grows by less than 50 × `webSockets.maxBufferedBytes`
 * plus a fixed slack. Every paused socket is closed with 1013; a reading client on each session
 * receives every event; a dropped client that re-attaches with `afterSeq` loses nothing.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { startFakeModelServer } from '../../fake-engines/provider-model/server.ts'
import { createToken } from '../config/principals.ts'
import { serveGateway, type ServingGateway } from './gateway-command.ts'
import { openSocket, until, type TestSocket } from './harness.ts'
import { parseExposition } from './prometheus-text.ts'

const BOUND = 256 * 1024
const SLOW_PER_SESSION = 25
/**
 * A fixed allowance: the live turns' own events, heap growth, and the bytes each socket's kernel
 * buffers took (they pass through the process on their way, and the allocator keeps some pages).
 * Measured: 29 to 53 MiB of growth with the bound (the spread is the collector's timing), 263 MiB
 * without it; the slack is about twice the worst growth seen, far below what no bound costs.
 */
const SLACK = 96 * 1024 * 1024
/**
 * Per turn 100 deltas of 2,000 characters and the 200,000-character message: about 430 KB of
 * frames, none larger than the bound (one frame larger than the bound is sent whole, alone).
 */
const TEXT = 'z'.repeat(200_000)
/** Turns in each session's log before the paused sockets attach (each replays them all), and turns streamed live after. */
const LOGGED_TURNS = 8
const LIVE_TURNS = 3

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024
}

async function startServing(dir: string, modelBaseURL: string): Promise<{ gw: ServingGateway; token: string; metricsUrl: string }> {
  const token = await createToken(join(dir, 'principals.json'), { id: 'tenant', scope: { tenant: 't' } })
  const config = join(dir, 'gateway.json')
  await writeFile(config, JSON.stringify({
    auth: { principalsFile: 'principals.json' },
    profiles: [{ name: 'default', engine: 'provider', provider: { id: 'openai-compatible', baseURL: modelBaseURL, model: 'fake-small' } }],
    metrics: { port: 0 },
    webSockets: { maxBufferedBytes: BOUND, slowReaderTimeoutMs: 1500 },
    shutdown: { graceMs: 1000 },
  }))
  const gw = await serveGateway(config)
  cleanups.push(async () => {
    if (gw.child.exitCode !== null) return
    gw.child.kill('SIGKILL')
    await gw.exited
  })
  const metricsUrl = await until(async () => gw.lines.map((l) => { try { return JSON.parse(l) as { msg?: string; url?: string } } catch { return {} } }).find((l) => l.msg === 'metrics listening')?.url, Boolean, 'metrics listening', 5000)
  return { gw, token, metricsUrl: metricsUrl! }
}

/** A socket that completes the upgrade and then never reads (its TCP socket paused). */
function pausedSocket(url: string, token: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } })
    ws.once('open', () => {
      ws.pause()
      resolve(ws)
    })
    ws.once('error', reject)
  })
}

function closeCode(ws: WebSocket): Promise<number> {
  return new Promise((resolve) => ws.once('close', (code) => resolve(code)))
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1)
const seqsOf = (socket: TestSocket) => socket.events().map((event) => event.seq as number)
const turnsOf = (socket: TestSocket) => socket.events().filter((event) => event.type === 'turn_result').length

/** Runs `count` firehose turns one after another through `socket`. */
async function runTurns(socket: TestSocket, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const done = turnsOf(socket) + 1
    socket.send({ type: 'user_message', text: 'scenario:firehose' })
    await socket.waitFor(() => turnsOf(socket) === done, 60_000)
  }
}
const contiguous = (seqs: number[], to: number) => seqs.length === to && seqs.every((seq, i) => seq === i + 1)

/**
 * A client that stops reading is closed with 1013 (`closedAsSlow` waits for the server to say so);
 * re-attaching after the last seq it received, it gets every seq up to `last`, none twice.
 */
async function expectLosslessReattach(attach: (afterSeq?: number) => Promise<TestSocket>, last: number, closedAsSlow: () => Promise<unknown>): Promise<void> {
  const dropped = await attach()
  dropped.ws.pause()
  const droppedCode = closeCode(dropped.ws)
  await closedAsSlow()
  dropped.ws.resume()
  expect(await droppedCode).toBe(1013)
  const seen = seqsOf(dropped)
  const again = await attach(seen.at(-1))
  cleanups.push(() => again.close())
  await again.waitFor((f) => f.type === 'event' && f.event.seq === last, 60_000)
  expect(contiguous([...seen, ...seqsOf(again)].filter((seq) => seq <= last), last)).toBe(true)
}

describe('fifty WebSockets that never read', { timeout: 180_000 }, () => {
  it('leave the gateway process within 50 × maxBufferedBytes plus slack, are each closed with 1013, and cost the reading clients nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gw-slow-readers-'))
    cleanups.push(() => rm(dir, { recursive: true, force: true }))
    await writeFile(join(dir, 'firehose.json'), JSON.stringify({ name: 'firehose', steps: [{ type: 'text', text: TEXT, chunkSize: 2000 }] }))
    const model = await startFakeModelServer({ host: '127.0.0.1', port: 0, scenariosDir: dir })
    cleanups.push(() => model.close())
    const { gw, token, metricsUrl } = await startServing(dir, model.baseURL)
    const pid = gw.child.pid!
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    const wsUrl = (id: string, afterSeq?: number) => `${gw.url.replace(/^http/, 'ws')}/sessions/${id}/ws${afterSeq === undefined ? '' : `?afterSeq=${afterSeq}`}`

    // Two sessions, each with a reading client and LOGGED_TURNS turns already in its log.
    const sessions: Array<{ id: string; reader: TestSocket }> = []
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${gw.url}/sessions`, { method: 'POST', headers, body: JSON.stringify({ profile: 'default', includePartialMessages: true }) })
      const { session } = await res.json() as { session: { id: string } }
      const reader = await openSocket(wsUrl(session.id), { authorization: `Bearer ${token}` })
      cleanups.push(() => reader.close())
      await runTurns(reader, LOGGED_TURNS)
      sessions.push({ id: session.id, reader })
    }
    const baseline = await rssOf(pid)

    // 25 paused sockets per session, each replaying the whole log, then LIVE_TURNS turns stream live.
    let peak = baseline
    const sampler = setInterval(() => void rssOf(pid).then((rss) => { peak = Math.max(peak, rss) }, () => undefined), 50)
    cleanups.push(() => clearInterval(sampler))
    const slow: WebSocket[] = []
    for (const { id } of sessions) for (let i = 0; i < SLOW_PER_SESSION; i++) slow.push(await pausedSocket(wsUrl(id), token))
    const codes = slow.map(closeCode)
    await Promise.all(sessions.map(({ reader }) => runTurns(reader, LIVE_TURNS)))
    const limit = 2 * SLOW_PER_SESSION * BOUND + SLACK
    const report = () => `RSS ${mib(baseline)} MiB before the paused sockets, peak ${mib(peak)} MiB: growth ${mib(peak - baseline)} MiB (limit ${mib(limit)} MiB)`
    expect(peak - baseline, report()).toBeLessThan(limit)
    const slowClosed = async () => parseExposition(await (await fetch(metricsUrl)).text()).sum('gateway_websocket_slow_reader_closes_total', { kind: 'session' })
    await until(slowClosed, (n) => n === 2 * SLOW_PER_SESSION, 'every paused socket closed as a slow reader', 60_000)
    peak = Math.max(peak, await rssOf(pid))
    clearInterval(sampler)
    console.log(`50 paused sockets: ${report()}`)
    expect(peak - baseline, report()).toBeLessThan(limit)

    // Each paused socket, reading again, finds its frames and then the 1013 close.
    for (const ws of slow) ws.resume()
    expect(new Set(await Promise.all(codes))).toEqual(new Set([1013]))

    let closedSoFar = 2 * SLOW_PER_SESSION
    for (const { id, reader } of sessions) {
      const info = await (await fetch(`${gw.url}/sessions/${id}`, { headers })).json() as { session: { status: string } }
      expect(info.session.status).toBe('idle')
      const last = seqsOf(reader).at(-1)!
      expect(contiguous(seqsOf(reader), last)).toBe(true)
      await expectLosslessReattach((afterSeq) => openSocket(wsUrl(id, afterSeq), { authorization: `Bearer ${token}` }), last, () => until(slowClosed, (n) => n === closedSoFar + 1, 'the paused socket closed', 60_000))
      closedSoFar++
    }
  })
})
