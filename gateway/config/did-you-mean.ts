/**
 * "Did you mean" for a misspelt configuration key: the known keys at the key's place, read from
 * the configuration's JSON Schema (the one generated from the zod schema, so it cannot drift),
 * and the closest of them by edit distance. The conformance kit has its own for manifests; the
 * gateway imports nothing from the kit, hence this small copy.
 */
import { configJsonSchema } from './json-schema.ts'

type Schema = { properties?: Record<string, Schema>; items?: Schema; additionalProperties?: Schema | boolean; anyOf?: Schema[]; oneOf?: Schema[]; allOf?: Schema[] }

let root: Schema | undefined

/** The keys an object at `path` (zod issue path) may have; several union branches add theirs together. */
export function knownKeysAt(path: ReadonlyArray<PropertyKey>): string[] {
  root ??= configJsonSchema() as Schema
  let nodes: Schema[] = [root]
  for (const key of path) {
    nodes = nodes.flatMap(branches).flatMap((node): Schema[] => {
      if (typeof key === 'number') return node.items ? [node.items] : []
      const named = node.properties?.[String(key)]
      if (named) return [named]
      return typeof node.additionalProperties === 'object' ? [node.additionalProperties] : []
    })
  }
  return [...new Set(nodes.flatMap(branches).flatMap((node) => Object.keys(node.properties ?? {})))]
}

function branches(node: Schema): Schema[] {
  const alternatives = [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])]
  return alternatives.length ? [node, ...alternatives.flatMap(branches)] : [node]
}

/** The closest known name within a small edit distance (or differing only in case). */
export function closest(word: string, options: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Infinity
  for (const option of options) {
    const d = option.toLowerCase() === word.toLowerCase() ? 0 : distance(word, option)
    if (d < bestDistance) [best, bestDistance] = [option, d]
  }
  return bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined
}

/** Levenshtein distance. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    prev = row
  }
  return prev[b.length]
}
