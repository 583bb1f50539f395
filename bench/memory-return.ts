/**
 * (e) memory returned: 1,000 real provider-engine sessions, each with one turn on the
 * fake model server, are created and deleted against a gateway in its own process; its resident
 * memory after, as a ratio of before (target ≤ 1.10). Heap is reported alongside.
 */
import { fileURLToPath } from 'node:url'
import { forkMemoryGateway, type Usage } from './memory-gateway.ts'
import { row, type BenchRow } from './stats.ts'

type Reading = { before: Usage; peak: Usage; after: Usage }

/**
 * One fresh gateway process per reading. `pressure`: every reading takes a last-resort collection
 * (V8 then releases its pooled pages too); otherwise an ordinary full collection. `idleMs`: the
 * gateway idles that long before the reading before and the reading after, as a server does
 * between bursts, so V8's memory reducer (which hands pooled pages back some 8-25 s after the
 * last allocation burst) has had the same chance on both sides.
 */
export async function measureMemoryReturned(count = 1000, pressure = false, idleMs = 0): Promise<Reading> {
  const gateway = await forkMemoryGateway()
  try {
    const { url } = gateway
    const measure = () => gateway.measure(pressure)
    const create = () => fetch(`${url}/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"prompt":"hello"}' }).then((r) => r.json()).then((b: any) => b.session.id as string)
    const remove = (id: string) => fetch(`${url}/sessions/${id}`, { method: 'DELETE' }).then((r) => r.arrayBuffer())
    const cycle = async (n: number, atPeak?: () => Promise<void>) => {
      const ids: string[] = []
      for (let i = 0; i < n; i++) ids.push(await create())
      await new Promise((r) => setTimeout(r, 500))
      await fetch(`${url}/sessions`).then((r) => r.arrayBuffer())
      await atPeak?.()
      for (const id of ids) await remove(id)
    }
    // Two warm-up cycles bring every code path and the allocator to its working size first.
    await cycle(200)
    await cycle(200)
    await new Promise((r) => setTimeout(r, idleMs))
    const before = await measure()
    let peak = before
    await cycle(count, async () => { peak = await measure() })
    await new Promise((r) => setTimeout(r, idleMs))
    const after = await measure()
    if (after.sessions !== 0) throw new Error(`${after.sessions} sessions were left after the deletes`)
    return { before, peak, after }
  } finally {
    await gateway.close()
  }
}

/** Idle time before each ordinary-gc reading: V8's memory reducer needed 17-25 s here (README). */
const IDLE_MS = 30_000

export async function benchMemoryReturned(): Promise<BenchRow[]> {
  const idle = await measureMemoryReturned(1000, false, IDLE_MS)
  const atOnce = await measureMemoryReturned(1000, false)
  const pressed = await measureMemoryReturned(1000, true)
  const ordinary = row('resident memory after 1,000 sessions created and deleted, idle 30 s, ordinary gc (vs before, idle too)', 'bytes', idle.after.rss, idle.before.rss, 'lower', 1.1)
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`
  // What V8 counts as its heap, beside the resident growth: the gap is pages it keeps pooled (README).
  ordinary.spread = `heap used ${mb(idle.before.heap)} before, ${mb(idle.peak.heap)} at the peak, ${mb(idle.after.heap)} after; heap committed ${mb(idle.before.heapTotal)} before, ${mb(idle.after.heapTotal)} after`
  const immediate = row('resident memory right after the deletes, no idle, ordinary gc (vs before; V8 still pools the freed pages)', 'bytes', atOnce.after.rss, atOnce.before.rss, 'lower', Number.POSITIVE_INFINITY)
  immediate.spread = `resident ${mb(atOnce.before.rss)} before, ${mb(atOnce.peak.rss)} at the peak, ${mb(atOnce.after.rss)} after`
  return [
    row('resident memory after 1,000 sessions created and deleted, memory-pressure gc (vs before)', 'bytes', pressed.after.rss, pressed.before.rss, 'lower', 1.1),
    row('heap after 1,000 sessions created and deleted, memory-pressure gc (vs before)', 'bytes', pressed.after.heap, pressed.before.heap, 'lower', 1.1),
    ordinary,
    row('heap after 1,000 sessions created and deleted, idle 30 s, ordinary gc (vs before, idle too)', 'bytes', idle.after.heap, idle.before.heap, 'lower', 1.1),
    row('resident memory at the peak of 1,000 sessions, idle 30 s before, ordinary gc (vs before)', 'bytes', idle.peak.rss, idle.before.rss, 'lower', Number.POSITIVE_INFINITY),
    immediate,
  ]
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const pressure = process.argv.includes('--pressure')
  const idle = process.argv.find((a) => a.startsWith('--idle-ms='))
  console.log(JSON.stringify(await measureMemoryReturned(1000, pressure, idle ? Number(idle.slice(10)) : 0)))
}
