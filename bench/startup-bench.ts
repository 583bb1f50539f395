/**
 * (f) start to listening and (g) the full kit run (issue 14). Start: a spawned gateway process
 * (the `gateway` command's dev wiring, under tsx as `npm run gateway` runs it) until it prints
 * that it listens, against a spawned bare `node:http` server under the same loader; samples of the
 * two are interleaved, and the spread (min–max) of each is reported. Kit: one wall-clock run of
 * `gateway-conformance` on the self target.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median, row, type BenchRow } from './stats.ts'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const BARE = "require('node:http').createServer((q, s) => s.end()).listen(0, '127.0.0.1', () => console.log('listening'))"

/** Milliseconds from spawn to the first stdout line matching `ready`; the process is then killed. */
function timeToReady(args: string[], ready: RegExp): Promise<number> {
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
      child.once('exit', () => resolve(elapsed))
      child.kill('SIGKILL')
    })
    child.once('error', reject)
  })
}

export async function benchStartup(samples = 5): Promise<BenchRow[]> {
  const work = await mkdtemp(join(tmpdir(), 'gw-start-'))
  const ours: number[] = []
  const bare: number[] = []
  try {
    for (let i = 0; i < samples; i++) {
      bare.push(await timeToReady(['--import', 'tsx', '-e', BARE], /listening/))
      ours.push(await timeToReady(['--import', 'tsx', join(ROOT, 'gateway/cli.ts'), '--port', '0', '--cwd-root', work], /gateway listening on/))
    }
  } finally {
    await rm(work, { recursive: true, force: true })
  }
  const spread = (v: number[]) => `${Math.round(Math.min(...v))}–${Math.round(Math.max(...v))} ms`
  console.log(`start to listening: gateway ${spread(ours)}, bare node:http ${spread(bare)} (${samples} interleaved samples each)`)
  return [row('start to listening (spawned gateway vs spawned bare node:http)', 'ms', median(ours), median(bare), 'lower', 4)]
}

export async function benchKit(): Promise<BenchRow[]> {
  const started = performance.now()
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'conformance/cli.ts')], { cwd: ROOT, stdio: 'ignore' })
    child.once('exit', (c) => resolve(c))
  })
  const elapsed = performance.now() - started
  console.log(`full kit run on the self target: ${Math.round(elapsed)} ms, exit ${code}`)
  return [row('full kit run on the self target', 'ms', elapsed, null, 'lower', 10_000)]
}
