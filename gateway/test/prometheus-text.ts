/**
 * A small reader of the Prometheus text exposition format (0.0.4), enough for tests to check
 * values: `name{label="value",...} number` lines, `# HELP`/`# TYPE` lines kept per family.
 */
export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

export interface Exposition {
  samples: Sample[]
  types: Map<string, string>
  /** The sum of every sample of `name` whose labels include `labels`. */
  sum(name: string, labels?: Record<string, string>): number
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

export function parseExposition(text: string): Exposition {
  const samples: Sample[] = []
  const types = new Map<string, string>()
  for (const line of text.split('\n')) {
    if (!line) continue
    if (line.startsWith('# TYPE ')) {
      const [, , name, type] = line.split(' ')
      types.set(name, type)
      continue
    }
    if (line.startsWith('#')) continue
    const match = LINE.exec(line)
    if (!match) throw new Error(`not an exposition line: ${line}`)
    const labels: Record<string, string> = {}
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[key] = value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c))
    const value = match[3] === '+Inf' ? Infinity : match[3] === '-Inf' ? -Infinity : Number(match[3])
    // prom-client writes NaN as `Nan`; Prometheus parses the word case-insensitively.
    if (Number.isNaN(value) && match[3].toLowerCase() !== 'nan') throw new Error(`not a sample value: ${line}`)
    samples.push({ name: match[1], labels, value })
  }
  return {
    samples,
    types,
    sum(name, wanted = {}) {
      return samples
        .filter((s) => s.name === name && Object.entries(wanted).every(([k, v]) => s.labels[k] === v))
        .reduce((total, s) => total + s.value, 0)
    },
  }
}
