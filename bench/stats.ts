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
  /** How the samples spread, e.g. `ratio 0.81 / 0.85 / 0.9 (min / median / max of 7 rounds)`. */
  spread?: string
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

/** `min / median / max` of a set of figures, rounded, for the spread column. */
export function minMedMax(values: number[], digits = 3): string {
  return [Math.min(...values), median(values), Math.max(...values)].map((v) => round(v, digits)).join(' / ')
}

/**
 * A row from interleaved rounds: each round measured ours and the baseline back to back, so both
 * saw the same machine. The ratio is the median of the per-round ratios (noise that hits one round
 * hits both sides of it); value and baseline are the medians of each side.
 */
export function pairedRow(name: string, unit: string, ours: number[], base: number[], better: 'higher' | 'lower', target: number): BenchRow {
  const ratios = ours.map((v, i) => v / base[i])
  const r = row(name, unit, median(ours), median(base), better, target)
  r.ratio = round(median(ratios), 3)
  r.spread = `ratio ${minMedMax(ratios)} (min / median / max of ${ratios.length} interleaved rounds)`
  return r
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
