/** Runs memory-child.ts in a fresh process per session count, so readings do not share a heap. */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { row, type BenchRow } from './stats.ts'

const CHILD = fileURLToPath(new URL('./memory-child.ts', import.meta.url))

function measure(count: number): Promise<{ heap: number; rss: number; heapTotal: number; external: number }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD, String(count)], { timeout: 120_000 }, (err, stdout) => {
      if (err) return reject(err)
      resolve(JSON.parse(stdout))
    })
  })
}

export async function benchMemory(): Promise<BenchRow[]> {
  const rows: BenchRow[] = []
  for (const count of [1000, 5000]) {
    const { heap, rss, heapTotal, external } = await measure(count)
    rows.push(row(`heap per idle session at ${count.toLocaleString('en')}`, 'bytes', heap, null, 'lower', 20_480))
    const resident = row(`resident memory per idle session at ${count.toLocaleString('en')}`, 'bytes', rss, null, 'lower', 20_480)
    const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`
    resident.spread = `of which V8 heap committed ${kb(heapTotal)} (used ${kb(heap)}), external ${kb(external)}, native rest ${kb(rss - heapTotal - external)}`
    rows.push(resident)
  }
  return rows
}
