/**
 * A seeded sample of mutants stratified by file: every file with a mutant gets at least `floor`
 * of them, the rest of the sample is shared in proportion to each file's count (largest
 * remainder), and within a file the pick is a seeded shuffle. The same seed and the same mutant
 * set always give the same sample.
 */
import { randomInt } from 'node:crypto'
import { seededRandom } from '../../conformance/harness/random.ts'

/**
 * The run's seed: the one given (to replay a sample), else a fresh random one, so each run
 * scores a sample nobody chose or reviewed beforehand. The seed is printed and reported.
 */
export function chooseSeed(given: string | undefined, draw: () => number = () => randomInt(1, 2 ** 31 - 1)): { seed: number; fresh: boolean } {
  if (given === undefined) return { seed: draw(), fresh: true }
  const seed = Number(given)
  if (!Number.isSafeInteger(seed)) throw new Error(`--seed: an integer, not ${JSON.stringify(given)}`)
  return { seed, fresh: false }
}

export interface Sampleable { key: string; file: string }

export function shuffle<T>(items: T[], random: () => number): T[] {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j], out[i]]
  }
  return out
}

/** How many mutants each file gets: at least min(floor, its count), the rest in proportion. */
export function allocate(counts: Map<string, number>, size: number, floor = 1): Map<string, number> {
  const files = [...counts.keys()].sort()
  const total = files.reduce((s, f) => s + counts.get(f)!, 0)
  const out = new Map(files.map((f) => [f, Math.min(floor, counts.get(f)!)]))
  let left = Math.min(size, total) - [...out.values()].reduce((s, n) => s + n, 0)
  if (left <= 0) return out
  const spare = files.map((f) => ({ f, room: counts.get(f)! - out.get(f)! }))
  const roomTotal = spare.reduce((s, x) => s + x.room, 0)
  const shares = spare.map((x) => ({ ...x, exact: (left * x.room) / roomTotal }))
  for (const s of shares) out.set(s.f, out.get(s.f)! + Math.floor(s.exact))
  left -= shares.reduce((s, x) => s + Math.floor(x.exact), 0)
  // Largest remainder, ties by file name, so the allocation is deterministic.
  const order = shares.filter((s) => out.get(s.f)! < counts.get(s.f)!).sort((a, b) => (b.exact % 1) - (a.exact % 1) || a.f.localeCompare(b.f))
  for (const s of order) {
    if (left <= 0) break
    out.set(s.f, out.get(s.f)! + 1)
    left--
  }
  return out
}

/**
 * A stratified seeded sample of `size` mutants (or all, when fewer), in file then key order. With
 * the floor a sample may exceed `size` by a little: every file is represented.
 */
export function sample<T extends Sampleable>(mutants: T[], size: number, seed: number, floor = 1): T[] {
  const byFile = new Map<string, T[]>()
  for (const m of mutants) byFile.set(m.file, [...(byFile.get(m.file) ?? []), m])
  const counts = new Map([...byFile].map(([f, ms]) => [f, ms.length]))
  // A sample smaller than the number of files cannot hold the floor: it is then purely proportional.
  const quota = allocate(counts, size, size >= counts.size * floor ? floor : 0)
  const out: T[] = []
  for (const file of [...byFile.keys()].sort()) {
    // One generator per file, seeded from the run seed and the file, so one file's change leaves the others' picks alone.
    let h = seed >>> 0
    for (let i = 0; i < file.length; i++) h = Math.imul(h ^ file.charCodeAt(i), 16777619) >>> 0
    const sorted = [...byFile.get(file)!].sort((a, b) => a.key.localeCompare(b.key))
    out.push(...shuffle(sorted, seededRandom(h)).slice(0, quota.get(file)))
  }
  return out
}
