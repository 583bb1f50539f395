/**
 * A small protocol-7 client: REST with a bearer token and the session WebSocket, written from
 * protocol 7's documented shapes (shapes.ts). It creates and attaches to sessions, sends commands,
 * answers permissions over the socket or over REST by the request's `id`, answers bridged tools,
 * and rebuilds live text from `stream_delta` events (live-text.ts). The kit's compatibility cases
 * and our own client test drive gateways with it; transports and the wire log are the harness's.
 */
import { httpRequest, type HttpAnswer } from '../harness/http-client.ts'
import { WireLog } from '../harness/wire-log.ts'
import { openWs, type WsClient } from '../harness/ws-client.ts'
import { LiveText } from './live-text.ts'
import type { BridgeAnswer, PermissionAnswer, PermissionRequest, ServerFrame, SessionCommand, SessionEvent, SessionInfo, ToolCallRequestFrame } from './shapes.ts'

/** A non-2xx answer; protocol 7 error bodies are `{error: string}`. */
export class ApiError extends Error {
  readonly status: number
  readonly body: unknown
  constructor(status: number, body: unknown) {
    super(`HTTP ${status}: ${typeof (body as { error?: unknown })?.error === 'string' ? (body as { error: string }).error : JSON.stringify(body)}`)
    this.status = status
    this.body = body
  }
}

export interface ClientOptions {
  /** Includes the route prefix, e.g. `http://127.0.0.1:8080/v1`. */
  baseUrl: string
  token?: string
  log?: WireLog
  /** How long a wait on a frame may take. */
  timeoutMs?: number
}

export class Protocol7Client {
  readonly log: WireLog
  readonly timeoutMs: number
  #base: string
  #token: string | undefined

  constructor(options: ClientOptions) {
    this.#base = options.baseUrl.replace(/\/$/, '')
    this.#token = options.token
    this.log = options.log ?? new WireLog()
    this.timeoutMs = options.timeoutMs ?? 10_000
  }

  async createSession(body: Record<string, unknown>): Promise<SessionInfo> {
    return (await this.#call('POST', '/sessions', body, 201)).session
  }

  async getSession(id: string): Promise<SessionInfo> {
    return (await this.#call('GET', `/sessions/${encodeURIComponent(id)}`)).session
  }

  async deleteSession(id: string): Promise<SessionInfo> {
    return (await this.#call('DELETE', `/sessions/${encodeURIComponent(id)}`)).session
  }

  /** `POST /sessions/:id/permissions/:requestId` with the request's `id` (protocol 7). */
  async resolvePermission(sessionId: string, request: Pick<PermissionRequest, 'id'>, answer: PermissionAnswer): Promise<{ resolved: true }> {
    return this.#call('POST', `/sessions/${encodeURIComponent(sessionId)}/permissions/${encodeURIComponent(request.id)}`, answer, 200)
  }

  async submitExecutionResult(executionId: string, body: Record<string, unknown>): Promise<{ applied: boolean; sessionId: string }> {
    return this.#call('POST', `/executions/${encodeURIComponent(executionId)}/result`, body, 200)
  }

  /** Attaches to a session; resolves once the `attached` frame arrived. */
  async attach(sessionId: string, options: { afterSeq?: number } = {}): Promise<SessionConnection> {
    const query = options.afterSeq === undefined ? '' : `?afterSeq=${options.afterSeq}`
    const url = `${this.#base.replace(/^http/, 'ws')}/sessions/${encodeURIComponent(sessionId)}/ws${query}`
    const ws = await openWs(this.log, url, this.#token, this.timeoutMs)
    const connection = new SessionConnection(ws, this.timeoutMs)
    await connection.attached
    return connection
  }

  /** Raw access for a caller that checks statuses itself. */
  request(method: string, path: string, body?: unknown): Promise<HttpAnswer> {
    return httpRequest(this.log, method, `${this.#base}${path}`, { token: this.#token, body })
  }

  async #call(method: string, path: string, body?: unknown, expected?: number): Promise<any> {
    const res = await this.request(method, path, body)
    if (res.status < 200 || res.status > 299 || (expected !== undefined && res.status !== expected)) throw new ApiError(res.status, res.json ?? res.text)
    return res.json
  }
}

/** One attach: frames in arrival order, events, live text, and the commands a protocol-7 client sends. */
export class SessionConnection {
  readonly attached: Promise<Extract<ServerFrame, { type: 'attached' }>>
  readonly liveText = new LiveText()
  #ws: WsClient
  #timeoutMs: number
  #seen = 0
  #bridge: ((request: ToolCallRequestFrame) => BridgeAnswer | Promise<BridgeAnswer>) | undefined

  constructor(ws: WsClient, timeoutMs: number) {
    this.#ws = ws
    this.#timeoutMs = timeoutMs
    this.attached = ws.waitFor((f) => f.type === 'attached', timeoutMs, 'the attached frame')
    ws.ws.on('message', () => this.#drain())
    this.#drain()
  }

  get frames(): ServerFrame[] {
    return this.#ws.frames
  }

  events(): SessionEvent[] {
    return this.#ws.events()
  }

  send(command: SessionCommand): void {
    this.#ws.send(command)
  }

  sendMessage(text: string): void {
    this.send({ type: 'user_message', text })
  }

  /** `permission_decision` naming the request by its `id` (protocol 7). */
  decide(request: Pick<PermissionRequest, 'id'>, answer: PermissionAnswer): void {
    this.send({ type: 'permission_decision', requestId: request.id, ...answer })
  }

  /** Answers every bridged tool call (`tool_call_request`) with `handler`'s output or failure. */
  onToolCall(handler: (request: ToolCallRequestFrame) => BridgeAnswer | Promise<BridgeAnswer>): void {
    this.#bridge = handler
    this.#drain()
  }

  waitFor<T extends ServerFrame>(predicate: (frame: ServerFrame) => boolean, what = 'a matching frame'): Promise<T> {
    return this.#ws.waitFor(predicate as (frame: any) => boolean, this.#timeoutMs, what)
  }

  waitForEvent<K extends SessionEvent['type']>(type: K, predicate: (event: Extract<SessionEvent, { type: K }>) => boolean = () => true): Promise<Extract<SessionEvent, { type: K }>> {
    return this.#ws.waitForEvent(type, this.#timeoutMs, predicate as (event: any) => boolean)
  }

  /** The next permission request after `afterSeq`. */
  async nextPermission(afterSeq = 0): Promise<PermissionRequest> {
    const event = await this.waitForEvent('permission_requested', (e) => e.seq > afterSeq)
    return (event as Extract<SessionEvent, { type: 'permission_requested' }>).request
  }

  close(): void {
    this.#ws.close()
  }

  /** Feeds each new frame once to the live text, and bridged requests to the handler (held until one is set). */
  #drain(): void {
    const frames = this.#ws.frames
    for (; this.#seen < frames.length; this.#seen++) {
      const frame = frames[this.#seen] as ServerFrame
      if (frame.type === 'event') this.liveText.apply(frame.event)
      else if (frame.type === 'tool_call_request') this.#requests.push(frame)
    }
    const handler = this.#bridge
    if (handler) for (const request of this.#requests.splice(0)) void this.#answer(request, handler)
  }

  #requests: ToolCallRequestFrame[] = []

  async #answer(request: ToolCallRequestFrame, handler: (request: ToolCallRequestFrame) => BridgeAnswer | Promise<BridgeAnswer>): Promise<void> {
    let answer: BridgeAnswer
    try {
      answer = await handler(request)
    } catch (err) {
      answer = { reason: 'exception', error: (err as Error).message }
    }
    if (!this.#ws.open) return
    if ('output' in answer) this.send({ type: 'tool_call_result', executionId: request.executionId, output: answer.output, ...(answer.logs ? { logs: answer.logs } : {}) })
    else this.send({ type: 'tool_call_error', executionId: request.executionId, reason: answer.reason, error: answer.error, ...(answer.logs ? { logs: answer.logs } : {}) })
  }
}
