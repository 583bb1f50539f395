/**
 * CPU-time profile of a process by area: reads `perf script` of a `perf record -e
 * cpu-clock -g -p <pid>` of a node started with `--perf-basic-prof`, and charges each sample to
 * the package of its innermost JavaScript frame, a kernel sample to the syscall that entered the
 * kernel, a GC sample to GC. Unlike `--cpu-prof` (wall-clock samples of the main thread), a
 * thread descheduled in a syscall is not charged, so syscalls weigh what they cost.
 *
 * `npx tsx bench/perf-areas.ts <perf.data>`
 */
import { execFileSync } from 'node:child_process'

const file = process.argv[2]
if (!file) throw new Error('usage: perf-areas.ts <perf.data>')
const script = execFileSync('perf', ['script', '-i', file, '-F', 'tid,ip,sym,dso'], { encoding: 'utf8', maxBuffer: 1 << 30 })

const PACKAGES: Record<string, string> = { zod: 'zod (chunk validation)' }
const GC = ['Scavenger', 'MarkCompact', 'Heap::', 'ConcurrentMarking', 'Sweeper', 'heap::']

function areaOfFrame(frame: string): string | undefined {
  const url = /(file:\/\/\S+|node:\S+)/.exec(frame)?.[1]
  if (!url) return undefined
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1]
  if (pkg) return PACKAGES[pkg] ?? pkg
  if (url.startsWith('node:internal/webstreams')) return 'node web streams'
  if (url.startsWith('node:internal/deps/undici')) return 'undici (fetch)'
  if (url.startsWith('node:')) return `node other JS`
  if (url.includes('/gateway/')) return 'gateway'
  return 'other JS'
}

function areaOf(frames: string[]): string {
  const leaf = frames[0] ?? ''
  if (leaf.includes('[kernel.kallsyms]')) {
    const user = frames.find((f) => !f.includes('kallsyms')) ?? ''
    if (/writev|\bwrite\b/.test(user)) return 'kernel: socket writes'
    if (user.includes('epoll')) return 'kernel: epoll / wake-ups'
    if (user.includes('read')) return 'kernel: socket reads'
    return 'kernel: other (scheduling, faults, futex)'
  }
  if (GC.some((k) => leaf.includes(k))) return 'GC'
  for (const frame of frames) {
    if (!frame.includes('JS:')) continue
    const area = areaOfFrame(frame)
    if (area) return area
  }
  return 'native, no JS frame (event loop, http parser, V8 runtime)'
}

const counts = new Map<string, number>()
let total = 0
for (const sample of script.split('\n\n')) {
  const lines = sample.split('\n').map((l) => l.trim()).filter(Boolean)
  if (lines.length < 2) continue
  total++
  const area = areaOf(lines.slice(1))
  counts.set(area, (counts.get(area) ?? 0) + 1)
}
for (const [area, n] of [...counts].sort((a, b) => b[1] - a[1])) console.log(`${((100 * n) / total).toFixed(1).padStart(5)} %  ${area}`)
console.log(`${total} samples`)
