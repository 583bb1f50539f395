/**
 * (f) start to listening and (g) the full kit run. Start: what operators run, the
 * compiled package (`packages/gateway`, built by this step with `npm run build`'s script) under
 * plain `node` (`node dist/gateway/bin.js serve --config …`, a configuration of two profiles),
 * until it logs that it listens, against a spawned bare `node:http` server under plain `node`;
 * samples of the two are interleaved, and the spread is reported. (Running both under
 * tsx would cost both sides the same loader time and pull the ratio toward 1.) Kit: one wall-clock
 * run of `gateway-conformance` on the self target.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median, minMedMax, pairedRow, row, type BenchRow } from './stats.ts'
import { processCpuNs } from './operator-gateway.ts'
import { buildGatewayPackage, COMPILED_BIN } from './compiled-package.ts'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const BARE = "require('node:http').createServer((q, s) => s.end()).listen(0, '127.0.0.1', () => console.log('listening'))"

/**
 * Milliseconds from spawn to the first stdout line matching `ready`, and the process's CPU time by
 * then (every thread, from /proc: on a loaded machine wall clock is several times the CPU time and
 * varies with the load, CPU time much less); the process is then killed.
 */
function timeToReady(args: string[], ready: RegExp): Promise<{ wall: number; cpu: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
    let out = ''
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`not ready within 60 s: ${args.join(' ')}`)) }, 60_000)
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk
      if (!ready.test(out)) return
      const elapsed = performance.now() - started
      clearTimeout(timer)
      processCpuNs(child.pid!).then((ns) => {
        child.once('exit', () => resolve({ wall: elapsed, cpu: ns / 1e6 }))
        child.kill('SIGKILL')
      }, reject)
    })
    child.once('error', reject)
  })
}

/** Two provider profiles on an unreachable loopback model server: start never calls it. */
const CONFIG = (root: string) => `listen: { host: 127.0.0.1, port: 0 }
auth: { allowUnauthenticated: true }
profiles:
  - name: default
    engine: provider
    provider: { id: openai-compatible, baseURL: 'http://127.0.0.1:9/v1', model: first }
  - name: second
    engine: provider
    provider: { id: openai-compatible, baseURL: 'http://127.0.0.1:9/v1', model: second }
allowedCwdRoots: [${JSON.stringify(root)}]
`

export async function benchStartup(samples = 9): Promise<BenchRow[]> {
  const work = await mkdtemp(join(tmpdir(), 'gw-start-'))
  const config = join(work, 'gateway.yaml')
  await writeFile(config, CONFIG(work))
  await buildGatewayPackage()
  const gateway = [COMPILED_BIN, 'serve', '--config', config]
  const ours: Array<{ wall: number; cpu: number }> = []
  const bare: Array<{ wall: number; cpu: number }> = []
  try {
    await timeToReady(gateway, /gateway listening/) // warm the disk cache and tsx's transform cache
    await timeToReady(['-e', BARE], /listening/)
    for (let i = 0; i < samples; i++) {
      // Interleaved, the order alternating, so a busy moment hits both sides of a round.
      if (i % 2) bare.push(await timeToReady(['-e', BARE], /listening/))
      ours.push(await timeToReady(gateway, /gateway listening/))
      if (!(i % 2)) bare.push(await timeToReady(['-e', BARE], /listening/))
    }
  } finally {
    await rm(work, { recursive: true, force: true })
  }
  const wall = (xs: typeof ours) => xs.map((x) => x.wall)
  const cpu = (xs: typeof ours) => xs.map((x) => x.cpu)
  console.log(`start to listening: gateway ${minMedMax(wall(ours), 0)} ms, bare node:http ${minMedMax(wall(bare), 0)} ms (min / median / max, ${samples} interleaved samples each)`)
  console.log(`  CPU time by then (all threads): gateway ${minMedMax(cpu(ours), 0)} ms, bare node:http ${minMedMax(cpu(bare), 0)} ms; load average ${(await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ')}`)
  const r = pairedRow('start to listening (compiled gateway serve --config, 2 profiles, vs bare node:http, plain node)', 'ms', wall(ours), wall(bare), 'lower', 2)
  const cpuRatios = ours.map((x, i) => x.cpu / bare[i].cpu)
  r.spread += `; CPU-time ratio ${minMedMax(cpuRatios)}`
  return [r]
}

/** Three runs of the kit; the row is their median, the spread their min / median / max. */
export async function benchKit(runs = 3): Promise<BenchRow[]> {
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'conformance/cli.ts')], { cwd: ROOT, stdio: 'ignore' })
      child.once('exit', (c) => resolve(c))
    })
    times.push(performance.now() - started)
    console.log(`full kit run on the self target: ${Math.round(times[i])} ms, exit ${code}`)
  }
  const r = row('full kit run on the self target', 'ms', median(times), null, 'lower', 10_000)
  r.spread = `${minMedMax(times, 0)} ms (min / median / max of ${runs} runs)`
  return [r]
}
