/**
 * (i) The provider path's CPU per delta against the floor, in the same run: the gateway as
 * operators run it (operator-gateway.ts), a bare relay and an SDK relay (relay-child.ts), each in
 * a process of its own, the fake model server in another, this process the client. Rounds
 * interleave the three, the order rotating, so a busy moment hits every side.
 *
 * - ours / bare relay: what the whole path costs over the least any relay of this stream pays;
 * - ours − SDK relay: the gateway's own cost per delta (the SDK relay runs the same model layer,
 *   so the difference is the event log, fan-out, framing and accounting the gateway adds).
 *
 * `npx tsx bench/relay-cpu.ts [--source] [--node-args '<flags>'] [--streams 50] [--paced 250] [--deltas 20000] [--rounds 3] [--prof dir] [paced|provider]`
 */
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { startModelProcess, startOperatorGateway, type OperatorGateway } from './operator-gateway.ts'
import { startRelay } from './relay.ts'
import { measureOnce, type StreamShape } from './stream-cpu.ts'
import { median, minMedMax, pairedRow, row, type BenchRow } from './stats.ts'

export interface RelayCpuOptions extends Partial<StreamShape> {
  rounds?: number
  source?: boolean
  prof?: string
  /** More node flags for the gateway process (V8 flags to try). */
  nodeArgs?: string[]
}

export interface RelayCpuFigures { ours: number[]; bare: number[]; sdk: number[]; load: number[] }

type Path = 'paced' | 'provider'

export async function measureAgainstRelays(paths: Path[], options: RelayCpuOptions = {}): Promise<Record<Path, RelayCpuFigures>> {
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as RelayCpuOptions
  const o = { deltas: 20_000, paced: 250, streams: 50, rounds: 3, ...given }
  const model = await startModelProcess()
  const targets: Record<'ours' | 'bare' | 'sdk', OperatorGateway> = {
    ours: await startOperatorGateway({ modelBaseURL: model.baseURL, source: o.source, nodeArgs: [...(o.nodeArgs ?? []), ...(o.prof ? ['--cpu-prof', `--cpu-prof-dir=${o.prof}`] : [])] }),
    bare: await startRelay('bare', [model.baseURL]),
    sdk: await startRelay('sdk', [model.baseURL]),
  }
  const sides = ['ours', 'bare', 'sdk'] as const
  const out = {} as Record<Path, RelayCpuFigures>
  try {
    for (const path of paths) {
      const figures: RelayCpuFigures = { ours: [], bare: [], sdk: [], load: [] }
      // A warm-up each: modules load with the first session, the JIT warms up.
      for (const side of sides) await measureOnce(targets[side], path, { deltas: Math.min(o.deltas, 2000), paced: Math.min(o.paced, 50), streams: Math.min(o.streams, 10) })
      for (let r = 0; r < o.rounds; r++) {
        for (let k = 0; k < sides.length; k++) {
          const side = sides[(r + k) % sides.length]
          figures[side].push(await measureOnce(targets[side], path, o))
        }
        figures.load.push(loadavg()[0])
      }
      out[path] = figures
    }
  } finally {
    for (const t of Object.values(targets)) await t.close()
    await model.close()
  }
  return out
}

const LABEL: Record<Path, (o: Required<StreamShape>) => string> = {
  paced: (o) => `${o.streams} streams at 50 deltas/s`,
  provider: (o) => `one turn of ${o.deltas / 1000}k unpaced deltas`,
}

/** Rows: ours / bare relay (target ≤ 1.5) and ours − SDK relay (target ≤ 25 µs), per path. */
export async function benchRelayCpu(paths: Path[] = ['paced', 'provider'], options: RelayCpuOptions = {}): Promise<BenchRow[]> {
  const figures = await measureAgainstRelays(paths, options)
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined))
  const shape = { deltas: 20_000, paced: 250, streams: 50, ...given } as Required<StreamShape>
  const rows: BenchRow[] = []
  for (const path of paths) {
    const f = figures[path]
    const load = `load ${minMedMax(f.load, 1)}`
    const vsBare = pairedRow(`provider CPU per delta vs a bare relay, ${LABEL[path](shape)}`, 'µs', f.ours, f.bare, 'lower', 1.5)
    vsBare.spread += `; ${load}`
    const own = f.ours.map((v, i) => v - f.sdk[i])
    const ownRow = row(`gateway's own CPU per delta (ours − SDK relay), ${LABEL[path](shape)}`, 'µs', median(own), null, 'lower', 25)
    ownRow.spread = `${minMedMax(own, 1)} µs (min / median / max of ${own.length} rounds); ours ${minMedMax(f.ours, 1)}, SDK relay ${minMedMax(f.sdk, 1)}, bare relay ${minMedMax(f.bare, 1)} µs; ${load}`
    const sdkRow = pairedRow(`SDK relay (the gateway's model layer) vs a bare relay, ${LABEL[path](shape)}`, 'µs', f.sdk, f.bare, 'lower', 1.5)
    sdkRow.spread += `; ${load}`
    rows.push(vsBare, ownRow, sdkRow)
  }
  return rows
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: {
    source: { type: 'boolean' }, prof: { type: 'string' }, deltas: { type: 'string' }, paced: { type: 'string' }, streams: { type: 'string' }, rounds: { type: 'string' }, 'node-args': { type: 'string' },
  } })
  const num = (v: string | undefined) => (v === undefined ? undefined : Number(v))
  const rows = await benchRelayCpu(positionals.length ? (positionals as Path[]) : undefined, {
    source: values.source, prof: values.prof, deltas: num(values.deltas), paced: num(values.paced), streams: num(values.streams), rounds: num(values.rounds),
    nodeArgs: values['node-args']?.split(' ').filter(Boolean),
  })
  for (const r of rows) console.log(`${r.name}: ${r.value.toFixed(1)} µs${r.ratio === null ? '' : `, ratio ${r.ratio}`}\n  ${r.spread}`)
}
