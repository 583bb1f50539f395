/**
 * (j) one client process of the capacity row (capacity-bench.ts forks several, so the clients'
 * own event loops do not sit in the gateway's process or in one another's). Over IPC: `{attach}`
 * attaches to the given sessions and answers `attached`; `{go}` starts every stream's turn at once
 * (or, with `staggerMs`, the streams' starts spread evenly over that time) and answers, when all
 * have ended, the gaps between each stream's consecutive deltas as a histogram of 1 ms buckets plus
 * each stream's largest gap and the delta it came before.
 */
import { attach, streamTurn } from './stream-client.ts'
import type WebSocket from 'ws'

export const GAP_BUCKETS = 5000

export interface ClientReport { histogram: number[]; maxGaps: number[]; maxGapAt: number[]; deltas: number }

let sockets: WebSocket[] = []
process.on('message', async (message: { attach?: { url: string; token: string; ids: string[] }; go?: { text: string; staggerMs?: number } }) => {
  if (message.attach) {
    const { url, token, ids } = message.attach
    sockets = []
    // A few at a time: a thousand handshakes at once would measure the accept queue, not streaming.
    for (let i = 0; i < ids.length; i += 50) sockets.push(...(await Promise.all(ids.slice(i, i + 50).map((id) => attach({ url, token }, id)))))
    process.send!('attached')
  } else if (message.go) {
    const { text, staggerMs = 0 } = message.go
    const timings = await Promise.all(sockets.map(async (ws, i) => {
      if (staggerMs) await new Promise((resolve) => setTimeout(resolve, (i * staggerMs) / sockets.length))
      return streamTurn(ws, text, true)
    }))
    const histogram = new Array<number>(GAP_BUCKETS + 1).fill(0)
    for (const t of timings) for (const gap of t.gaps) histogram[Math.min(GAP_BUCKETS, Math.floor(gap))]++
    const maxGaps = timings.map((t) => Math.max(0, ...t.gaps))
    // gaps[k] is the wait before delta k + 1.
    const maxGapAt = timings.map((t, i) => t.gaps.indexOf(maxGaps[i]) + 1)
    const report: ClientReport = { histogram, maxGaps, maxGapAt, deltas: timings.reduce((n, t) => n + t.deltas, 0) }
    for (const ws of sockets) ws.close()
    process.send!(report)
  }
})
