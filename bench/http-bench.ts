/**
 * (c) `GET /sessions` with 1,000 sessions and `GET /sessions/:id`, and (d) `POST /sessions`
 * latency. Baseline: a raw node:http server answering the same bytes (in a process of its own,
 * baselines.ts), driven by the same client;
 * ours and the baseline's samples are interleaved, and the spread over rounds is reported.
 */
import { Agent, request } from 'undici'
import type { BenchGateway } from './rig.ts'
import { startBaseline } from './baselines.ts'
import { median, minMedMax, pairedRow, percentile, row, type BenchRow } from './stats.ts'

type Gateway = BenchGateway
const dispatcher = new Agent({ connections: 16, pipelining: 1 })

async function send(url: string, method: 'GET' | 'POST', body?: string): Promise<string> {
  const res = await request(url, { method, body, headers: body ? { 'content-type': 'application/json' } : undefined, dispatcher })
  return res.body.text()
}

/** Requests per second for `total` requests with `concurrency` in flight. */
async function throughput(url: string, total: number, concurrency: number): Promise<number> {
  let next = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next++ < total) await send(url, 'GET')
  }))
  return total / ((performance.now() - started) / 1000)
}

async function compareGet(name: string, url: string, total: number, target: number): Promise<BenchRow> {
  const body = await send(url, 'GET')
  const raw = await startBaseline({ http: body })
  await throughput(url, 200, 8)
  await throughput(raw.url, 200, 8)
  const ours: number[] = []
  const base: number[] = []
  for (let i = 0; i < 9; i++) {
    // Interleaved rounds, the order alternating, so a busy moment hits both sides of a round.
    if (i % 2) base.push(await throughput(raw.url, total, 8))
    ours.push(await throughput(url, total, 8))
    if (!(i % 2)) base.push(await throughput(raw.url, total, 8))
  }
  await raw.close()
  return pairedRow(name, 'req/s', ours, base, 'higher', target)
}

export async function benchList(gw: Gateway): Promise<BenchRow[]> {
  let id = ''
  for (let i = 0; i < 1000; i++) id = await gw.createSession()
  return [
    await compareGet('GET /sessions with 1,000 sessions', `${gw.url}/sessions`, 200, 0.5),
    await compareGet('GET /sessions/:id', `${gw.url}/sessions/${id}`, 6000, 0.9),
  ]
}

/** Creates alternate between the gateway and the raw server, one each in turn, so both share every moment of noise. */
async function interleavedLatencies(gwUrl: string, rawUrl: string, count: number): Promise<{ ours: number[]; base: number[] }> {
  const ours: number[] = []
  const base: number[] = []
  const time = async (url: string) => {
    const started = performance.now()
    await send(url, 'POST', '{}')
    return performance.now() - started
  }
  for (let i = 0; i < count; i++) {
    if (i % 2) base.push(await time(rawUrl))
    ours.push(await time(gwUrl))
    if (!(i % 2)) base.push(await time(rawUrl))
  }
  return { ours, base }
}

/** Rounds of creates; p99 over all samples, and each round's p99 ratio for the spread. */
const CREATE_ROUNDS = 6
const CREATES_PER_ROUND = 500

export async function benchCreate(gw: Gateway): Promise<BenchRow[]> {
  const reply = await send(`${gw.url}/sessions`, 'POST', '{}')
  const raw = await startBaseline({ http: reply })
  // Warm-up: both servers' code optimised and the heap sized for thousands of sessions, as in a
  // gateway that has been serving; 200 creates left the first measured rounds in the JIT's and the
  // heap's warm-up (p50 ratio 2.0 and p99 5.9 in a fresh process, 1.57 and 1.43 right after).
  await interleavedLatencies(`${gw.url}/sessions`, raw.url, 2000)
  await gw.deleteAll()
  const ours: number[] = []
  const base: number[] = []
  const p50: number[] = []
  const p99: number[] = []
  for (let i = 0; i < CREATE_ROUNDS; i++) {
    const round = await interleavedLatencies(`${gw.url}/sessions`, raw.url, CREATES_PER_ROUND)
    ours.push(...round.ours)
    base.push(...round.base)
    p50.push(median(round.ours) / median(round.base))
    p99.push(percentile(round.ours, 99) / percentile(round.base, 99))
  }
  await raw.close()
  await gw.deleteAll()
  const of = `(min / median / max of ${CREATE_ROUNDS} rounds of ${CREATES_PER_ROUND} interleaved creates each)`
  const p50Row = row('POST /sessions latency p50', 'ms', median(ours), median(base), 'lower', 2)
  p50Row.spread = `round ratio ${minMedMax(p50)} ${of}`
  const p99Row = row(`POST /sessions latency p99 (${ours.length} samples)`, 'ms', percentile(ours, 99), percentile(base, 99), 'lower', 2)
  p99Row.spread = `round ratio ${minMedMax(p99)} ${of}`
  return [p50Row, p99Row]
}
