/** WebSocket clients that count frames, the same way for the gateway and for the raw baseline. */
import type { Duplex } from 'node:stream'
import WebSocket, { WebSocketServer } from 'ws'
import type { SessionEvent, SessionEventBody } from '../gateway/protocol/index.ts'
import { eventFrame } from '../gateway/sessions/event-log.ts'

/**
 * Opens a socket and starts counting at once: the server's first frames can arrive in the same
 * read as the handshake, before any listener added after 'open' would see them.
 */
export function connect(url: string, initialFrames = 0, keep?: string[]): Promise<{ ws: WebSocket; initial: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false })
    const initial = initialFrames > 0 ? receive(ws, initialFrames, keep) : Promise.resolve()
    ws.once('open', () => resolve({ ws, initial }))
    ws.once('error', reject)
  })
}

/** Resolves when `ws` has received `count` frames from now on; optionally keeps their text. */
export function receive(ws: WebSocket, count: number, keep?: string[]): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0
    const onMessage = (data: WebSocket.RawData) => {
      if (keep) keep.push(data.toString())
      if (++seen === count) {
        ws.off('message', onMessage)
        resolve()
      }
    }
    ws.on('message', onMessage)
  })
}

/**
 * A raw `ws` server: the limit for the same wire work, doing what the gateway does to be fast and
 * nothing of its own work. Every socket is corked for the tick and uncorked on the next, so a
 * burst leaves in one write per socket, exactly as the gateway does (session-socket.ts
 * `corkedBatch`). `frames` gives the frames to send, on connect (replay: the very strings the
 * gateway replayed, since a replay sends stored frames) or each time a client speaks (live).
 */
export async function startBaselineServer(frames: () => Iterable<string>, mode: 'on-connect' | 'on-message') {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false })
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()))
  const sockets = new Map<WebSocket, Duplex>()
  const send = (targets: WebSocket[]) => {
    const corked = targets.map((client) => sockets.get(client)!)
    for (const socket of corked) socket.cork()
    for (const frame of frames()) for (const client of targets) client.send(frame)
    process.nextTick(() => { for (const socket of corked) socket.uncork() })
  }
  wss.on('connection', (ws, req) => {
    sockets.set(ws, req.socket)
    ws.once('close', () => sockets.delete(ws))
    if (mode === 'on-connect') send([ws])
    else ws.on('message', () => send([...wss.clients]))
  })
  const { port } = wss.address() as { port: number }
  return { url: `ws://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => { for (const c of wss.clients) c.terminate(); wss.close(() => resolve()) }) }
}

/**
 * The live frames a raw server must produce for a burst: live frames carry a seq and a time that
 * exist only when the event does, so no server can send them prebuilt. Each delta is built as the
 * engine hands it over, numbered, stamped and serialised once (the same JSON.stringify, once per
 * event however many clients), between the burst's fixed first and last frames.
 */
export function* liveFrames(head: readonly string[], firstSeq: number, count: number, tail: readonly string[], delta: (i: number) => SessionEventBody): Generator<string> {
  yield* head
  let seq = firstSeq - 1
  for (let i = 0; i < count; i++) {
    const event = delta(i) as SessionEvent
    event.seq = ++seq
    event.ts = Date.now()
    yield eventFrame(event)
  }
  yield* tail
}
