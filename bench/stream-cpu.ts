/**
 * (i) Gateway CPU per streamed delta on the paths users run: the gateway as operators
 * run it (operator-gateway.ts: `gateway serve`, bearer auth, its own process), the fake model
 * server in another, this process the client. Per delta = the gateway process's CPU time (all its
 * threads) over a turn / the turn's text deltas. CPU time, not wall clock: on a shared machine it
 * moves far less with load.
 *
 * - provider, unpaced: one turn of `deltas` deltas sent as fast as the model server writes them
 *   (several deltas then share a read of the SSE socket);
 * - provider, paced: `streams` sessions at once, each `paced` deltas at 50/s (every delta its own
 *   SSE event, its own read and its own WebSocket write, as from a model at reading pace);
 * - cli_primary and cli_secondary: one turn of `deltas` deltas from the fake CLIs (stdio JSON lines).
 *
 * `npx tsx bench/stream-cpu.ts [--source | --bin <bin.js>] [--prof <dir>] [--node-args '<flags>'] [--deltas N] [--paced N] [--streams N] [path…]`
 * (paths: provider paced primary secondary) prints the figures; `npm run bench -- i` gives rows.
 */
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { startModelProcess, startOperatorGateway, type OperatorGateway } from './operator-gateway.ts'
import { attach, createSession, deleteSession, pacedScenario, streamTurn, unpacedScenario } from './stream-client.ts'
import { median, minMedMax, pairedRow, row, type BenchRow } from './stats.ts'

export type StreamPath = 'provider' | 'paced' | 'primary' | 'secondary'
const PROFILE: Record<StreamPath, string> = { provider: 'default', paced: 'default', primary: 'primary', secondary: 'codex' }

export interface StreamCpuOptions {
  paths?: StreamPath[]
  /** Deltas per unpaced turn. */
  deltas?: number
  /** Deltas per paced stream, and how many paced streams run at once. */
  paced?: number
  streams?: number
  rounds?: number
  source?: boolean
  /** Another compiled gateway `bin.js` (operator-gateway.ts). */
  bin?: string
  /** Directory for the gateway's `--cpu-prof` profile. */
  prof?: string
  /** More node flags for the gateway process (V8 flags to try). */
  nodeArgs?: string[]
}

export type StreamShape = Required<Pick<StreamCpuOptions, 'deltas' | 'paced' | 'streams'>>

/** µs of gateway CPU per delta for one measured unit of work on `path`. */
export async function measureOnce(gw: OperatorGateway, path: StreamPath, o: StreamShape): Promise<number> {
  const count = path === 'paced' ? o.streams : 1
  const ids = await Promise.all(Array.from({ length: count }, () => createSession(gw, PROFILE[path])))
  const sockets = await Promise.all(ids.map((id) => attach(gw, id)))
  const text = path === 'paced' ? pacedScenario(o.paced) : unpacedScenario(o.deltas)
  const before = await gw.cpuNs()
  const timings = await Promise.all(sockets.map((ws) => streamTurn(ws, text)))
  const used = (await gw.cpuNs()) - before
  const deltas = timings.reduce((n, t) => n + t.deltas, 0)
  const expected = count * (path === 'paced' ? o.paced : o.deltas)
  if (deltas !== expected) throw new Error(`${path}: ${deltas} deltas arrived, ${expected} expected`)
  for (const ws of sockets) ws.close()
  for (const id of ids) await deleteSession(gw, id)
  return used / 1000 / deltas
}

export async function measureStreamCpu(options: StreamCpuOptions = {}): Promise<Record<string, number[]>> {
  // Options passed as undefined (flags not given) keep the defaults.
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as StreamCpuOptions
  const o = { deltas: 20_000, paced: 500, streams: 10, rounds: 3, ...given }
  const paths = o.paths ?? ['provider', 'paced', 'primary', 'secondary']
  const model = await startModelProcess()
  const gw = await startOperatorGateway({
    modelBaseURL: model.baseURL, source: o.source, bin: o.bin,
    nodeArgs: [...(o.nodeArgs ?? []), ...(o.prof ? ['--cpu-prof', `--cpu-prof-dir=${o.prof}`] : [])],
  })
  const figures: Record<string, number[]> = {}
  try {
    for (const path of paths) {
      // A warm-up turn: the engine's modules load with the first session, the JIT warms up.
      await measureOnce(gw, path, { ...o, deltas: Math.min(o.deltas, 2000), paced: Math.min(o.paced, 50), streams: Math.min(o.streams, 2) })
      figures[path] = []
      for (let r = 0; r < o.rounds; r++) figures[path].push(await measureOnce(gw, path, o))
    }
  } finally {
    await gw.close()
    await model.close()
  }
  return figures
}

const NAMES: Record<StreamPath, string> = {
  provider: 'gateway CPU per delta, provider path, unpaced',
  paced: 'gateway CPU per delta, provider path, 50 deltas/s per stream',
  primary: 'gateway CPU per delta, cli_primary path (fake CLI)',
  secondary: 'gateway CPU per delta, cli_secondary path (fake codex)',
}

/** Bench rows: the median of the rounds, against the target of 25 µs on the provider path. */
export async function benchStreamCpu(): Promise<BenchRow[]> {
  const figures = await measureStreamCpu()
  const load = loadavg()[0].toFixed(1)
  return Object.entries(figures).map(([path, values]) => {
    const r = row(NAMES[path as StreamPath], 'µs', median(values), null, 'lower', 25)
    r.spread = `${minMedMax(values, 1)} µs (min / median / max of ${values.length} rounds; load ${load})`
    return r
  })
}

/**
 * (b) live stream through the real provider path: `deltas` text deltas unpaced, `user_message` →
 * the turn's result at one client, on the gateway as operators run it (bearer auth, its own
 * process). Baseline: the same stream read straight from the fake model server by this process
 * (its SSE bytes, deltas counted), the limit for any gateway in front of that model server.
 */
export async function benchLiveProvider(deltas = 20_000, rounds = 5): Promise<BenchRow> {
  const model = await startModelProcess()
  const gw = await startOperatorGateway({ modelBaseURL: model.baseURL })
  const text = unpacedScenario(deltas)
  const viaGateway = async () => {
    const id = await createSession(gw, 'default')
    const ws = await attach(gw, id)
    const started = performance.now()
    const timing = await streamTurn(ws, text)
    const ms = performance.now() - started
    if (timing.deltas !== deltas) throw new Error(`live provider: ${timing.deltas} of ${deltas} deltas`)
    ws.close()
    await deleteSession(gw, id)
    return deltas / (ms / 1000)
  }
  const direct = async () => {
    const started = performance.now()
    const res = await fetch(`${model.baseURL}/chat/completions`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake-small', stream: true, messages: [{ role: 'user', content: text }] }),
    })
    let seen = 0
    // The needle may straddle two reads: its first bytes are carried over to the next.
    let carry = Buffer.alloc(0)
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      const buf = Buffer.concat([carry, chunk])
      seen += countOf(buf, CONTENT)
      carry = buf.subarray(Math.max(0, buf.length - CONTENT.length + 1))
    }
    const ms = performance.now() - started
    // The first chunk's `content: ''` is the role announcement, not a delta.
    if (seen - 1 !== deltas) throw new Error(`live provider baseline: ${seen - 1} of ${deltas} deltas`)
    return deltas / (ms / 1000)
  }
  try {
    await viaGateway()
    await direct()
    const ours: number[] = []
    const base: number[] = []
    for (let i = 0; i < rounds; i++) {
      if (i % 2) base.push(await direct())
      ours.push(await viaGateway())
      if (!(i % 2)) base.push(await direct())
    }
    return pairedRow(`live ${deltas / 1000}k deltas through the provider path (auth, compiled, fake model server) to 1 client`, 'deltas/s', ours, base, 'higher', 0.8)
  } finally {
    await gw.close()
    await model.close()
  }
}

const CONTENT = Buffer.from('"content":')

function countOf(buf: Buffer, needle: Buffer): number {
  let n = 0
  for (let at = buf.indexOf(needle); at >= 0; at = buf.indexOf(needle, at + needle.length)) n++
  return n
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: {
    source: { type: 'boolean' }, bin: { type: 'string' }, prof: { type: 'string' }, deltas: { type: 'string' }, paced: { type: 'string' },
    streams: { type: 'string' }, rounds: { type: 'string' }, 'node-args': { type: 'string' },
  } })
  const num = (v: string | undefined) => (v === undefined ? undefined : Number(v))
  const figures = await measureStreamCpu({
    paths: positionals.length ? (positionals as StreamPath[]) : undefined, source: values.source, bin: values.bin, prof: values.prof,
    deltas: num(values.deltas), paced: num(values.paced), streams: num(values.streams), rounds: num(values.rounds),
    nodeArgs: values['node-args']?.split(' ').filter(Boolean),
  })
  for (const [path, list] of Object.entries(figures)) {
    console.log(`${path}: ${list.map((v) => v.toFixed(1)).join(', ')} µs/delta (median ${median(list).toFixed(1)}); load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`)
  }
}
