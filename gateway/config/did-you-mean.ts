/**
 * "Did you mean" for a misspelt configuration key: the known keys at the key's place, read from
 * the configuration's JSON Schema (the one generated from the zod schema, so it cannot drift),
 * and the closest of them by edit distance (the rule the kit's manifest check uses too).
 */
import { configJsonSchema } from './json-schema.ts'

export { closest } from '../protocol/closest-name.ts'

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
