/**
 * (j) Capacity: N sessions each streaming `deltas` text deltas at 50/s to one attached
 * client, through the real provider path (operator-gateway.ts: `gateway serve` in its own
 * process, bearer authentication on), the fake model servers and the clients in other processes.
 * N climbs a ladder; a level holds when the pooled p99 gap between a stream's consecutive deltas
 * is under 100 ms and no stream has a gap over 250 ms. The row is the largest N that holds against
 * the largest N a bare relay (relay-child.ts: node:http reading the same SSE, one WebSocket frame
 * per delta, its own process) holds in the same run, with the gateway's peak resident memory
 * there, its memory per streaming session ((peak − before) / N) and its CPU per delta.
 *
 * `npx tsx bench/capacity-bench.ts [--ladder 25,50,100] [--deltas 1000] [--models 2] [--per-client 250] [--stagger-ms 0]`
 */
import { fork, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { startModelProcess, startOperatorGateway, type OperatorGateway } from './operator-gateway.ts'
import { createSession, deleteSession, pacedScenario } from './stream-client.ts'
import { GAP_BUCKETS, type ClientReport } from './capacity-client.ts'
import { startRelay } from './relay.ts'
import { row, type BenchRow } from './stats.ts'

const CLIENT = fileURLToPath(new URL('./capacity-client.ts', import.meta.url))
const P99_LIMIT_MS = 100
const MAX_GAP_LIMIT_MS = 250
const LADDER = [25, 50, 75, 100, 150, 200, 300, 400]
const SIDES: CapacitySide[] = ['ours', 'relay']

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

export type CapacitySide = 'ours' | 'relay'

/**
 * Climbs the ladder on the gateway and on a bare relay (relay-child.ts) in the same run, level by
 * level (the side going first alternating), each side until a level fails on it.
 */
export async function measureCapacity(options: CapacityOptions = {}, report: (side: CapacitySide, r: LevelResult) => void = () => {}): Promise<Record<CapacitySide, { levels: LevelResult[]; rssIdle: number }>> {
  const o: Required<CapacityOptions> = { ladder: [...LADDER], deltas: 1000, models: 2, perClient: 250, staggerMs: 0, ...options }
  const models = await Promise.all(Array.from({ length: o.models }, () => startModelProcess()))
  const urls = models.map((m) => m.baseURL)
  const targets: Record<CapacitySide, OperatorGateway> = {
    ours: await startOperatorGateway({ modelBaseURL: urls[0], moreModelBaseURLs: urls.slice(1) }),
    relay: await startRelay('bare', urls),
  }
  const out = { ours: { levels: [] as LevelResult[], rssIdle: 0 }, relay: { levels: [] as LevelResult[], rssIdle: 0 } }
  try {
    for (const side of SIDES) {
      // A warm-up stream: the engine's modules load with the first provider session.
      await level(targets[side], 2, { ...o, deltas: 50 })
      out[side].rssIdle = await targets[side].rss()
    }
    const climbing = new Set<CapacitySide>(SIDES)
    for (const [i, n] of o.ladder.entries()) {
      for (const side of i % 2 ? [...SIDES].reverse() : SIDES) {
        if (!climbing.has(side)) continue
        const result = await level(targets[side], n, o)
        out[side].levels.push(result)
        report(side, result)
        if (!result.holds) climbing.delete(side)
      }
      if (!climbing.size) break
    }
    return out
  } finally {
    for (const t of Object.values(targets)) await t.close()
    for (const m of models) await m.close()
  }
}

const MiB = 1024 * 1024

function describe(r: LevelResult): string {
  return `N=${r.n}: p99 gap ${r.p99} ms, largest ${r.maxGap.toFixed(0)} ms, ${r.stutters} streams over ${MAX_GAP_LIMIT_MS} ms (${r.stuttersAtStart} of them in their first second); RSS ${(r.rssBefore / MiB).toFixed(0)} → peak ${(r.rssPeak / MiB).toFixed(0)} MiB; CPU ${r.cpuPerDelta.toFixed(1)} µs/delta; ${r.holds ? 'holds' : 'FAILS'} (load ${loadavg()[0].toFixed(1)})`
}

/** Bench rows: N against the bare relay's N (target ≥ 0.7), and at our N the memory per streaming session and CPU per delta. */
export async function benchCapacity(options: CapacityOptions = {}): Promise<BenchRow[]> {
  const result = await measureCapacity(options, (side, r) => console.log(`  ${side}: ${describe(r)}`))
  const bestOf = (side: CapacitySide) => [...result[side].levels].reverse().find((l) => l.holds)
  const best = bestOf('ours')
  const relayBest = bestOf('relay')
  const nRow = row('capacity: streams at 50 deltas/s, p99 gap < 100 ms, none > 250 ms, vs a bare relay', 'streams', best?.n ?? 0, relayBest?.n ?? 0, 'higher', 0.7)
  nRow.spread = `ours: ${result.ours.levels.map(describe).join('; ')} | bare relay: ${result.relay.levels.map(describe).join('; ')}`
  if (!best) return [nRow]
  const relayAtBest = result.relay.levels.find((l) => l.n === best.n)
  const cpuRow = row(`capacity: CPU per delta at N=${best.n} vs the bare relay`, 'µs', best.cpuPerDelta, relayAtBest?.cpuPerDelta ?? null, 'lower', 1.5)
  return [
    nRow,
    row(`capacity: gateway memory per streaming session at N=${best.n}`, 'KiB', (best.rssPeak - result.ours.rssIdle) / best.n / 1024, null, 'lower', 1024),
    cpuRow,
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
