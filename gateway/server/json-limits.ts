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

const OPEN_BRACE = 0x7b, OPEN_BRACKET = 0x5b, CLOSE_BRACE = 0x7d, CLOSE_BRACKET = 0x5d
const QUOTE = 0x22, BACKSLASH = 0x5c, COMMA = 0x2c

/**
 * One linear pass over the text, no recursion: the reason the text is too complex, or undefined.
 * Runs on text that may not be valid JSON; `JSON.parse` judges validity after it, so a scan of
 * garbage only has to stay linear and never throw.
 */
export function jsonComplexity(text: string): string | undefined {
  // entries[d] counts the commas seen at depth d; an empty container's count is harmless.
  const entries: number[] = []
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
      continue
    }
    if (c === QUOTE) inString = true
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > MAX_JSON_DEPTH) return `JSON nests deeper than ${MAX_JSON_DEPTH} levels`
      entries[depth] = 1
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth > 0) depth--
    } else if (c === COMMA && depth > 0) {
      if (++entries[depth] > MAX_JSON_ENTRIES) return `a JSON object or array has more than ${MAX_JSON_ENTRIES} entries`
    }
  }
  return undefined
}

export type ParsedJson = { ok: true; value: unknown } | { ok: false; refusal: Refusal }

/** The one parser of client JSON: complexity first (400 `json_too_complex`), then syntax (400 `invalid_json`). */
export function parseClientJson(text: string): ParsedJson {
  const tooComplex = jsonComplexity(text)
  if (tooComplex) return { ok: false, refusal: refuse('json_too_complex', tooComplex) }
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch (err) {
    return { ok: false, refusal: refuse('invalid_json', `malformed JSON body: ${(err as Error).message}`) }
  }
}
