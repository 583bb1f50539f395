/**
 * The verdict on the soak's interactive sessions (fleet-sessions.ts), once the run is over and
 * every process left alive: each session's whole log read through the proxy (attach with
 * `afterSeq` 0, up to the `lastSeq` its `attached` snapshot names), then
 * - no completed turn lost: the echo of every turn whose `turn_result` the client saw is in the log;
 * - no seq reused: a seq the client saw on any connection names the same event type in the log
 *   and on every other connection (events.1);
 * - every reattach resumed with a contiguous replay: every event the log holds between the
 *   connection's `afterSeq` and the last seq it saw reached that connection (events.10), or the
 *   gateway said why it could not (a close code, a `session_error`, an HTTP refusal), never a hang;
 * - no session adopted twice: each (session, epoch) adoption the processes reported is unique,
 *   and no session was adopted twice from one process.
 */
import WebSocket from 'ws'
import type { DrivenSession, SeenEvent } from './fleet-sessions.ts'

export interface Adoption { sessionId: string; from: string; epoch: number; by: string }

export interface SessionFigures {
  sessions: number
  completedTurns: number
  reattaches: number
  adoptions: number
  /** Reattaches the gateway refused or ended with a reason (a close code other than 1006, a session_error). */
  told: number
}

/** The full log of `id` through `baseUrl`: every event up to the attach snapshot's lastSeq. */
export function readLog(baseUrl: string, token: string, id: string, waitMs = 30_000): Promise<SeenEvent[] | string> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/sessions/${id}/ws`, { headers: { authorization: `Bearer ${token}` }, perMessageDeflate: false })
    const events: SeenEvent[] = []
    let lastSeq: number | undefined
    const done = (result: SeenEvent[] | string) => { clearTimeout(timer); clearTimeout(quiet); socket.terminate(); resolve(result) }
    const timer = setTimeout(() => done(`no whole replay within ${waitMs} ms (${events.length} events, lastSeq ${lastSeq})`), waitMs)
    socket.on('unexpected-response', (_req, res) => {
      let body = ''
      res.on('data', (c: Buffer) => { body += c })
      res.on('end', () => done(`HTTP ${res.statusCode} ${body.slice(0, 200)}`))
    })
    socket.on('error', (err) => done(err.message))
    // The replay is whole at the snapshot's lastSeq, or once it went quiet: a seq reserved ahead
    // by a write-ahead record (persistLive) may be counted in lastSeq and never sent.
    let quiet: NodeJS.Timeout | undefined
    socket.on('message', (data) => {
      const text = String(data)
      const frame = JSON.parse(text) as { type: string; event?: { type: string; seq?: number }; session?: { lastSeq: number } }
      if (frame.type === 'attached') lastSeq = frame.session?.lastSeq ?? 0
      if (frame.type === 'event' && typeof frame.event?.seq === 'number') events.push({ seq: frame.event.seq, type: frame.event.type, text })
      if (lastSeq === undefined) return
      if (lastSeq === 0 || events.some((e) => e.seq >= lastSeq!)) return done(events)
      clearTimeout(quiet)
      quiet = setTimeout(() => done(events), 1500)
    })
  })
}

export async function checkSessions(baseUrl: string, token: string, sessions: DrivenSession[], adoptions: Adoption[], violations: string[]): Promise<SessionFigures> {
  let told = 0
  for (const s of sessions) {
    const name = `session ${s.id} (${s.profile})`
    violations.push(...s.problems)
    const log = await readLog(baseUrl, token, s.id)
    if (typeof log === 'string') {
      violations.push(`${name}: its log cannot be read at the end (${log}); ${s.completed.length} completed turns unaccounted for`)
      continue
    }
    const bySeq = new Map(log.map((e) => [e.seq, e]))
    const lost = s.completed.filter((marker) => !log.some((e) => e.type === 'assistant_message' && e.text.includes(`echo: ${marker}`)))
    if (lost.length) violations.push(`${name}: ${lost.length} completed turn(s) missing from its log: ${lost.slice(0, 5).join(', ')}`)
    const seen = new Map<number, string>()
    for (const [k, c] of s.connections.entries()) {
      for (const e of c.events) {
        const other = seen.get(e.seq) ?? bySeq.get(e.seq)?.type
        if (other !== undefined && other !== e.type) violations.push(`${name}: seq ${e.seq} reused (${other}, then ${e.type} on connection ${k})`)
        if (!seen.has(e.seq)) seen.set(e.seq, e.type)
      }
      const received = new Set(c.events.map((e) => e.seq))
      const last = Math.max(c.afterSeq, ...received)
      const holes = log.filter((e) => e.seq > c.afterSeq && e.seq <= last && !received.has(e.seq))
      if (holes.length) {
        const got = c.events.slice(0, 6).map((e) => `${e.seq} ${e.type}`).join(', ')
        violations.push(`${name}: connection ${k} (afterSeq ${c.afterSeq}) missed ${holes.slice(0, 6).map((e) => `${e.seq} ${e.type}`).join(', ')} that its log holds; it received first ${got}`)
      }
      if (c.ended?.code === 0) violations.push(`${name}: connection ${k} hung: ${c.ended.reason}`)
      if (k > 0 && ((c.ended && c.ended.code !== 1006) || c.told)) told++
    }
    told += s.refusals.length
  }
  const epochs = new Map<string, Adoption>()
  const fromOnce = new Map<string, Adoption>()
  for (const a of adoptions) {
    const key = `${a.sessionId}@${a.epoch}`
    const before = epochs.get(key)
    if (before) violations.push(`session ${a.sessionId} adopted twice at epoch ${a.epoch}: by ${before.by} and by ${a.by}`)
    epochs.set(key, a)
    const fromKey = `${a.sessionId}<${a.from}`
    const earlier = fromOnce.get(fromKey)
    if (earlier && earlier !== a) violations.push(`session ${a.sessionId} adopted twice from ${a.from}: by ${earlier.by} (epoch ${earlier.epoch}) and by ${a.by} (epoch ${a.epoch})`)
    fromOnce.set(fromKey, a)
  }
  return {
    sessions: sessions.length,
    completedTurns: sessions.reduce((n, s) => n + s.completed.length, 0),
    reattaches: sessions.reduce((n, s) => n + Math.max(0, s.connections.length - 1) + s.refusals.length, 0),
    adoptions: adoptions.length,
    told,
  }
}

/** The adoption lines of a process's stderr (the gateway's warning `fleet: adopted session <id> of process <from> (epoch <n>)`). */
export function adoptionsIn(by: string, text: string): Adoption[] {
  return [...text.matchAll(/fleet: adopted session (\S+) of process (\S+) \(epoch (\d+)\)/g)].map((m) => ({ sessionId: m[1], from: m[2], epoch: Number(m[3]), by }))
}
