/**
 * (c) `GET /sessions` with 1,000 sessions and `GET /sessions/:id`, and (d) `POST /sessions`
 * latency. Baseline: a raw node:http server answering the same bytes, driven by the same client.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Agent, request } from 'undici'
import type { startBenchGateway } from './rig.ts'
import { median, percentile, row, type BenchRow } from './stats.ts'

type Gateway = Awaited<ReturnType<typeof startBenchGateway>>
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

async function startRawServer(body: string) {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) })
      res.end(body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise<void>((r) => { server.close(() => r()); server.closeAllConnections() }) }
}

async function compareGet(name: string, url: string, total: number, target: number): Promise<BenchRow> {
  const body = await send(url, 'GET')
  const raw = await startRawServer(body)
  await throughput(url, 200, 8)
  await throughput(raw.url, 200, 8)
  const ours: number[] = []
  const base: number[] = []
  for (let i = 0; i < 3; i++) {
    ours.push(await throughput(url, total, 8))
    base.push(await throughput(raw.url, total, 8))
  }
  await raw.close()
  return row(name, 'req/s', median(ours), median(base), 'higher', target)
}

export async function benchList(gw: Gateway): Promise<BenchRow[]> {
  let id = ''
  for (let i = 0; i < 1000; i++) id = await gw.createSession()
  return [
    await compareGet('GET /sessions with 1,000 sessions', `${gw.url}/sessions`, 300, 0.5),
    await compareGet('GET /sessions/:id', `${gw.url}/sessions/${id}`, 3000, 0.9),
  ]
}

async function latencies(url: string, body: string, count: number): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < count; i++) {
    const started = performance.now()
    await send(url, 'POST', body)
    out.push(performance.now() - started)
  }
  return out
}

export async function benchCreate(gw: Gateway): Promise<BenchRow[]> {
  const reply = await send(`${gw.url}/sessions`, 'POST', '{}')
  const raw = await startRawServer(reply)
  await latencies(`${gw.url}/sessions`, '{}', 100)
  await latencies(raw.url, '{}', 100)
  const ours = await latencies(`${gw.url}/sessions`, '{}', 500)
  const base = await latencies(raw.url, '{}', 500)
  await raw.close()
  return [
    row('POST /sessions latency p50', 'ms', median(ours), median(base), 'lower', 2),
    row('POST /sessions latency p99', 'ms', percentile(ours, 99), percentile(base, 99), 'lower', 2),
  ]
}
