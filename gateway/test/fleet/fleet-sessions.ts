/**
 * The soak's interactive sessions: each created and attached through the round-robin proxy (so
 * its requests land on any process and reach its owner by forwarding), one short turn after
 * another until the run ends, while processes are killed, stalled and replaced. A turn is a user
 * message the fake engine echoes (`echo: <marker>`); a turn is *completed* once its `turn_result`
 * arrived. A socket that drops (its owner or the forwarder died) is reattached with `afterSeq`,
 * the last seq this client saw; the turn in flight is abandoned (the next one follows).
 *
 * Everything a session's client saw is kept for the verdict (fleet-session-checks.ts): every
 * event by connection, each drop's close code and reason, each reattach's answer.
 */
import WebSocket from 'ws'

export interface SeenEvent { seq: number; type: string; text: string }

/** One WebSocket connection of a session: what it replayed and streamed, and how it ended. */
export interface Connection {
  afterSeq: number
  events: SeenEvent[]
  /** The close code and reason, or the error, when it ended before the run did. */
  ended?: { code: number; reason: string }
  /** A `session_error` event: the gateway said why the session cannot go on. */
  told?: string
}

export interface DrivenSession {
  id: string
  profile: string
  /** Markers of the turns whose turn_result this client saw. */
  completed: string[]
  connections: Connection[]
  /** Reattaches refused over HTTP (status and body): a session the fleet cannot resume must say so. */
  refusals: Array<{ status: number; body: string }>
  /** Things that are violations in themselves (a reattach that hung, a 5xx other than the fleet's retryable ones). */
  problems: string[]
}

export interface SessionDriverOptions {
  /** The proxy's base URL (with basePath). */
  baseUrl: string
  token: string
  /** Session profiles, used in turn (one session each per round). */
  profiles: string[]
  sessions: number
  /** A directory inside allowedCwdRoots, the same path on every process (the CLI engines' cwd). */
  cwd: string
  /** How long one wait (an attach, a turn) may take; a stalled process holds a request up to twice the lease. */
  waitMs?: number
}

/** 503s the fleet answers while a session changes hands: retried, as a client would. */
const RETRYABLE = /session_owner_unreachable|session_owner_changed|shutting_down|database_unavailable/

export class SessionDrivers {
  readonly sessions: DrivenSession[] = []
  readonly #options: Required<SessionDriverOptions>
  #stopping = false
  #loops: Promise<void>[] = []

  constructor(options: SessionDriverOptions) {
    this.#options = { waitMs: 30_000, ...options }
  }

  /** Creates every session (through the proxy) and starts their turn loops. */
  async start(): Promise<void> {
    const { profiles, sessions } = this.#options
    for (let i = 0; i < sessions; i++) {
      const profile = profiles[i % profiles.length]
      const id = await this.#create(profile)
      const s: DrivenSession = { id, profile, completed: [], connections: [], refusals: [], problems: [] }
      this.sessions.push(s)
      this.#loops.push(this.#drive(s, i))
    }
  }

  /** Ends every loop after its current turn. */
  async stop(): Promise<void> {
    this.#stopping = true
    await Promise.all(this.#loops)
  }

  get turns(): number {
    return this.sessions.reduce((n, s) => n + s.completed.length, 0)
  }

  async #create(profile: string): Promise<string> {
    const { baseUrl, token, cwd } = this.#options
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(`${baseUrl}/sessions`, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ profile, ...(profile === 'default' ? {} : { cwd }) }),
      }).catch((err: Error) => ({ ok: false, status: 0, text: async () => err.message }) as const)
      const text = await res.text()
      if (res.ok) return (JSON.parse(text) as { session: { id: string } }).session.id
      if (attempt >= 20) throw new Error(`create ${profile}: ${res.status} ${text}`)
      await pause(250)
    }
  }

  async #drive(s: DrivenSession, index: number): Promise<void> {
    let n = 0
    let lastSeq = 0
    // A socket that dropped is reattached and completes one turn even when the run is ending: a
    // session whose owner was killed is then adopted (or says why not) before the verdict, however
    // late in the run the kill came. Bounded, for a socket that keeps dropping.
    let dropped = false
    for (let settling = 0; (!this.#stopping || dropped) && settling < 3; settling += this.#stopping ? 1 : 0) {
      const conn = await this.#attach(s, lastSeq, dropped)
      if (!conn) break
      // Turns on this connection until it drops or the run ends.
      let owed = dropped
      while ((!this.#stopping || owed) && !conn.connection.ended && !conn.connection.told) {
        owed = false
        const marker = `m${index}x${n++}`
        const outcome = await conn.turn(marker)
        if (outcome === 'completed') s.completed.push(marker)
        await pause(100)
      }
      lastSeq = Math.max(lastSeq, ...conn.connection.events.map((e) => e.seq))
      dropped = conn.connection.ended !== undefined && !conn.connection.told
      conn.close()
      if (conn.connection.told) break
    }
  }

  /** Attaches with `afterSeq` (retrying the fleet's 503s); undefined when the session cannot be attached, and said why. */
  async #attach(s: DrivenSession, afterSeq: number, settle = false): Promise<LiveConnection | undefined> {
    for (let attempt = 0; attempt < 40 && (settle || !this.#stopping); attempt++) {
      const result = await openSocket(this.#options, s.id, afterSeq)
      if ('socket' in result) {
        s.connections.push(result.connection)
        return result
      }
      if (result.status === -1) s.problems.push(`reattach of ${s.id} (${s.profile}) after seq ${afterSeq}: ${result.body}`)
      if (result.status <= 0 || (result.status === 503 && RETRYABLE.test(result.body))) {
        await pause(250)
        continue
      }
      s.refusals.push(result)
      if (result.status >= 500) s.problems.push(`reattach of ${s.id} (${s.profile}) after seq ${afterSeq}: ${result.status} ${result.body.slice(0, 200)}`)
      return undefined
    }
    if (settle || !this.#stopping) s.problems.push(`reattach of ${s.id} (${s.profile}) after seq ${afterSeq}: no answer but retryable refusals for 40 tries`)
    return undefined
  }
}

interface LiveConnection {
  socket: WebSocket
  connection: Connection
  /** Sends a turn; 'completed' at its turn_result, 'dropped' when the socket ended first. */
  turn(marker: string): Promise<'completed' | 'dropped'>
  close(): void
}

/** Opens `/sessions/:id/ws?afterSeq=` and resolves once `attached` arrived, or with the refusal. */
function openSocket(o: Required<SessionDriverOptions>, id: string, afterSeq: number): Promise<LiveConnection | { status: number; body: string }> {
  return new Promise((resolve) => {
    const url = `${o.baseUrl.replace(/^http/, 'ws')}/sessions/${id}/ws${afterSeq ? `?afterSeq=${afterSeq}` : ''}`
    const socket = new WebSocket(url, { headers: { authorization: `Bearer ${o.token}` }, perMessageDeflate: false, handshakeTimeout: o.waitMs })
    const connection: Connection = { afterSeq, events: [] }
    const waiters = new Set<() => void>()
    const wake = () => { for (const w of waiters) w() }
    let settled = false
    // Upgraded but no `attached` in time: a hang, not an answer (the caller tries again, and says so).
    const unanswered = setTimeout(() => {
      if (settled) return
      settled = true
      socket.terminate()
      resolve({ status: -1, body: `upgraded but no attached frame within ${o.waitMs} ms` })
    }, o.waitMs)
    socket.on('unexpected-response', (_req, res) => {
      let body = ''
      res.on('data', (c: Buffer) => { body += c })
      res.on('end', () => { settled = true; clearTimeout(unanswered); resolve({ status: res.statusCode ?? 0, body }) })
    })
    socket.on('error', (err) => {
      if (!settled) { settled = true; clearTimeout(unanswered); resolve({ status: 0, body: err.message }) }
      connection.ended ??= { code: 1006, reason: err.message }
      wake()
    })
    socket.on('close', (code, reason) => {
      connection.ended ??= { code, reason: String(reason) }
      if (!settled) { settled = true; clearTimeout(unanswered); resolve({ status: 0, body: `closed ${code} before attached` }) }
      wake()
    })
    socket.on('message', (data) => {
      const text = String(data)
      const frame = JSON.parse(text) as { type: string; event?: { type: string; seq?: number; message?: string } }
      if (frame.type === 'attached' && !settled) {
        settled = true
        clearTimeout(unanswered)
        resolve(live)
      }
      const event = frame.type === 'event' ? frame.event : undefined
      if (event && typeof event.seq === 'number') connection.events.push({ seq: event.seq, type: event.type, text })
      if (event?.type === 'session_error') connection.told = `session_error: ${event.message ?? text.slice(0, 200)}`
      wake()
    })
    const live: LiveConnection = {
      socket, connection,
      close: () => socket.terminate(),
      turn: (marker) => new Promise((done) => {
        const from = connection.events.length
        const deadline = setTimeout(() => finish('dropped'), o.waitMs)
        // This turn's result: a turn_result after the echo of its marker (a replay may still be
        // arriving with earlier turns' results).
        const echo = `echo: ${marker}`
        const check = () => {
          const fresh = connection.events.slice(from)
          const at = fresh.findIndex((e) => e.type === 'assistant_message' && e.text.includes(echo))
          if (at >= 0 && fresh.slice(at + 1).some((e) => e.type === 'turn_result')) finish('completed')
          else if (connection.ended || connection.told) finish('dropped')
        }
        const finish = (outcome: 'completed' | 'dropped') => {
          clearTimeout(deadline)
          waiters.delete(check)
          // A turn that never ended on a live socket: give up the socket, reattach.
          if (outcome === 'dropped' && !connection.ended) {
            connection.ended = { code: 0, reason: `no turn_result within ${o.waitMs} ms` }
          }
          done(outcome)
        }
        waiters.add(check)
        socket.send(JSON.stringify({ type: 'user_message', text: marker }), (err) => { if (err) finish('dropped') })
      }),
    }
  })
}

function pause(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}
