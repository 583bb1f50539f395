/**
 * Nesting depth and container breadth are resources like size. A 10 KB body nested
 * 5,000 deep parses fine but overflows the stack of every recursive consumer after it (zod,
 * JSON.stringify of a stored `meta`, structured clone), so it is refused where client JSON is
 * parsed, before any handler sees it: `readJsonBody` for REST, `parseCommand` for WS frames.
 */
import { refuse, type Refusal } from './refusal.ts'

/** Nesting levels of objects and arrays, counting the outermost one. */
export const MAX_JSON_DEPTH = 64
/** Members of one object or elements of one array. */
export const MAX_JSON_ENTRIES = 10_000

/**
 * The reason a parsed value is too complex, or undefined. The check walks the parsed value, not
 * the text: V8's JSON.parse does not recurse (a value nested a million deep parses), so only the
 * consumers after it need the limit, and a walk costs one step per container and member where a
 * scan of the text cost one per character (a 90 KB prompt: ~300 µs scanned, more than the parse
 * itself, against a few µs walked). Iterative, so the walk itself never overflows the stack.
 */
function jsonComplexity(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined
  const nodes: object[] = [value]
  const depths: number[] = [1]
  while (nodes.length) {
    const node = nodes.pop()!
    const depth = depths.pop()!
    if (depth > MAX_JSON_DEPTH) return `JSON nests deeper than ${MAX_JSON_DEPTH} levels`
    const members: unknown[] = Array.isArray(node) ? node : Object.values(node)
    if (members.length > MAX_JSON_ENTRIES) return `a JSON object or array has more than ${MAX_JSON_ENTRIES} entries`
    for (const member of members) {
      if (member === null || typeof member !== 'object') continue
      nodes.push(member)
      depths.push(depth + 1)
    }
  }
  return undefined
}

export type ParsedJson = { ok: true; value: unknown } | { ok: false; refusal: Refusal }

/** The one parser of client JSON: syntax (400 `invalid_json`), then depth and breadth (400 `json_too_complex`). */
export function parseClientJson(text: string): ParsedJson {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    return { ok: false, refusal: refuse('invalid_json', `malformed JSON body: ${(err as Error).message}`) }
  }
  const tooComplex = jsonComplexity(value)
  return tooComplex ? { ok: false, refusal: refuse('json_too_complex', tooComplex) } : { ok: true, value }
}
