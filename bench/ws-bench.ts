/**
 * (a) replay on attach of a session holding 50,000 events, and (b) live fan-out of 50,000
 * stream_delta events to 1 and 10 clients. Each is measured against a raw `ws` server doing the
 * same wire work at its limit (ws-client.ts), so the ratio is the gateway's own overhead. The
 * gateway (rig.ts), the baseline (baselines.ts) and the clients (this process) each run in a
 * process of their own.
 */
import type WebSocket from 'ws'
import type { BenchGateway } from './rig.ts'
import { pairedRow, type BenchRow } from './stats.ts'
import { startBaseline } from './baselines.ts'
import { connect, receive } from './ws-client.ts'

type Gateway = BenchGateway
const EVENTS = 50_000
/** Interleaved rounds per row (after one warm-up of each side): enough for a stable median ratio. */
const ROUNDS = 15

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

/** Runs `ours` and `raw` alternately (which goes first alternates too); returns both sides' samples. */
async function interleave(rounds: number, ours: () => Promise<number>, raw: () => Promise<number>): Promise<{ ours: number[]; raw: number[] }> {
  const out = { ours: [] as number[], raw: [] as number[] }
  await ours()
  await raw()
  for (let i = 0; i < rounds; i++) {
    if (i % 2) {
      out.raw.push(await raw())
      out.ours.push(await ours())
    } else {
      out.ours.push(await ours())
      out.raw.push(await raw())
    }
  }
  return out
}

const rate = (count: number) => (ms: number) => count / (ms / 1000)

export async function benchReplay(gw: Gateway): Promise<BenchRow> {
  const { id, frames } = await fillSession(gw)
  const captured: string[] = []
  await timeReplay(`${gw.wsUrl}/sessions/${id}/ws`, frames, captured) // the frames the baseline sends
  const baseline = await startBaseline({ replay: captured })
  const t = await interleave(ROUNDS, () => timeReplay(`${gw.wsUrl}/sessions/${id}/ws`, frames), () => timeReplay(baseline.url, frames))
  await baseline.close()
  await gw.deleteSession(id)
  return pairedRow('replay 50k events on attach (1 client)', 'frames/s', t.ours.map(rate(frames)), t.raw.map(rate(frames)), 'higher', 0.9)
}

async function timeLive(clients: WebSocket[], trigger: WebSocket, message: string, frames: number, keep?: string[]): Promise<number> {
  const done = clients.map((ws, i) => receive(ws, frames, i === 0 ? keep : undefined))
  const started = performance.now()
  trigger.send(message)
  await Promise.all(done)
  return performance.now() - started
}

/** One live burst through the gateway, on a fresh session that is deleted afterwards (the log holds 50k events). */
async function gatewayLive(gw: Gateway, clientCount: number, frames: number, keep?: string[]): Promise<number> {
  const id = await gw.createSession()
  const opened = await Promise.all(Array.from({ length: clientCount }, () => connect(`${gw.wsUrl}/sessions/${id}/ws`, 3)))
  await Promise.all(opened.map((o) => o.initial)) // attached + init + idle
  const clients = opened.map((o) => o.ws)
  const elapsed = await timeLive(clients, clients[0], `{"type":"user_message","text":"burst:${EVENTS}"}`, frames, keep)
  for (const ws of clients) ws.close()
  await gw.deleteSession(id)
  return elapsed
}

export async function benchLive(gw: Gateway, clientCount: number): Promise<BenchRow> {
  const frameCount = 2 + EVENTS + 2 // user+running, deltas, result+idle
  const captured: string[] = []
  await gatewayLive(gw, clientCount, frameCount, captured)
  // The baseline sends the burst's fixed first and last 2 frames as captured (user_message,
  // running; result, idle) and produces the deltas in between, numbered from the same seq.
  const firstSeq = (JSON.parse(captured[2]) as { event: { seq: number } }).event.seq
  const baseline = await startBaseline({ live: { head: captured.slice(0, 2), firstSeq, count: EVENTS, tail: captured.slice(-2) } })
  const rawLive = async () => {
    const clients = (await Promise.all(Array.from({ length: clientCount }, () => connect(baseline.url)))).map((o) => o.ws)
    const elapsed = await timeLive(clients, clients[0], 'go', frameCount)
    for (const ws of clients) ws.close()
    return elapsed
  }
  const t = await interleave(ROUNDS, () => gatewayLive(gw, clientCount, frameCount), rawLive)
  await baseline.close()
  const name = `live 50k stream_delta to ${clientCount} client${clientCount > 1 ? 's' : ''}`
  return pairedRow(name, 'events/s', t.ours.map(rate(EVENTS)), t.raw.map(rate(EVENTS)), 'higher', 0.8)
}
