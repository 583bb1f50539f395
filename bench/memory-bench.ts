/**
 * (e) resident memory per idle session: N real provider-engine sessions (AI SDK runner, fake model
 * server), created over HTTP and left idle, against a fresh gateway-only process per session count
 * (memory-gateway.ts), so readings share no heap and count none of the client's memory.
 */
import { forkMemoryGateway } from './memory-gateway.ts'
import { row, type BenchRow } from './stats.ts'

export async function measureIdleSessions(count: number): Promise<{ heap: number; rss: number; heapTotal: number; external: number }> {
  const gateway = await forkMemoryGateway()
  try {
    const { url } = gateway
    const create = () => fetch(`${url}/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then((r) => r.arrayBuffer())
    for (let i = 0; i < 50; i++) await create() // warm every code path before the baseline reading
    await new Promise((r) => setTimeout(r, 100))
    const before = await gateway.measure()
    for (let i = 0; i < count; i++) await create()
    await new Promise((r) => setTimeout(r, 200))
    await fetch(`${url}/sessions`).then((r) => r.arrayBuffer()) // the list caches each row's JSON too
    const after = await gateway.measure()
    if (after.sessions !== count + 50) throw new Error(`${after.sessions} sessions live, expected ${count + 50}`)
    const per = (key: 'heap' | 'rss' | 'heapTotal' | 'external') => (after[key] - before[key]) / count
    return { heap: per('heap'), rss: per('rss'), heapTotal: per('heapTotal'), external: per('external') }
  } finally {
    await gateway.close()
  }
}

export async function benchMemory(): Promise<BenchRow[]> {
  const rows: BenchRow[] = []
  for (const count of [1000, 5000]) {
    const { heap, rss, heapTotal, external } = await measureIdleSessions(count)
    rows.push(row(`heap per idle session at ${count.toLocaleString('en')}`, 'bytes', heap, null, 'lower', 20_480))
    const resident = row(`resident memory per idle session at ${count.toLocaleString('en')}`, 'bytes', rss, null, 'lower', 20_480)
    const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`
    // heapTotal and external say what of the resident growth V8 holds (committed pages, buffers);
    // the rest is native: malloc arenas, code, thread stacks.
    resident.spread = `of which V8 heap committed ${kb(heapTotal)} (used ${kb(heap)}), external ${kb(external)}, native rest ${kb(rss - heapTotal - external)}`
    rows.push(resident)
  }
  return rows
}

if (process.argv[1] === import.meta.filename) {
  for (const count of process.argv.slice(2).map(Number)) console.log(count, JSON.stringify(await measureIdleSessions(count)))
}
