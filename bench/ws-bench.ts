/**
 * (a) replay on attach of a session holding 50,000 events, and (b) live fan-out of 50,000
 * stream_delta events to 1 and 10 clients. Each is measured against a raw `ws` server sending the
 * very same frame strings, so the ratio is the gateway's own overhead on the same wire work.
 */
import type WebSocket from 'ws'
import type { startBenchGateway } from './rig.ts'
import { median, row, type BenchRow } from './stats.ts'
import { connect, receive, startBaselineServer } from './ws-client.ts'

type Gateway = Awaited<ReturnType<typeof startBenchGateway>>
const EVENTS = 50_000
const RUNS = 3

async function fillSession(gw: Gateway): Promise<{ id: string; frames: number }> {
  const id = await gw.createSession()
  const { ws, initial } = await connect(`${gw.wsUrl}/sessions/${id}/ws`, 3) // attached, init, idle
  await initial
  const live = receive(ws, 2 + EVENTS + 2) // user+running, deltas, result+idle
  ws.send(JSON.stringify({ type: 'user_message', text: `burst:${EVENTS}` }))
  await live
  ws.close()
  return { id, frames: 1 + 2 + 2 + EVENTS + 2 }
}

async function timeReplay(url: string, frames: number, keep?: string[]): Promise<number> {
  const started = performance.now()
  const { ws, initial } = await connect(url, frames, keep)
  await initial
  const elapsed = performance.now() - started
  ws.close()
  return elapsed
}

export async function benchReplay(gw: Gateway): Promise<BenchRow> {
  const { id, frames } = await fillSession(gw)
  const captured: string[] = []
  await timeReplay(`${gw.wsUrl}/sessions/${id}/ws`, frames, captured) // warm-up, and the frames the baseline sends
  const baseline = await startBaselineServer(captured, 'on-connect')
  await timeReplay(baseline.url, frames)
  const ours: number[] = []
  const raw: number[] = []
  for (let i = 0; i < RUNS; i++) {
    ours.push(await timeReplay(`${gw.wsUrl}/sessions/${id}/ws`, frames))
    raw.push(await timeReplay(baseline.url, frames))
  }
  await baseline.close()
  return row('replay 50k events on attach (1 client)', 'frames/s', frames / (median(ours) / 1000), frames / (median(raw) / 1000), 'higher', 0.9)
}

async function timeLive(clients: WebSocket[], trigger: WebSocket, message: string, frames: number): Promise<number> {
  const done = clients.map((ws) => receive(ws, frames))
  const started = performance.now()
  trigger.send(message)
  await Promise.all(done)
  return performance.now() - started
}

export async function benchLive(gw: Gateway, clientCount: number): Promise<BenchRow> {
  const liveFrames = 2 + EVENTS + 2 // user+running, deltas, result+idle
  const ours: number[] = []
  let captured: string[] = []
  for (let i = 0; i <= RUNS; i++) {
    const id = await gw.createSession()
    const opened = await Promise.all(Array.from({ length: clientCount }, () => connect(`${gw.wsUrl}/sessions/${id}/ws`, 3)))
    await Promise.all(opened.map((o) => o.initial)) // attached + init + idle
    const clients = opened.map((o) => o.ws)
    if (i === 0) {
      captured = []
      const keep = receive(clients[0], liveFrames, captured)
      await timeLive(clients, clients[0], `{"type":"user_message","text":"burst:${EVENTS}"}`, liveFrames)
      await keep
    } else {
      ours.push(await timeLive(clients, clients[0], `{"type":"user_message","text":"burst:${EVENTS}"}`, liveFrames))
    }
    for (const ws of clients) ws.close()
  }
  const baseline = await startBaselineServer(captured, 'on-message')
  const raw: number[] = []
  for (let i = 0; i <= RUNS; i++) {
    const clients = (await Promise.all(Array.from({ length: clientCount }, () => connect(baseline.url)))).map((o) => o.ws)
    const t = await timeLive(clients, clients[0], 'go', liveFrames)
    if (i > 0) raw.push(t)
    for (const ws of clients) ws.close()
  }
  await baseline.close()
  return row(`live 50k stream_delta to ${clientCount} client${clientCount > 1 ? 's' : ''}`, 'events/s', EVENTS / (median(ours) / 1000), EVENTS / (median(raw) / 1000), 'higher', clientCount > 1 ? 0.8 : 0.8)
}
