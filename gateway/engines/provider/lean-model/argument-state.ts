/**
 * Whether streamed tool-call arguments already hold one complete JSON object or array, tracked
 * structurally as the AI SDK's StreamingToolCallArgumentState does (provider-utils, Apache-2.0):
 * a delta opening a new value after a complete one starts a new call on servers that reuse an index.
 */
export function startsWithStructuredValue(value: string | null | undefined): boolean {
  if (typeof value !== 'string') return false
  const first = value.trimStart()[0]
  return first === '{' || first === '['
}

export class ArgumentState {
  // undetermined until the first non-blank character; 'other' when it is no object or array.
  #kind: 'undetermined' | 'other' | 'structured' = 'undetermined'
  #stack: string[] = []
  #inString = false
  #escaped = false
  #complete = false

  constructor(initial = '') {
    this.append(initial)
  }

  get complete(): boolean {
    return this.#kind === 'structured' && this.#complete
  }

  append(delta: string): void {
    for (const ch of delta) {
      if (this.#kind === 'undetermined') {
        if (/\s/.test(ch)) continue
        if (ch !== '{' && ch !== '[') {
          this.#kind = 'other'
          continue
        }
        this.#kind = 'structured'
        this.#stack = [ch]
        continue
      }
      if (this.#kind !== 'structured' || this.#complete) continue
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false
        else if (ch === '\\') this.#escaped = true
        else if (ch === '"') this.#inString = false
        continue
      }
      if (ch === '"') this.#inString = true
      else if (ch === '{' || ch === '[') this.#stack.push(ch)
      else if (ch === '}' || ch === ']') this.#close(ch)
    }
  }

  #close(ch: string): void {
    if (this.#stack.at(-1) !== (ch === '}' ? '{' : '[')) {
      this.#kind = 'other'
      return
    }
    this.#stack.pop()
    if (this.#stack.length === 0) this.#complete = true
  }
}
