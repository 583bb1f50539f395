/**
 * The context a case runs with: the manifest, principals, HTTP and WS helpers bound to the wire
 * log, and the checks that turn a violated clause into `fail` and a reference departure into
 * `non-strict`. Cases never build transports themselves.
 */
import { randomBytes } from 'node:crypto'
import { Agent } from 'undici'
import { ClauseViolation, NonStrict, Unsupported, type Principal, type TargetManifest } from '../types.ts'
import { httpRequest, type HttpAnswer, type HttpOptions } from './http-client.ts'
import { seededRandom } from './random.ts'
import type { WebhookReceiver } from './webhook-receiver.ts'
import { WireLog } from './wire-log.ts'
import { openWs, type WsClient } from './ws-client.ts'

export interface RequestOptions extends HttpOptions {
  as?: Principal
}

/**
 * Drawn once per kit process, never from the seed: names of things a case leaves on the target
 * (host files, which no route deletes) differ between runs, so a second run with the same seed
 * against one long-lived gateway finds none of the first run's leftovers.
 */
const RUN_ID = randomBytes(4).toString('hex')

export class CaseContext {
  readonly log = new WireLog()
  readonly random: () => number
  readonly origin: string
  readonly manifest: TargetManifest
  /**
   * How long one wait may take: `--timeout-ms` plus the target's own turn time when the manifest
   * declares one (an engine may retry a failed model call with backoff), never a hidden cap.
   */
  readonly deadlineMs: number
  readonly receiver: WebhookReceiver | undefined
  readonly restartTarget: (() => Promise<void>) | undefined
  /** This case's own connections: nothing another case does to a connection reaches this one. */
  readonly #agent = new Agent({ connections: 8, keepAliveTimeout: 4000 })
  #cleanups: Array<() => unknown> = []
  /** Departures from protocol 7 where the spec is open, noted without stopping the case. */
  readonly nonStrictNotes: string[] = []
  /**
   * Where the spec leaves a choice explicitly open ("not shown", no status given) and the target
   * takes it otherwise than protocol 7: a fact for the report that never changes the outcome, so
   * a gateway taking every open choice the other way still passes (conformance/variants).
   */
  readonly observations: string[] = []

  constructor(manifest: TargetManifest, seed: number, deadlineMs: number, receiver?: WebhookReceiver, restartTarget?: () => Promise<void>) {
    this.manifest = manifest
    this.deadlineMs = deadlineMs
    this.receiver = receiver
    this.restartTarget = restartTarget
    this.random = seededRandom(seed)
    this.origin = new URL(manifest.baseUrl).origin
  }

  /** A name for something that outlives the case on the target: seeded, plus this run's id. */
  unique(prefix: string): string {
    return `${prefix}-${RUN_ID}-${Math.floor(this.random() * 1e9)}`
  }

  token(who: Principal): string | undefined {
    if (who === 'none') return undefined
    const token = this.manifest.tokens[who]
    if (!token) throw new Unsupported(`the manifest has no token for principal '${who}'`)
    return token
  }

  profile(role: string): string {
    const name = (this.manifest.profiles as Record<string, string | undefined>)[role]
    if (!name) throw new Unsupported(`the manifest names no '${role}' profile`)
    return name
  }

  url(path: string): string {
    return /^https?:/.test(path) ? path : `${this.manifest.baseUrl.replace(/\/$/, '')}${path}`
  }

  http(method: string, path: string, options: RequestOptions = {}): Promise<HttpAnswer> {
    const who = options.token !== undefined ? undefined : options.as ?? 'operator'
    return httpRequest(this.log, method, this.url(path), { ...options, who, token: options.token ?? this.token(options.as ?? 'operator'), dispatcher: this.#agent })
  }

  async ws(sessionId: string, options: { as?: Principal; afterSeq?: number | string } = {}): Promise<WsClient> {
    const query = options.afterSeq === undefined ? '' : `?afterSeq=${options.afterSeq}`
    const url = `${this.url(`/sessions/${encodeURIComponent(sessionId)}/ws`).replace(/^http/, 'ws')}${query}`
    const client = await openWs(this.log, url, this.token(options.as ?? 'operator'), this.deadlineMs, options.as ?? 'operator')
    this.#cleanups.push(() => client.close())
    return client
  }

  /**
   * Whether the session's capability record (SessionInfo.capabilities, engine-capability-record.1)
   * allows `key`; a case asks this before using a capability, and is `unsupported` when not.
   */
  requireCapability(session: any, key: string, absentMeans = false): void {
    const value = session?.capabilities?.[key]
    if ((value ?? absentMeans) !== true) throw new Unsupported(`the session's capability record does not grant ${key} (${JSON.stringify(value)})`)
  }

  /** Creates a session and checks the 201 {session} envelope (sessions.2). */
  async createSession(body: Record<string, unknown> = {}, as: Principal = 'operator'): Promise<any> {
    // The provider profile only by default: a target without one still runs cases that name their profile.
    const res = await this.http('POST', '/sessions', { as, body: 'profile' in body ? body : { profile: this.profile('provider'), ...body } })
    this.status('sessions.2', res, 201)
    this.check('sessions.2', typeof res.json?.session?.id === 'string', 'a {session} envelope with an id', res.text.slice(0, 200))
    const id = res.json.session.id
    this.#cleanups.push(() => this.http('DELETE', `/sessions/${encodeURIComponent(id)}`).catch(() => undefined))
    return res.json.session
  }

  /** A fresh session with one client attached, once it has reached `idle`. */
  async idleSession(body: Record<string, unknown> = {}, as: Principal = 'operator'): Promise<{ session: any; ws: WsClient }> {
    const session = await this.createSession(body, as)
    const ws = await this.ws(session.id, { as })
    await ws.waitForEvent('status_changed', this.deadlineMs, (e) => e.status === 'idle')
    return { session, ws }
  }

  check(clause: string, condition: boolean, expected: string, got: unknown): void {
    if (!condition) throw new ClauseViolation(clause, expected, typeof got === 'string' ? got : (JSON.stringify(got) ?? String(got)))
  }

  equal<T>(clause: string, actual: T, expected: T, what: string): void {
    this.check(clause, JSON.stringify(actual) === JSON.stringify(expected), `${what} = ${JSON.stringify(expected)}`, JSON.stringify(actual))
  }

  status(clause: string, res: HttpAnswer, expected: number): void {
    this.check(clause, res.status === expected, `HTTP ${expected}`, `HTTP ${res.status} ${res.text.slice(0, 200)}`)
  }

  /** An error answer: the status (errors.1); the body's shape is open (errors.16), protocol 7's {error: string} is only observed. */
  errorStatus(clause: string, res: HttpAnswer, expected: number): void {
    this.status(clause, res, expected)
    this.observe(typeof res.json?.error === 'string', `HTTP ${expected} without protocol 7's {error: string} body (errors.16: the shape is not shown): ${res.text.slice(0, 120)}`)
  }

  /**
   * A refusal whose status the spec does not fix, or fixes two ways at once (two rows apply and the
   * spec does not rank them): any of `allowed` (default: any 4xx) satisfies `clause`. Where the
   * protocol-7 reference states the status it answers, pass it as `protocol7`: another allowed one
   * is then an observation (an open choice), never a fail.
   */
  refusal(clause: string, res: HttpAnswer, options: { allowed?: number[]; protocol7?: number; why?: string } = {}): void {
    const { allowed, protocol7, why } = options
    const ok = allowed ? allowed.includes(res.status) : res.status >= 400 && res.status < 500
    this.check(clause, ok, `${allowed ? `HTTP ${allowed.join(' or ')}` : 'a 4xx refusal'}${why ? ` (${why})` : ''}`, `HTTP ${res.status} ${res.text.slice(0, 200)}`)
    if (protocol7 !== undefined) this.observe(res.status === protocol7, `refused with ${res.status} where protocol 7 answers ${protocol7} (the spec does not fix the status)`)
    this.observe(typeof res.json?.error === 'string', `HTTP ${res.status} without protocol 7's {error: string} body (errors.16: the shape is not shown): ${res.text.slice(0, 120)}`)
  }

  nonStrict(condition: boolean, message: string): void {
    if (!condition) throw new NonStrict(message)
  }

  /** Records an open choice taken otherwise than protocol 7 (see `observations`); the outcome is unchanged. */
  observe(condition: boolean, message: string): void {
    if (!condition) this.observations.push(message)
  }

  /** Like nonStrict, but the case goes on checking; a case that otherwise passes ends `non-strict`. */
  noteNonStrict(condition: boolean, message: string): void {
    if (!condition) this.nonStrictNotes.push(message)
  }

  /**
   * A create on a route whose success status the spec does not give (jobs, profiles,
   * attachments): any 2xx satisfies `clause`; a status other than protocol 7's is an observation.
   */
  created(clause: string, res: HttpAnswer, protocol7Status: number): void {
    this.check(clause, res.status >= 200 && res.status < 300, 'a 2xx success (the spec gives no status for this route)', `HTTP ${res.status} ${res.text.slice(0, 200)}`)
    this.observe(res.status === protocol7Status, `answered ${res.status} where protocol 7 answers ${protocol7Status} (the spec gives no status)`)
  }

  onCleanup(fn: () => unknown): void {
    this.#cleanups.push(fn)
  }

  async cleanup(): Promise<void> {
    for (const fn of this.#cleanups.splice(0).reverse()) {
      try { await fn() } catch { /* cleanup is best effort */ }
    }
    await this.#agent.close().catch(() => undefined)
  }
}
