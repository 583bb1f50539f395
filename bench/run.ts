/**
 * `npm run bench`: every benchmark of the foundation, each as a ratio against a baseline measured
 * in the same run. Writes reports/out/bench/latest.json and prints a table. Never part of `npm test`.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { benchAccessLog } from './access-log-bench.ts'
import { benchCreate, benchList } from './http-bench.ts'
import { benchForward } from './forward-bench.ts'
import { benchMemory } from './memory-bench.ts'
import { benchMemoryReturned } from './memory-return.ts'
import { benchQueue } from './queue-bench.ts'
import { benchCapacity } from './capacity-bench.ts'
import { benchLeanModel } from './lean-model-bench.ts'
import { benchRelayCpu } from './relay-cpu.ts'
import { benchLiveProvider, benchStreamCpu } from './stream-cpu.ts'
import { startBenchGateway } from './rig.ts'
import { benchKit, benchStartup } from './startup-bench.ts'
import { meetsTarget, type BenchRow } from './stats.ts'
import { benchLive, benchReplay } from './ws-bench.ts'

const OUT_DIR = new URL('../reports/out/bench/', import.meta.url)

async function main(): Promise<void> {
  const rows: BenchRow[] = []
  // `npm run bench -- c e` runs only the steps whose letter (or tag: fwd, log) is named.
  const only = process.argv.slice(2)
  const step = async (label: string, run: () => Promise<BenchRow | BenchRow[]>) => {
    if (only.length && !only.some((letter) => label.startsWith(`(${letter})`))) return
    process.stdout.write(`running ${label}…\n`)
    const result = await run()
    rows.push(...(Array.isArray(result) ? result : [result]))
  }
  const gw = await startBenchGateway()
  try {
    await step('(a) replay on attach', () => benchReplay(gw))
    await step('(b) live fan-out to 1 client', () => benchLive(gw, 1))
    await step('(b) live fan-out to 10 clients', () => benchLive(gw, 10))
    await step('(d) create latency', () => benchCreate(gw))
    await step('(c) list and read', () => benchList(gw))
  } finally {
    await gw.close()
  }
  await step('(b) live stream through the provider path to 1 client', () => benchLiveProvider())
  await step('(e) memory per idle session', () => benchMemory())
  await step('(e) memory returned after 1,000 sessions are deleted', () => benchMemoryReturned())
  await step('(f) start to listening', () => benchStartup())
  await step('(g) full kit run', () => benchKit())
  await step('(h) PostgreSQL queue claim rate', () => benchQueue())
  await step('(i) gateway CPU per streamed delta (provider, cli_primary, cli_secondary)', () => benchStreamCpu())
  await step('(i) provider CPU per delta against a bare relay and an SDK relay', () => benchRelayCpu())
  await step('(j) capacity: concurrent streams at 50 deltas/s', () => benchCapacity())
  await step('(k) lean OpenAI-compatible model vs the AI SDK model, CPU per delta', () => benchLeanModel())
  await step('(fwd) live stream through a forwarding process vs direct to the owner', () => benchForward())
  await step('(log) GET /sessions/:id at default logging vs at warn', () => benchAccessLog())
  await mkdir(OUT_DIR, { recursive: true })
  await writeFile(new URL('latest.json', OUT_DIR), `${JSON.stringify(rows, null, 2)}\n`)
  printTable(rows)
  console.log(`\nwritten to reports/out/bench/latest.json`)
}

function printTable(rows: BenchRow[]): void {
  const lines = rows.map((r) => [
    r.name, `${r.value} ${r.unit}`, r.baseline === null ? '—' : `${r.baseline} ${r.unit}`, r.ratio === null ? '—' : String(r.ratio),
    `${r.better === 'higher' ? '≥' : '≤'} ${r.target}${r.ratio === null ? ` ${r.unit}` : ''}`, meetsTarget(r) ? 'meets' : 'MISSES',
  ])
  const header = ['benchmark', 'value', 'baseline', 'ratio', 'target', '']
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)))
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ')
  console.log(`\n${fmt(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`)
  for (const line of lines) console.log(fmt(line))
  console.log('\nspread')
  for (const r of rows) if (r.spread) console.log(`  ${r.name}: ${r.spread}`)
}

main().catch((err) => {
  console.error(`bench failed: ${err instanceof Error ? err.stack : String(err)}`)
  process.exit(1)
})
