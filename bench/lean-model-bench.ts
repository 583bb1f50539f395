/**
 * (k) The lean path against the SDK path: CPU per text delta of the model call the provider runner
 * makes per leg on each model (turn.ts `openModelCall`: on the lean OpenAI-compatible model its
 * own call, lean-call.ts; on `@ai-sdk/openai-compatible`'s, the SDK's `streamLanguageModelCall`),
 * reading the same stream from the fake model server in its own process. Each round is a child
 * `bench/sdk-stream-cost.ts` that measures both layers back to back after a warm-up of each (its
 * own process, so neither side shares a heap or a JIT with the bench); the ratio is lean / SDK.
 */
import { spawn } from 'node:child_process'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { pairedRow, type BenchRow } from './stats.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const SCRIPT = fileURLToPath(new URL('./sdk-stream-cost.ts', import.meta.url))

/** One child run: µs per delta of each layer (the last figure of each, after its warm-up). */
function measure(args: string[]): Promise<Record<string, number>> {
  const node = process.features.typescript ? [SCRIPT] : ['--import', 'tsx', SCRIPT]
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...node, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (text: string) => { out += text })
    child.on('error', reject)
    child.on('exit', (code) => {
      const figures: Record<string, number> = {}
      for (const match of out.matchAll(/^(\w+)\s+([\d.]+) µs\/delta/gm)) figures[match[1]] = Number(match[2])
      if (code !== 0 || figures.leanRunnerCall === undefined || figures.streamLanguageModelCall === undefined) reject(new Error(`sdk-stream-cost exited ${code}: ${out}`))
      else resolve(figures)
    })
  })
}

async function pair(name: string, args: string[], rounds: number): Promise<BenchRow> {
  const lean: number[] = []
  const sdk: number[] = []
  for (let round = 0; round < rounds; round++) {
    // The order alternates round by round, so a busy moment hits both sides.
    const layers = round % 2 ? ['leanRunnerCall', 'streamLanguageModelCall'] : ['streamLanguageModelCall', 'leanRunnerCall']
    const figures = await measure([...args, ...layers])
    lean.push(figures.leanRunnerCall)
    sdk.push(figures.streamLanguageModelCall)
  }
  const r = pairedRow(name, 'µs', lean, sdk, 'lower', 0.6)
  r.spread += `; load ${loadavg()[0].toFixed(1)}`
  return r
}

export async function benchLeanModel(): Promise<BenchRow[]> {
  return [
    await pair('lean path vs the SDK path (the runner\'s model call): CPU per delta, 20k unpaced', ['20000'], 5),
    await pair('lean path vs the SDK path (the runner\'s model call): CPU per delta, 50 streams at 50 deltas/s', ['250', '--paced', '--streams', '50'], 3),
  ]
}
