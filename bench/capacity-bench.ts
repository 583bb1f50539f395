/**
 * (j) Capacity: N sessions each streaming `deltas` text deltas at 50/s to one attached
 * client, through the real provider path (operator-gateway.ts: `gateway serve` in its own
 * process, bearer authentication on), the fake model servers and the clients in other processes.
 * N climbs a ladder; a level holds when the pooled p99 gap between a stream's consecutive deltas
 * is under 100 ms and no stream has a gap over 250 ms. The row is the largest N that holds, with
 * the gateway's peak resident memory there, its memory per streaming session ((peak − before) / N)
 * and its CPU per delta.
 *
 * `npx tsx bench/capacity-bench.ts [--ladder 25,50,100] [--deltas 2000] [--models 2] [--per-client 250] [--stagger-ms 0]`
 */
import { fork, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { startModelProcess, startOperatorGateway, type OperatorGateway } from './operator-gateway.ts'
import { createSession, deleteSession, pacedScenario } from './stream-client.ts'
import { GAP_BUCKETS, type ClientReport } from './capacity-client.ts'
import { row, type BenchRow } from './stats.ts'

const CLIENT = fileURLToPath(new URL('./capacity-client.ts', import.meta.url))
const P99_LIMIT_MS = 100
const MAX_GAP_LIMIT_MS = 250

export interface CapacityOptions {
  ladder?: number[]
  deltas?: number
  /** Fake model server processes; streams are spread over them (one fake serves ~a few hundred). */
  models?: number
  /** Streams per client process. */
  perClient?: number
  /** Spread the streams' turn starts evenly over this many ms (0: all at once, the row's default). */
  staggerMs?: number
}

export interface LevelResult {
  n: number
  p99: number
  maxGap: number
  /** Streams with a gap over 250 ms. */
  stutters: number
  /** Of those, the streams whose largest gap came within their first second (50 deltas): the turn starts' burst. */
  stuttersAtStart: number
  rssBefore: number
  rssPeak: number
  cpuPerDelta: number
  holds: boolean
}

function percentileOf(histogram: number[], p: number): number {
  const total = histogram.reduce((a, b) => a + b, 0)
  let seen = 0
  for (let ms = 0; ms < histogram.length; ms++) {
    seen += histogram[ms]
    if (seen >= (p / 100) * total) return ms + 1 // the bucket's upper edge
  }
  return GAP_BUCKETS
}

async function level(gw: OperatorGateway, n: number, o: Required<CapacityOptions>): Promise<LevelResult> {
  const profiles = ['default', ...Array.from({ length: o.models - 1 }, (_, i) => `model-${i + 1}`)]
  const ids: string[] = []
  for (let i = 0; i < n; i += 50) {
    ids.push(...(await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, k) => createSession(gw, profiles[(i + k) % profiles.length])))))
  }
  const clients: ChildProcess[] = []
  try {
    for (let i = 0; i < n; i += o.perClient) {
      const child = fork(CLIENT, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
      clients.push(child)
      child.send({ attach: { url: gw.url, token: gw.token, ids: ids.slice(i, i + o.perClient) } })
      await once(child, 'message')
    }
    const rssBefore = await gw.rss()
    let rssPeak = rssBefore
    const sampler = setInterval(() => void gw.rss().then((r) => { rssPeak = Math.max(rssPeak, r) }, () => {}), 250)
    const cpuBefore = await gw.cpuNs()
    const text = pacedScenario(o.deltas)
    const reports = clients.map((c) => once(c, 'message').then(([r]) => r as ClientReport))
    for (const c of clients) c.send({ go: { text, staggerMs: o.staggerMs } })
    const done = await Promise.all(reports)
    const cpu = (await gw.cpuNs()) - cpuBefore
    clearInterval(sampler)
    rssPeak = Math.max(rssPeak, await gw.rss())
    const histogram = new Array<number>(GAP_BUCKETS + 1).fill(0)
    for (const r of done) r.histogram.forEach((count, ms) => { histogram[ms] += count })
    const maxGaps = done.flatMap((r) => r.maxGaps)
    const maxGapAt = done.flatMap((r) => r.maxGapAt)
    const deltas = done.reduce((a, r) => a + r.deltas, 0)
    if (deltas !== n * o.deltas) throw new Error(`capacity at ${n}: ${deltas} deltas arrived, ${n * o.deltas} expected`)
    const p99 = percentileOf(histogram, 99)
    const stutters = maxGaps.filter((g) => g > MAX_GAP_LIMIT_MS).length
    const stuttersAtStart = maxGaps.filter((g, i) => g > MAX_GAP_LIMIT_MS && maxGapAt[i] <= 50).length
    const maxGap = Math.max(...maxGaps)
    return { n, p99, maxGap, stutters, stuttersAtStart, rssBefore, rssPeak, cpuPerDelta: cpu / 1000 / deltas, holds: p99 < P99_LIMIT_MS && stutters === 0 }
  } finally {
    for (const c of clients) c.kill()
    for (const id of ids) await deleteSession(gw, id)
  }
}

export async function measureCapacity(options: CapacityOptions = {}, report: (r: LevelResult) => void = () => {}): Promise<{ levels: LevelResult[]; rssIdle: number }> {
  const o: Required<CapacityOptions> = { ladder: [25, 50, 100, 200, 400, 700, 1000, 1500], deltas: 2000, models: 2, perClient: 250, staggerMs: 0, ...options }
  const models = await Promise.all(Array.from({ length: o.models }, () => startModelProcess()))
  const gw = await startOperatorGateway({ modelBaseURL: models[0].baseURL, moreModelBaseURLs: models.slice(1).map((m) => m.baseURL) })
  const levels: LevelResult[] = []
  try {
    // A warm-up stream: the engine's modules load with the first provider session.
    await level(gw, 2, { ...o, deltas: 50 })
    const rssIdle = await gw.rss()
    for (const n of o.ladder) {
      const result = await level(gw, n, o)
      levels.push(result)
      report(result)
      if (!result.holds) break
    }
    return { levels, rssIdle }
  } finally {
    await gw.close()
    for (const m of models) await m.close()
  }
}

const MiB = 1024 * 1024

function describe(r: LevelResult): string {
  return `N=${r.n}: p99 gap ${r.p99} ms, largest ${r.maxGap.toFixed(0)} ms, ${r.stutters} streams over ${MAX_GAP_LIMIT_MS} ms (${r.stuttersAtStart} of them in their first second); RSS ${(r.rssBefore / MiB).toFixed(0)} → peak ${(r.rssPeak / MiB).toFixed(0)} MiB; CPU ${r.cpuPerDelta.toFixed(1)} µs/delta; ${r.holds ? 'holds' : 'FAILS'} (load ${loadavg()[0].toFixed(1)})`
}

/** Bench rows: N (target ≥ 1,000), and at that N the memory per streaming session and CPU per delta. */
export async function benchCapacity(options: CapacityOptions = {}): Promise<BenchRow[]> {
  const { levels, rssIdle } = await measureCapacity(options, (r) => console.log(`  ${describe(r)}`))
  const best = [...levels].reverse().find((l) => l.holds)
  const spread = levels.map(describe).join('; ')
  const nRow = row('capacity: streams at 50 deltas/s, p99 gap < 100 ms, none > 250 ms', 'streams', best?.n ?? 0, null, 'higher', 1000)
  nRow.spread = spread
  if (!best) return [nRow]
  return [
    nRow,
    row(`capacity: gateway memory per streaming session at N=${best.n}`, 'KiB', (best.rssPeak - rssIdle) / best.n / 1024, null, 'lower', 1024),
    row(`capacity: gateway CPU per delta at N=${best.n}`, 'µs', best.cpuPerDelta, null, 'lower', 25),
  ]
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { ladder: { type: 'string' }, deltas: { type: 'string' }, models: { type: 'string' }, 'per-client': { type: 'string' }, 'stagger-ms': { type: 'string' } } })
  const rows = await benchCapacity({
    ...(values.ladder ? { ladder: values.ladder.split(',').map(Number) } : {}),
    ...(values.deltas ? { deltas: Number(values.deltas) } : {}),
    ...(values.models ? { models: Number(values.models) } : {}),
    ...(values['per-client'] ? { perClient: Number(values['per-client']) } : {}),
    ...(values['stagger-ms'] ? { staggerMs: Number(values['stagger-ms']) } : {}),
  })
  for (const r of rows) console.log(`${r.name}: ${r.value} ${r.unit}`)
}
