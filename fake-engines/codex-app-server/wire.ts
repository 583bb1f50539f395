/**
 * The app-server's stdio framing (reference/codex-app-server-protocol.md §0, §3): one JSON object
 * per line, a JSON-RPC-like envelope without `jsonrpc`, `emittedAtMs` on every notification, and
 * server→client requests numbered from 0. Garbled lines are skipped, never fatal.
 */
import { createInterface } from 'node:readline'

export type Message = Record<string, unknown>

export function write(message: Message): void {
  process.stdout.write(`${JSON.stringify(message)}\n`)
}

export function notify(method: string, params: Record<string, unknown>): void {
  write({ method, params, emittedAtMs: Date.now() })
}

export function respond(id: unknown, result: unknown): void {
  write({ id, result })
}

export function respondError(id: unknown, code: number, message: string): void {
  write({ id, error: { code, message } })
}

let nextRequestId = 0
const waiting = new Map<number, (result: Message | undefined) => void>()

/** A server request; resolves with the client's `result` (undefined for an error answer). */
export function request(method: string, params: Record<string, unknown>): { id: number; answer: Promise<Message | undefined> } {
  const id = nextRequestId++
  const answer = new Promise<Message | undefined>((resolve) => waiting.set(id, resolve))
  write({ id, method, params })
  return { id, answer }
}

/** Drops a server request without an answer (interrupt settles it); a late answer is ignored. */
export function forget(id: number): void {
  waiting.get(id)?.(undefined)
  waiting.delete(id)
}

export function readMessages(onRequest: (m: Message) => void, onEnd: () => void): void {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity })
  lines.on('line', (line) => {
    if (!line.trim()) return
    let m: unknown
    try { m = JSON.parse(line) } catch { return }
    if (typeof m !== 'object' || m === null) return
    const msg = m as Message
    // A message without `method` answers one of our requests.
    if (typeof msg.method !== 'string') {
      const settle = waiting.get(msg.id as number)
      waiting.delete(msg.id as number)
      settle?.(msg.result as Message | undefined)
      return
    }
    onRequest(msg)
  })
  lines.on('close', onEnd)
}
