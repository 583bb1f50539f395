/** The kit's WebSocket client (`ws`): keeps every frame so cases wait on frames, never on sleeps. */
import WebSocket from 'ws'
import type { Principal } from '../types.ts'
import type { WireLog } from './wire-log.ts'

export class WsRefused extends Error {
  readonly status: number
  readonly body: string
  constructor(status: number, body: string) {
    super(`upgrade refused with ${status}`)
    this.status = status
    this.body = body
  }
}

export class WsClient {
  readonly frames: any[] = []
  #waiters = new Set<() => void>()
  #closed = false
  readonly ws: WebSocket
  readonly #log: WireLog
  readonly #who: Principal | undefined

  constructor(ws: WebSocket, log: WireLog, who?: Principal) {
    this.ws = ws
    this.#log = log
    this.#who = who
    ws.on('message', (data) => {
      const text = data.toString()
      log.add('ws-in', summarise(text), text, who)
      try {
        this.frames.push(JSON.parse(text))
      } catch {
        this.frames.push({ type: '__not_json__', text })
      }
      for (const wake of this.#waiters) wake()
    })
    ws.on('close', (code) => {
      this.#closed = true
      log.add('ws-close', `closed ${code}`, undefined, who)
      for (const wake of this.#waiters) wake()
    })
  }

  get open(): boolean {
    return !this.#closed && this.ws.readyState === WebSocket.OPEN
  }

  send(frame: unknown): void {
    const text = typeof frame === 'string' ? frame : JSON.stringify(frame)
    this.#log.add('ws-out', summarise(text), text, this.#who)
    this.ws.send(text)
  }

  events(): any[] {
    return this.frames.filter((f) => f.type === 'event').map((f) => f.event)
  }

  /** Waits for a frame matching `predicate` (searching frames already received too). */
  async waitFor(predicate: (frame: any) => boolean, deadlineMs: number, what = 'a matching frame'): Promise<any> {
    const deadline = Date.now() + deadlineMs
    for (;;) {
      const hit = this.frames.find(predicate)
      if (hit) return hit
      const left = deadline - Date.now()
      if (left <= 0 || this.#closed) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}; frames: ${this.frames.map(kindOf).join(', ') || 'none'}`)
      await new Promise<void>((resolve) => {
        const wake = () => { clearTimeout(timer); this.#waiters.delete(wake); resolve() }
        const timer = setTimeout(wake, left)
        this.#waiters.add(wake)
      })
    }
  }

  /** Calls `wake` at this client's next frame or close (once; the returned function cancels): for waits over several sockets (waitAcross). */
  wakeOnFrame(wake: () => void): () => void {
    const once = () => { this.#waiters.delete(once); wake() }
    this.#waiters.add(once)
    return () => this.#waiters.delete(once)
  }

  waitForEvent(type: string, deadlineMs: number, extra: (event: any) => boolean = () => true): Promise<any> {
    return this.waitFor((f) => f.type === 'event' && f.event?.type === type && extra(f.event), deadlineMs, `event ${type}`).then((f) => f.event)
  }

  close(): void {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close()
  }
}

export function openWs(log: WireLog, url: string, token: string | undefined, deadlineMs: number, who?: Principal): Promise<WsClient> {
  return new Promise((resolve, reject) => {
    log.add('ws-open', `GET ${url} (upgrade)`, undefined, who)
    const ws = new WebSocket(url, { headers: token ? { authorization: `Bearer ${token}` } : {}, handshakeTimeout: deadlineMs })
    const client = new WsClient(ws, log, who) // listening before 'open': the first frames may share its read
    ws.once('open', () => resolve(client))
    ws.once('unexpected-response', (_req, res) => {
      let body = ''
      res.on('data', (chunk: Buffer) => { body += chunk.toString() })
      res.on('end', () => {
        log.add('ws-refused', `${res.statusCode} upgrade refused`, body, who)
        reject(new WsRefused(res.statusCode ?? 0, body))
      })
      res.on('error', () => reject(new WsRefused(res.statusCode ?? 0, body)))
    })
    ws.once('error', (err) => reject(err))
  })
}

/**
 * Waits until `condition` holds over several sockets, checked again whenever any of them gets a
 * frame: a condition on two sessions' turns must wake on the socket where the deciding frame
 * arrives, not sleep to the deadline waiting on the other (seen: peers-limits idle 14 s of a 15 s
 * deadline when the relay chain's last turn landed on the second session). Like
 * waitFor, a closed socket ends the wait.
 */
export async function waitAcross(clients: WsClient[], condition: () => boolean, deadlineMs: number, what: string): Promise<void> {
  const deadline = Date.now() + deadlineMs
  for (;;) {
    if (condition()) return
    const left = deadline - Date.now()
    if (left <= 0 || clients.some((c) => !c.open)) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}; frames: ${clients.map((c) => c.frames.map(kindOf).join(', ') || 'none').join(' | ')}`)
    await new Promise<void>((resolve) => {
      const unwake: Array<() => void> = []
      const wake = () => { clearTimeout(timer); for (const cancel of unwake) cancel(); resolve() }
      const timer = setTimeout(wake, left)
      for (const c of clients) unwake.push(c.wakeOnFrame(wake))
    })
  }
}

function kindOf(frame: any): string {
  return frame.type === 'event' ? `event:${frame.event?.type}` : String(frame.type)
}

function summarise(text: string): string {
  try {
    const frame = JSON.parse(text)
    return frame && typeof frame === 'object' ? kindOf(frame) : 'non-object'
  } catch {
    return 'non-JSON'
  }
}
