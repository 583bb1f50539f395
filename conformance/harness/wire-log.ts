/** Every request, response, frame and webhook delivery of one case, with timestamps. */
import type { Principal, WireEntry } from '../types.ts'

const MAX_BODY_CHARS = 2000

export class WireLog {
  readonly entries: WireEntry[] = []
  #started = Date.now()

  add(kind: WireEntry['kind'], summary: string, body?: string, who?: Principal): void {
    const entry: WireEntry = { at: Date.now() - this.#started, kind, summary }
    if (who) entry.who = who
    if (body !== undefined && body !== '') entry.body = body.length > MAX_BODY_CHARS ? `${body.slice(0, MAX_BODY_CHARS)}… (${body.length} chars)` : body
    this.entries.push(entry)
  }
}
