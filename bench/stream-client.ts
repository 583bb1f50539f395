/**
 * The client side of the streaming rows: sessions created over HTTP with a bearer token,
 * attached over WebSocket with the same token, a turn started by a `user_message` whose inline
 * scenario makes the fake engine stream a given number of text deltas, unpaced or paced. Frames are
 * classified by substring, not parsed: with a thousand streams the client must stay cheaper than
 * the server it measures.
 */
import WebSocket from 'ws'
import type { OperatorGateway } from './operator-gateway.ts'

/** One stream's deltas and the gaps between them (ms, first delta to last). */
export interface StreamTiming {
  deltas: number
  gaps: number[]
  firstAt: number
  lastAt: number
}

/** `n` text deltas of 8 characters, sent as fast as the engine can (one text step). */
export function unpacedScenario(n: number): string {
  return `scenario:${JSON.stringify({ name: 'bench-unpaced', steps: [{ type: 'text', text: 'abcdefgh'.repeat(n), chunkSize: 8 }] })}`
}

/**
 * `n` text deltas, one every `ms` (a model at a human reading pace: 50 deltas/s at 20 ms). Each
 * delta is its own text step, so on the provider path every delta is its own SSE event and its
 * own read on the gateway's socket, as from a real model.
 */
export function pacedScenario(n: number, ms = 20): string {
  const steps: object[] = []
  for (let i = 0; i < n; i++) steps.push({ type: 'text', text: 'abcdefgh', chunkSize: 8 }, { type: 'sleep', ms })
  return `scenario:${JSON.stringify({ name: 'bench-paced', steps })}`
}

export async function createSession(gw: OperatorGateway, profile: string): Promise<string> {
  const res = await fetch(`${gw.url}/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${gw.token}` },
    body: JSON.stringify({ profile, includePartialMessages: true, ...(profile === 'primary' || profile === 'codex' ? { cwd: gw.cwd } : {}) }),
  })
  const body = (await res.json()) as { session?: { id: string }; error?: unknown }
  if (!res.ok || !body.session) throw new Error(`create ${profile}: ${res.status} ${JSON.stringify(body)}`)
  return body.session.id
}

export async function deleteSession(gw: OperatorGateway, id: string): Promise<void> {
  await fetch(`${gw.url}/sessions/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${gw.token}` } }).then((r) => r.arrayBuffer())
}

/** Attaches and waits until the session is idle (its boot events replayed). */
export function attach(gw: Pick<OperatorGateway, 'url' | 'token'>, id: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${gw.url.replace(/^http/, 'ws')}/sessions/${id}/ws`, { perMessageDeflate: false, headers: { authorization: `Bearer ${gw.token}` } })
    const onMessage = (data: Buffer) => {
      if (!data.includes('"status":"idle"')) return
      ws.off('message', onMessage)
      resolve(ws)
    }
    ws.on('message', onMessage)
    ws.once('error', reject)
  })
}

const DELTA = Buffer.from('"type":"content_block_delta"')
const RESULT = Buffer.from('"type":"turn_result"')

/** Sends `text` and resolves at the turn's result with the timing of its text deltas. */
export function streamTurn(ws: WebSocket, text: string, keepGaps = false): Promise<StreamTiming> {
  return new Promise((resolve, reject) => {
    const timing: StreamTiming = { deltas: 0, gaps: [], firstAt: 0, lastAt: 0 }
    const onMessage = (data: Buffer) => {
      if (data.includes(DELTA)) {
        const now = performance.now()
        if (timing.deltas++ === 0) timing.firstAt = now
        else if (keepGaps) timing.gaps.push(now - timing.lastAt)
        timing.lastAt = now
      } else if (data.includes(RESULT)) {
        ws.off('message', onMessage)
        if (!data.includes('"subtype":"success"')) return reject(new Error(`turn failed: ${data.toString().slice(0, 300)}`))
        resolve(timing)
      }
    }
    ws.on('message', onMessage)
    ws.send(JSON.stringify({ type: 'user_message', text }))
  })
}
