/**
 * (log) What the access log costs a small request: `GET /sessions/:id` on the gateway
 * as operators run it (operator-gateway.ts: `gateway serve --config`, bearer auth, its own
 * process, its stdout read by this process as a supervisor would) at the default level, `info`
 * (one access line per request), against the same gateway at `warn` (no line). The figure is the
 * gateway process's CPU time per request, every thread (so the log's writes are counted wherever
 * they run); both gateways run side by side and are measured in interleaved rounds, the side
 * going first alternating.
 *
 * `npx tsx bench/access-log-bench.ts [--source]` prints the row; `npm run bench -- log` runs it alone.
 */
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { Agent, request } from 'undici'
import { startModelProcess, startOperatorGateway, type OperatorGateway } from './operator-gateway.ts'
import { createSession } from './stream-client.ts'
import { pairedRow, type BenchRow } from './stats.ts'

const ROUNDS = 15
const REQUESTS_PER_ROUND = 4000
const WARM_UP = 10_000
const IN_FLIGHT = 8
const dispatcher = new Agent({ connections: IN_FLIGHT, pipelining: 1 })

async function reads(url: string, token: string, total: number): Promise<void> {
  let next = 0
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next++ < total) {
      const res = await request(url, { headers: { authorization: `Bearer ${token}` }, dispatcher })
      if (res.statusCode !== 200) throw new Error(`GET ${url}: ${res.statusCode}`)
      await res.body.dump()
    }
  }))
}

/** µs of the gateway's CPU per request over `total` reads of one session. */
async function cpuPerRead(gw: OperatorGateway, url: string, total: number): Promise<number> {
  const before = await gw.cpuNs()
  await reads(url, gw.token, total)
  return ((await gw.cpuNs()) - before) / 1000 / total
}

export async function benchAccessLog(options: { source?: boolean } = {}): Promise<BenchRow> {
  // Every process started is ended, whichever start fails (a slow start under load times out).
  const started: Array<{ close(): Promise<void> }> = []
  const track = <T extends { close(): Promise<void> }>(p: T): T => (started.push(p), p)
  try {
    const model = track(await startModelProcess())
    const logging = track(await startOperatorGateway({ modelBaseURL: model.baseURL, source: options.source, logLevel: 'info' }))
    const quiet = track(await startOperatorGateway({ modelBaseURL: model.baseURL, source: options.source, logLevel: 'warn' }))
    const sides = await Promise.all([logging, quiet].map(async (gw) => ({ gw, url: `${gw.url}/sessions/${await createSession(gw, 'default')}` })))
    for (const { gw, url } of sides) await reads(url, gw.token, WARM_UP)
    const ours: number[] = []
    const base: number[] = []
    for (let i = 0; i < ROUNDS; i++) {
      if (i % 2) base.push(await cpuPerRead(quiet, sides[1].url, REQUESTS_PER_ROUND))
      ours.push(await cpuPerRead(logging, sides[0].url, REQUESTS_PER_ROUND))
      if (!(i % 2)) base.push(await cpuPerRead(quiet, sides[1].url, REQUESTS_PER_ROUND))
    }
    const r = pairedRow(`GET /sessions/:id CPU per request at default logging (info) vs at warn (${logging.compiled ? 'compiled' : 'tsx'})`, 'µs', ours, base, 'lower', 1.2)
    r.spread = `${r.spread}; ${REQUESTS_PER_ROUND} requests per round, ${IN_FLIGHT} in flight; load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`
    return r
  } finally {
    await Promise.all(started.map((p) => p.close()))
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { source: { type: 'boolean' } } })
  console.log(JSON.stringify(await benchAccessLog({ source: values.source }), null, 2))
}
