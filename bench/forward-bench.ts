/**
 * (fwd) A live stream read through a forwarding process vs a direct attach to the owner. Two
 * `gateway serve` processes of one fleet (operator-gateway.ts, `fleet` and a PostgreSQL `parking`
 * store on an embedded server, one shared secret and token), the fake model server in a third
 * process. Each session is created on the owner; its WebSocket is attached either to the owner
 * (direct) or to the other process, which forwards it to the owner (forwarded). Measured in
 * interleaved rounds, both sides back to back on one machine:
 * - time per delta: an unpaced turn of `deltas` text deltas, `user_message` → `turn_result`,
 *   over the deltas (the wall time the forwarding hop adds to each event);
 * - CPU per delta: the owner's plus the other process's CPU (every thread, from /proc), on both
 *   sides; the difference is what forwarding costs per event;
 * - first delta: `user_message` → the first delta of a one-delta turn, median of `pings` turns
 *   (the hop's latency on a lone event, both ways).
 *
 * `npx tsx bench/forward-bench.ts [--deltas N] [--rounds N]` prints the figures; `npm run bench -- fwd` gives rows.
 */
import { randomBytes } from 'node:crypto'
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import type WebSocket from 'ws'
import { startPostgresServer } from '../gateway/test/postgres-server.ts'
import { startModelProcess, startOperatorGateway, type OperatorGateway } from './operator-gateway.ts'
import { attach, createSession, deleteSession, streamTurn, unpacedScenario } from './stream-client.ts'
import { median, minMedMax, pairedRow, type BenchRow } from './stats.ts'

const DB_ENV = 'BENCH_FLEET_DATABASE_URL'
const SECRET_ENV = 'BENCH_FLEET_SECRET'

export interface ForwardFigures {
  /** Per round: ms per delta and µs of CPU per delta, each side; first-delta ms, each side. */
  directMsPerDelta: number[]
  forwardedMsPerDelta: number[]
  directCpuUs: number[]
  forwardedCpuUs: number[]
  directFirstMs: number[]
  forwardedFirstMs: number[]
}

interface Fleet { owner: OperatorGateway; forwarder: OperatorGateway; close(): Promise<void> }

async function startFleet(): Promise<Fleet> {
  const pg = await startPostgresServer()
  const closers: Array<() => Promise<void>> = [() => pg.stop()]
  const close = async () => { for (const c of closers.reverse()) await c().catch(() => {}) }
  try {
    const env = { [DB_ENV]: await pg.createDatabase('forward_bench'), [SECRET_ENV]: randomBytes(24).toString('hex') }
    const model = await startModelProcess()
    closers.push(() => model.close())
    const token = `gw_${randomBytes(32).toString('base64url')}`
    const member = (processId: string) => startOperatorGateway({
      modelBaseURL: model.baseURL, source: true, token, env,
      extraYaml: `parking: { store: { kind: postgres, urlEnv: ${DB_ENV} } }\nfleet: { processId: ${processId}, secretEnv: ${SECRET_ENV} }\n`,
    })
    const owner = await member('owner')
    closers.push(() => owner.close())
    const forwarder = await member('forwarder')
    closers.push(() => forwarder.close())
    return { owner, forwarder, close }
  } catch (err) {
    await close()
    throw err
  }
}

/** One side of a round: a fresh session on the owner, attached through `via`. */
async function measure(fleet: Fleet, via: OperatorGateway, deltas: number, pings: number): Promise<{ msPerDelta: number; cpuUs: number; firstMs: number }> {
  const id = await createSession(fleet.owner, 'default')
  const ws = await attach({ url: via.url, token: fleet.owner.token }, id)
  try {
    const firsts: number[] = []
    for (let i = 0; i < pings; i++) firsts.push(await firstDelta(ws))
    // Both processes on both sides: the forwarder's idle work (its heartbeat) cancels out.
    const cpu = async () => (await fleet.owner.cpuNs()) + (await fleet.forwarder.cpuNs())
    const cpuBefore = await cpu()
    const started = performance.now()
    const timing = await streamTurn(ws, unpacedScenario(deltas))
    const ms = performance.now() - started
    const cpuUsed = (await cpu()) - cpuBefore
    if (timing.deltas !== deltas) throw new Error(`forward bench: ${timing.deltas} of ${deltas} deltas arrived`)
    return { msPerDelta: ms / deltas, cpuUs: cpuUsed / 1000 / deltas, firstMs: median(firsts) }
  } finally {
    ws.close()
    await deleteSession(fleet.owner, id)
  }
}

async function firstDelta(ws: WebSocket): Promise<number> {
  const started = performance.now()
  const timing = await streamTurn(ws, unpacedScenario(1))
  return timing.firstAt - started
}

export async function measureForward(options: { deltas?: number; rounds?: number; pings?: number } = {}): Promise<ForwardFigures> {
  const deltas = options.deltas ?? 10_000
  const rounds = options.rounds ?? 5
  const pings = options.pings ?? 20
  const fleet = await startFleet()
  const f: ForwardFigures = { directMsPerDelta: [], forwardedMsPerDelta: [], directCpuUs: [], forwardedCpuUs: [], directFirstMs: [], forwardedFirstMs: [] }
  try {
    // Warm-up, both ways: the engine's modules load with the first session, the JIT warms up.
    await measure(fleet, fleet.owner, 2000, 3)
    await measure(fleet, fleet.forwarder, 2000, 3)
    for (let r = 0; r < rounds; r++) {
      // Alternate which side goes first, so a drift in the machine's load hits both alike.
      const sides = r % 2 ? [fleet.forwarder, fleet.owner] : [fleet.owner, fleet.forwarder]
      for (const via of sides) {
        const m = await measure(fleet, via, deltas, pings)
        const direct = via === fleet.owner
        ;(direct ? f.directMsPerDelta : f.forwardedMsPerDelta).push(m.msPerDelta)
        ;(direct ? f.directCpuUs : f.forwardedCpuUs).push(m.cpuUs)
        ;(direct ? f.directFirstMs : f.forwardedFirstMs).push(m.firstMs)
      }
    }
  } finally {
    await fleet.close()
  }
  return f
}

/** Rows: forwarded over direct, per delta (time, CPU) and for a lone event's latency. */
export async function benchForward(): Promise<BenchRow[]> {
  const f = await measureForward()
  const load = loadavg().map((l) => l.toFixed(1)).join(' ')
  const added = f.forwardedCpuUs.map((v, i) => v - f.directCpuUs[i])
  const time = pairedRow('live stream through a forwarding process vs direct to the owner: time per delta (10k unpaced)', 'ms', f.forwardedMsPerDelta, f.directMsPerDelta, 'lower', 2)
  time.spread += `; load ${load}`
  const cpu = pairedRow('live stream through a forwarding process vs direct: CPU per delta (both processes)', 'µs', f.forwardedCpuUs, f.directCpuUs, 'lower', 2.5)
  cpu.spread += `; added ${minMedMax(added, 1)} µs per forwarded delta; load ${load}`
  const first = pairedRow('live stream through a forwarding process vs direct: user_message to first delta', 'ms', f.forwardedFirstMs, f.directFirstMs, 'lower', 2)
  first.spread += `; load ${load}`
  return [time, cpu, first]
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { deltas: { type: 'string' }, rounds: { type: 'string' }, pings: { type: 'string' } } })
  const num = (v: string | undefined) => (v === undefined ? undefined : Number(v))
  const f = await measureForward({ deltas: num(values.deltas), rounds: num(values.rounds), pings: num(values.pings) })
  const show = (name: string, list: number[], unit: string) => console.log(`${name}: ${list.map((v) => v.toFixed(3)).join(', ')} ${unit} (median ${median(list).toFixed(3)})`)
  show('direct time per delta', f.directMsPerDelta, 'ms')
  show('forwarded time per delta', f.forwardedMsPerDelta, 'ms')
  show('direct CPU per delta (owner)', f.directCpuUs, 'µs')
  show('forwarded CPU per delta (owner + forwarder)', f.forwardedCpuUs, 'µs')
  show('direct first delta', f.directFirstMs, 'ms')
  show('forwarded first delta', f.forwardedFirstMs, 'ms')
  console.log(`load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`)
}
