/** Small statistics and the report row shape of bench/latest.json. */

export interface BenchRow {
  name: string
  unit: string
  value: number
  baseline: number | null
  /** value / baseline; null when there is no baseline. */
  ratio: number | null
  better: 'higher' | 'lower'
  /** Applies to `ratio`, or to `value` when there is no baseline. */
  target: number
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

export function row(name: string, unit: string, value: number, baseline: number | null, better: 'higher' | 'lower', target: number): BenchRow {
  return { name, unit, value: round(value), baseline: baseline === null ? null : round(baseline), ratio: baseline ? round(value / baseline, 3) : null, better, target }
}

export function meetsTarget(r: BenchRow): boolean {
  const measured = r.ratio ?? r.value
  return r.better === 'higher' ? measured >= r.target : measured <= r.target
}

function round(n: number, digits = 2): number {
  const f = 10 ** digits
  return Math.round(n * f) / f
}
