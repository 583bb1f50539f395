/**
 * Blame on the right clause: a target whose replay drops superseded events (every
 * `status_changed` but the latest, and the `stream_delta`s an `assistant_message` sums up) must
 * fail the replay clause, not the cases about sequence numbers, parking or sessions that happen to
 * read a transcript by replaying it. The target is our gateway behind a small proxy that compacts
 * the replay part of every session socket (events up to the `attached` snapshot's `lastSeq`) and
 * passes everything else through untouched, so every other behaviour stays conformant.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket, WebSocketServer } from 'ws'
import { ALL_CASES } from '../cases/index.ts'
import { runCases } from '../runner.ts'
import { startSelfTarget, type SelfTarget } from '../target/self.ts'
import type { CaseResult } from '../types.ts'

let target: SelfTarget
let proxy: Server
let results: CaseResult[]

/** Drops the events a later replayed event supersedes; keeps the order of the rest. */
function compact(frames: any[]): any[] {
  const lastStatus = frames.findLastIndex((f) => f.event?.type === 'status_changed')
  return frames.filter((f, i) => !(f.event?.type === 'status_changed' && i < lastStatus) && f.event?.type !== 'stream_delta')
}

function compactingProxy(upstream: URL): Server {
  const server = createServer((req, res) => {
    const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    out.on('error', () => { res.destroy() })
    req.pipe(out)
  })
  const wss = new WebSocketServer({ noServer: true })
  server.on('upgrade', (req: IncomingMessage, socket, head) => {
    const headers: Record<string, string> = {}
    for (const name of ['authorization', 'origin', 'sec-websocket-protocol']) if (typeof req.headers[name] === 'string') headers[name] = req.headers[name] as string
    const up = new WebSocket(`ws://${upstream.host}${req.url}`, { headers })
    up.on('unexpected-response', (_r, answer) => {
      socket.end(`HTTP/1.1 ${answer.statusCode} ${answer.statusMessage}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`)
    })
    up.on('error', () => socket.destroy())
    up.on('open', () => wss.handleUpgrade(req, socket, head, (client) => {
      let replayUntil = 0
      let held: any[] | undefined = []
      const flush = () => { for (const f of compact(held ?? [])) client.send(JSON.stringify(f)); held = undefined }
      up.on('message', (data) => {
        const frame = JSON.parse(data.toString())
        if (frame.type === 'attached') {
          replayUntil = frame.session?.lastSeq ?? 0
          client.send(JSON.stringify(frame))
          if (replayUntil <= (frame.replayingFrom ?? 0)) held = undefined
          return
        }
        if (held && frame.type === 'event' && frame.event.seq <= replayUntil) {
          held.push(frame)
          if (frame.event.seq === replayUntil) flush()
          return
        }
        if (held) flush()
        client.send(JSON.stringify(frame))
      })
      client.on('message', (data) => { if (up.readyState === WebSocket.OPEN) up.send(data.toString()) })
      client.on('close', () => up.close())
      up.on('close', (code, reason) => { if (client.readyState === WebSocket.OPEN) client.close(code === 1005 ? 1000 : code, reason) })
    }))
  })
  return server
}

beforeAll(async () => {
  target = await startSelfTarget()
  proxy = compactingProxy(new URL(target.manifest.baseUrl))
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  const { port } = proxy.address() as AddressInfo
  const base = new URL(target.manifest.baseUrl)
  const manifest = { ...target.manifest, baseUrl: `http://127.0.0.1:${port}${base.pathname}` }
  results = await runCases({ manifest, cases: ALL_CASES, concurrency: 4, timeoutMs: 5000, seed: 7, repeat: 1, receiver: target.receiver, restart: () => target.restart() })
}, 120_000)
afterAll(async () => {
  await new Promise<void>((resolve) => proxy ? proxy.close(() => resolve()) : resolve())
  proxy?.closeAllConnections()
  await target?.close()
})

describe('a replay that drops superseded events', () => {
  it('fails the replay case on the replay clause', () => {
    const replay = results.find((r) => r.id === 'ws-replay-after-seq')
    expect(replay?.outcome).toBe('fail')
    expect(replay?.failure?.clause).toBe('websocket-framing.1')
  })

  it('fails only cases that read a transcript by replay, each on the replay clause', () => {
    const failing = results.filter((r) => r.outcome === 'fail' || r.outcome === 'error')
    // The parking cases read their transcript by replaying it; they check the replay against a
    // live client first (cases/replay-check.ts), so the shortfall lands on websocket-framing.1
    // instead of session-status-values.3 / embedding-rules.9.
    expect(failing.map((r) => r.id).sort()).toEqual(['parking-park-and-deliver', 'parking-survives-restart', 'ws-replay-after-seq'])
    for (const r of failing) expect(`${r.id}: ${r.outcome} ${r.failure?.clause}`).toBe(`${r.id}: fail websocket-framing.1`)
    expect(results.find((r) => r.id === 'parking-park-and-deliver')?.message).toMatch(/missing \d+ status_changed/)
  })
})
