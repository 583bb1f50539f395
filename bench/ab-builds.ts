/**
 * Two builds of the gateway side by side, for a change's before/after figure on a busy machine:
 * each build runs as operators run it (operator-gateway.ts, its own process), both read the same
 * fake model server, and rounds alternate between them (the side going first alternating), so a
 * busy moment hits both. Prints the CPU per delta of each and the per-round ratio B / A.
 *
 * `npx tsx bench/ab-builds.ts --a <bin.js> --b <bin.js> [--rounds 6] [--streams 50] [--paced 250] [paced|provider]`
 * (a build of another commit: `git worktree add /tmp/base <rev>`, `npm run build --prefix packages/gateway`
 * there, and its `packages/gateway/dist/gateway/bin.js`; the current sources' build is COMPILED_BIN).
 */
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { startModelProcess, startOperatorGateway } from './operator-gateway.ts'
import { measureOnce, type StreamShape } from './stream-cpu.ts'
import { minMedMax, median } from './stats.ts'

const { values, positionals } = parseArgs({ allowPositionals: true, options: {
  a: { type: 'string' }, b: { type: 'string' }, rounds: { type: 'string', default: '6' }, streams: { type: 'string', default: '50' },
  paced: { type: 'string', default: '250' }, deltas: { type: 'string', default: '20000' },
} })
if (!values.a || !values.b) throw new Error('--a <bin.js> and --b <bin.js> are required')
const path = (positionals[0] ?? 'paced') as 'paced' | 'provider'
const shape: StreamShape = { streams: Number(values.streams), paced: Number(values.paced), deltas: Number(values.deltas) }
const model = await startModelProcess()
const sides = { a: await startOperatorGateway({ modelBaseURL: model.baseURL, bin: values.a }), b: await startOperatorGateway({ modelBaseURL: model.baseURL, bin: values.b }) }
const figures = { a: [] as number[], b: [] as number[] }
try {
  const warm = { streams: Math.min(shape.streams, 10), paced: Math.min(shape.paced, 50), deltas: Math.min(shape.deltas, 2000) }
  for (const side of ['a', 'b'] as const) await measureOnce(sides[side], path, warm)
  for (let r = 0; r < Number(values.rounds); r++) {
    for (const side of r % 2 ? (['b', 'a'] as const) : (['a', 'b'] as const)) figures[side].push(await measureOnce(sides[side], path, shape))
    console.log(`round ${r + 1}: A ${figures.a[r].toFixed(1)} µs, B ${figures.b[r].toFixed(1)} µs per delta, B / A ${(figures.b[r] / figures.a[r]).toFixed(3)}; load ${loadavg()[0].toFixed(1)}`)
  }
} finally {
  await sides.a.close()
  await sides.b.close()
  await model.close()
}
const ratios = figures.b.map((b, i) => b / figures.a[i])
console.log(`A ${minMedMax(figures.a, 1)} µs, B ${minMedMax(figures.b, 1)} µs per delta (min / median / max); B / A median ${median(ratios).toFixed(3)} (${minMedMax(ratios, 3)})`)
