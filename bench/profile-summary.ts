/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): self time by function and by where the
 * code lives (the AI SDK, ws, the gateway, Node's internals, GC), idle excluded. Used for the
 * profiles in bench/README.md.
 *
 * `npx tsx bench/profile-summary.ts <file.cpuprofile> [--skip-ms N] [--top N]`
 */
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number }

const { values, positionals } = parseArgs({ allowPositionals: true, options: { 'skip-ms': { type: 'string' }, top: { type: 'string' }, callers: { type: 'string' } } })
const profile = JSON.parse(readFileSync(positionals[0], 'utf8')) as Profile
const skipUs = Number(values['skip-ms'] ?? 0) * 1000
const top = Number(values.top ?? 30)
const byId = new Map(profile.nodes.map((n) => [n.id, n]))

function area(url: string, name: string): string {
  if (name === '(garbage collector)') return 'GC'
  if (name === '(program)') return 'program (native, unattributed)'
  if (!url) return 'native / builtins'
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (pkg) return pkg[1]
  if (url.startsWith('node:')) return 'node internals'
  if (url.includes('/gateway/')) return 'gateway'
  return url
}

const selfByFn = new Map<string, number>()
const selfByArea = new Map<string, number>()
let t = 0
let total = 0
for (let i = 0; i < profile.samples.length; i++) {
  t += profile.timeDeltas[i]
  if (t < skipUs) continue
  const node = byId.get(profile.samples[i])!
  const { functionName, url, lineNumber } = node.callFrame
  if (functionName === '(idle)') continue
  const dt = profile.timeDeltas[i + 1] ?? 0
  total += dt
  const key = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^.*\/(gateway|bench)\//, '$1/')}:${lineNumber + 1}`
  selfByFn.set(key, (selfByFn.get(key) ?? 0) + dt)
  const a = area(url, functionName)
  selfByArea.set(a, (selfByArea.get(a) ?? 0) + dt)
}
const pct = (us: number) => `${((100 * us) / total).toFixed(1)} %`.padStart(7)
console.log(`busy (non-idle) sampled time: ${(total / 1000).toFixed(0)} ms`)
console.log('\nby area:')
for (const [k, v] of [...selfByArea].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`${pct(v)}  ${k}`)
console.log(`\ntop ${top} functions by self time:`)
for (const [k, v] of [...selfByFn].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(v)}  ${k}`)

// `--callers <name>`: the call paths (3 frames up) that lead to a function's self time.
const wanted = process.argv[process.argv.indexOf('--callers') + 1]
if (process.argv.includes('--callers')) {
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const paths = new Map<string, number>()
  let at = 0
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i]
    if (at < skipUs) continue
    let id: number | undefined = profile.samples[i]
    if (byId.get(id)!.callFrame.functionName !== wanted) continue
    const chain: string[] = []
    for (let d = 0; d < 4 && id !== undefined; d++, id = parent.get(id)) {
      const f = byId.get(id)!.callFrame
      chain.push(`${f.functionName || '(anon)'}@${f.url.replace(/^.*\//, '')}:${f.lineNumber + 1}`)
    }
    const key = chain.join(' < ')
    paths.set(key, (paths.get(key) ?? 0) + (profile.timeDeltas[i + 1] ?? 0))
  }
  console.log(`\ncallers of ${wanted}:`)
  for (const [k, v] of [...paths].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`${pct(v)}  ${k}`)
}
