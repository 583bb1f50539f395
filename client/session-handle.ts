/**
 * One attach to a session's WebSocket (websocket-framing.*, commands.*): events in seq order,
 * each exactly once, as an async iterator and to listeners; every command; the tool bridge; waits
 * that start after a given seq; and automatic reconnect that re-attaches with `afterSeq` = the
 * last seq seen, so the gateway's replay fills what was missed and nothing is delivered twice.
 * The handle owns the session's single attach (embedding-rules.11): a reconnect replaces the
 * socket, it never opens a second one beside it.
 */
import {
  PROTOCOL_VERSION, type EventOf, type PermissionMode, type PermissionRequest, type SessionCommand, type SessionEvent,
  type SessionEventType, type SessionInfo, type SessionServerFrame, type ToolExecutionOutput,
} from '../gateway/protocol/index.ts'
import { GatewayError } from './errors.ts'
import { EventLog } from './event-log.ts'
import type { PermissionAnswer } from './rest.ts'
import { CLOSED, OPEN, parseFrame, type SignalLike, type WebSocketFactory, type WebSocketLike } from './transport.ts'
import { Waiters, type WaitOptions } from './waits.ts'

export type AttachedFrame = Extract<SessionServerFrame, { type: 'attached' }>
export type ToolCallRequest = Extract<SessionServerFrame, { type: 'tool_call_request' }>
/** What a bridged tool handler returns: an output, or a failure the agent reads as tool output. */
export type ToolCallAnswer = { output: ToolExecutionOutput; logs?: string[] } | { reason: string; error: string; logs?: string[] }
export type ToolCallHandler = (request: ToolCallRequest) => ToolCallAnswer | Promise<ToolCallAnswer>
export type HandleState = 'connecting' | 'open' | 'reconnecting' | 'closed'

export interface ReconnectOptions {
  /** First delay before re-attaching; doubled per failed attempt up to `maxDelayMs`. Default 250. */
  initialDelayMs?: number
  maxDelayMs?: number
  /** Attempts in a row before giving up (state `closed`, the `error` listener). Default unlimited. */
  maxAttempts?: number
}

export interface AttachOptions {
  /** Replay events with seq above this one (0, the default, replays the whole log). */
  afterSeq?: number
  /** Re-attach after an unexpected close (default on); `false` leaves a dropped handle closed. */
  reconnect?: boolean | ReconnectOptions
  /** Protocol 7's replay views: oversized tool results cut to 8,000 characters, image parts as refs. */
  truncateResults?: boolean
  imageRefs?: boolean
  /** Answers bridged tool calls (`tool_call_request`); may also be set later with `onToolCall`. */
  onToolCall?: ToolCallHandler
  /** How long one attach may take to get its `attached` frame. Default 15,000 ms. */
  attachTimeoutMs?: number
}

/** Waits start after `afterSeq`: by default the last seq the handle had seen when the wait began. */
export interface EventWaitOptions extends WaitOptions {
  afterSeq?: number
}

export interface HandleListeners {
  event: (event: SessionEvent) => void
  /** Every frame but events: attached, tool_call_request, tool_call_canceled, protocol_error. */
  frame: (frame: Exclude<SessionServerFrame, { type: 'event' }>) => void
  state: (state: HandleState) => void
  /** The handle gave up: the session is gone, the credential was refused, or reconnect attempts ran out. */
  error: (error: Error) => void
}

/** How the client wires a handle; not part of the public API. */
export interface HandleWiring {
  sessionId: string
  /** The attach URL without a query. */
  url: string
  headers: Record<string, string>
  webSocket: WebSocketFactory
  /** Asks REST about the session after a failed attach, to tell "gone" (typed 404/401) from "network". */
  check: () => Promise<SessionInfo>
}

/** Why a wait, a stream or a command ended: the handle was detached, or the session closed. */
export class HandleClosedError extends Error {
  override readonly name = 'HandleClosedError'
}

export class SessionHandle implements AsyncIterable<SessionEvent> {
  readonly id: string
  /** Settles with the first attach. */
  readonly ready: Promise<void>
  /** Events this handle received, in seq order, each once. */
  readonly events: SessionEvent[]
  /** Non-event frames, in arrival order. */
  readonly frames: Array<Exclude<SessionServerFrame, { type: 'event' }>> = []
  /** The session as the latest `attached` frame described it. */
  session: SessionInfo | undefined
  /** How many times the handle re-attached after a drop. */
  reconnects = 0

  #wiring: HandleWiring
  #options: AttachOptions
  #log: EventLog
  #state: HandleState = 'connecting'
  #ws: WebSocketLike | undefined
  #detached = false
  #sessionClosed = false
  #outbox: SessionCommand[] = []
  #bridge: ToolCallHandler | undefined
  #unanswered: ToolCallRequest[] = []
  #frameWaits = new Waiters<Exclude<SessionServerFrame, { type: 'event' }>>()
  #listeners: { [K in keyof HandleListeners]: Set<HandleListeners[K]> } = { event: new Set(), frame: new Set(), state: new Set(), error: new Set() }

  constructor(wiring: HandleWiring, options: AttachOptions = {}) {
    this.id = wiring.sessionId
    this.#wiring = wiring
    this.#options = options
    this.#log = new EventLog(options.afterSeq ?? 0)
    this.events = this.#log.events
    this.#bridge = options.onToolCall
    this.ready = this.#connect().then((outcome) => {
      if (outcome !== 'attached') throw outcome
    })
    this.ready.catch((err: Error) => this.#finish(err))
  }

  /** The highest seq received. */
  get lastSeq(): number {
    return this.#log.lastSeq
  }

  get state(): HandleState {
    return this.#state
  }

  on<K extends keyof HandleListeners>(type: K, listener: HandleListeners[K]): () => void {
    this.#listeners[type].add(listener)
    return () => this.#listeners[type].delete(listener)
  }

  // --- commands (commands.*) -------------------------------------------------------------

  /** Sends a command; while re-attaching it is held and sent, in order, once the socket is back. */
  send(command: SessionCommand): void {
    if (this.#state === 'closed') throw new HandleClosedError(`session ${this.id}: the handle is closed`)
    if (this.#ws?.readyState === OPEN && this.#state === 'open') this.#ws.send(JSON.stringify(command))
    else this.#outbox.push(command)
  }

  sendMessage(text: string, options: { attachmentIds?: string[] } = {}): void {
    this.send({ type: 'user_message', text, ...(options.attachmentIds?.length ? { attachmentIds: options.attachmentIds } : {}) })
  }

  /** `permission_decision` naming the request by its `id`. */
  decide(request: string | { id: string }, answer: PermissionAnswer): void {
    const requestId = typeof request === 'string' ? request : request.id
    this.send({ type: 'permission_decision', requestId, ...answer })
  }

  allow(request: string | { id: string }, updatedInput?: unknown): void {
    this.decide(request, updatedInput === undefined ? { behavior: 'allow' } : { behavior: 'allow', updatedInput })
  }

  deny(request: string | { id: string }, options: { message?: string; interrupt?: boolean } = {}): void {
    this.decide(request, { behavior: 'deny', ...options })
  }

  interrupt(): void {
    this.send({ type: 'interrupt' })
  }

  /** No model (or undefined) goes back to the profile's default. */
  setModel(model?: string): void {
    this.send(model === undefined ? { type: 'set_model' } : { type: 'set_model', model })
  }

  setPermissionMode(mode: PermissionMode): void {
    this.send({ type: 'set_permission_mode', mode })
  }

  clearContext(): void {
    this.send({ type: 'clear_context' })
  }

  /** Ends the session (the `close` command); the gateway answers with `session_closed`. */
  closeSession(): void {
    this.send({ type: 'close' })
  }

  /** Answers bridged tool calls with `handler`; calls that arrived before it was set are answered now. */
  onToolCall(handler: ToolCallHandler): void {
    this.#bridge = handler
    for (const request of this.#unanswered.splice(0)) void this.#answer(request, handler)
  }

  /** Answers one bridged call by hand. */
  answerToolCall(executionId: string, answer: ToolCallAnswer): void {
    const logs = answer.logs ? { logs: answer.logs } : {}
    if ('output' in answer) this.send({ type: 'tool_call_result', executionId, output: answer.output, ...logs })
    else this.send({ type: 'tool_call_error', executionId, reason: answer.reason, error: answer.error, ...logs })
  }

  /** Closes the socket and stops re-attaching; the session itself goes on (use closeSession to end it). */
  detach(): void {
    this.#detached = true
    this.#ws?.close(1000, 'detached')
    this.#finish(new HandleClosedError(`session ${this.id}: detached`))
  }

  // --- events and waits ------------------------------------------------------------------

  /** The first event after `afterSeq` (default: the last seq seen now) that `match` accepts. */
  waitFor(match: (event: SessionEvent) => boolean, options: EventWaitOptions = {}, what = 'matching event'): Promise<SessionEvent> {
    const after = options.afterSeq ?? this.#log.lastSeq
    return this.#log.waitFor(match, after, `${what} after seq ${after} in session ${this.id}`, options)
  }

  waitForEvent<K extends SessionEventType>(type: K, options: EventWaitOptions & { where?: (event: EventOf<K>) => boolean } = {}): Promise<EventOf<K>> {
    const where = options.where
    return this.waitFor((e) => e.type === type && (!where || where(e as EventOf<K>)), options, `${type} event`) as Promise<EventOf<K>>
  }

  /** The end of the next turn: its `turn_result`. */
  waitForTurn(options: EventWaitOptions = {}): Promise<EventOf<'turn_result'>> {
    return this.waitForEvent('turn_result', options)
  }

  /** The next permission request. */
  async nextPermission(options: EventWaitOptions = {}): Promise<PermissionRequest> {
    return (await this.waitForEvent('permission_requested', options)).request
  }

  /** The next frame of another kind than an event (e.g. `protocol_error`), from now on. */
  waitForFrame(match: (frame: Exclude<SessionServerFrame, { type: 'event' }>) => boolean, options: WaitOptions = {}): Promise<Exclude<SessionServerFrame, { type: 'event' }>> {
    return this.#frameWaits.wait(match, `matching frame in session ${this.id}`, options)
  }

  /** Events after `afterSeq` (default: now), live, until the handle closes or `signal` aborts. */
  stream(options: { afterSeq?: number; signal?: SignalLike } = {}): AsyncGenerator<SessionEvent, void, undefined> {
    return this.#log.stream(options.afterSeq ?? this.#log.lastSeq, options.signal)
  }

  [Symbol.asyncIterator](): AsyncIterator<SessionEvent> {
    return this.stream()
  }

  // --- the connection ----------------------------------------------------------------------

  /** One attach: 'attached' once the gateway's attached frame arrived, else the reason it did not. */
  async #connect(): Promise<'attached' | Error> {
    const query = new URLSearchParams({ afterSeq: String(this.#log.lastSeq) })
    if (this.#options.truncateResults) query.set('truncateResults', '1')
    if (this.#options.imageRefs) query.set('imageRefs', '1')
    let ws: WebSocketLike
    try {
      ws = await this.#wiring.webSocket(`${this.#wiring.url}?${query}`, this.#wiring.headers)
    } catch (err) {
      return err as Error
    }
    if (this.#detached) {
      ws.close(1000, 'detached')
      return new HandleClosedError('detached')
    }
    this.#ws = ws
    return new Promise((resolve) => {
      let attached = false
      const timer = setTimeout(() => {
        if (!attached) ws.close(4000, 'no attached frame')
      }, this.#options.attachTimeoutMs ?? 15_000)
      ws.onmessage = (message) => {
        const frame = parseFrame(message.data)
        if (!frame) return
        if (frame.type === 'attached' && !attached) {
          attached = true
          clearTimeout(timer)
          if (frame.protocolVersion !== PROTOCOL_VERSION) {
            ws.close(1000, 'protocol mismatch')
            return resolve(new GatewayError({ status: 0, code: 'protocol_mismatch', message: `session ${this.id}: the gateway speaks protocol ${frame.protocolVersion}, this client ${PROTOCOL_VERSION}` }))
          }
          this.session = frame.session
          this.#setState('open')
          for (const command of this.#outbox.splice(0)) ws.send(JSON.stringify(command))
          resolve('attached')
        }
        this.#onFrame(frame)
      }
      let ended = false
      const onEnd = () => {
        if (ended) return
        ended = true
        clearTimeout(timer)
        if (this.#ws === ws) this.#ws = undefined
        if (!attached) return void this.#explainFailure().then(resolve)
        void this.#onDrop()
      }
      ws.onclose = onEnd
      // Node 22's WebSocket reports a refused handshake (401, 404) by an error alone, with no close event.
      ws.onerror = () => {
        if (!attached || ws.readyState === CLOSED) onEnd()
      }
    })
  }

  /** Why an attach failed: the REST answer about the session when it is an error (404, 401), else a connection failure. */
  async #explainFailure(): Promise<Error> {
    if (this.#detached) return new HandleClosedError('detached')
    try {
      await this.#wiring.check()
    } catch (err) {
      if (err instanceof GatewayError) return err
    }
    return new GatewayError({ status: 0, code: 'connection_failed', message: `session ${this.id}: the WebSocket attach failed` })
  }

  /** After an unexpected close: re-attach from the last seq seen, with backoff, until attached or given up. */
  async #onDrop(): Promise<void> {
    if (this.#detached || this.#sessionClosed || this.#state === 'closed') return this.#finish(new HandleClosedError(`session ${this.id}: closed`))
    const policy = this.#options.reconnect ?? true
    if (policy === false) return this.#finish(new HandleClosedError(`session ${this.id}: the socket closed`))
    const { initialDelayMs = 250, maxDelayMs = 5_000, maxAttempts = Infinity } = policy === true ? {} : policy
    this.#setState('reconnecting')
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      await new Promise((r) => setTimeout(r, Math.min(initialDelayMs * 2 ** attempt, maxDelayMs)))
      if (this.#detached) return
      const outcome = await this.#connect()
      if (outcome === 'attached') {
        this.reconnects++
        return
      }
      // The session is gone or the credential refused: retrying cannot help.
      if (outcome instanceof GatewayError && outcome.status !== 0 && outcome.status < 500) return this.#fail(outcome)
      if (outcome instanceof GatewayError && outcome.code === 'protocol_mismatch') return this.#fail(outcome)
      if (outcome instanceof HandleClosedError) return
    }
    this.#fail(new GatewayError({ status: 0, code: 'connection_failed', message: `session ${this.id}: gave up re-attaching after ${maxAttempts} attempts` }))
  }

  #onFrame(frame: SessionServerFrame): void {
    if (frame.type === 'event') {
      const event = frame.event
      // A replay after a re-attach starts above the last seq seen; anything at or below it is a duplicate.
      // (A wait it settles resumes after the listeners below have run: promise continuations are microtasks.)
      if (!this.#log.add(event)) return
      if (event.type === 'session_closed') this.#sessionClosed = true
      this.#emit('event', event)
      // The session ended: nothing more will come, so the socket goes and waits still pending end.
      if (this.#sessionClosed) {
        this.#ws?.close(1000, 'session closed')
        this.#finish(new HandleClosedError(`session ${this.id}: the session closed (${(event as { reason?: string }).reason ?? 'no reason'})`))
      }
      return
    }
    this.frames.push(frame)
    if (frame.type === 'tool_call_request') {
      if (this.#bridge) void this.#answer(frame, this.#bridge)
      else this.#unanswered.push(frame)
    } else if (frame.type === 'tool_call_canceled') {
      this.#unanswered = this.#unanswered.filter((r) => r.executionId !== frame.executionId)
    }
    this.#emit('frame', frame)
    this.#frameWaits.offer(frame)
  }

  async #answer(request: ToolCallRequest, handler: ToolCallHandler): Promise<void> {
    let answer: ToolCallAnswer
    try {
      answer = await handler(request)
    } catch (err) {
      answer = { reason: 'exception', error: err instanceof Error ? err.message : String(err) }
    }
    if (this.#state !== 'closed') this.answerToolCall(request.executionId, answer)
  }

  #fail(error: Error): void {
    this.#ws?.close(1000, 'giving up')
    this.#emit('error', error)
    this.#finish(error)
  }

  #finish(error: Error): void {
    if (this.#state === 'closed') return
    this.#setState('closed')
    this.#log.end(error)
    this.#frameWaits.end(error)
  }

  #setState(state: HandleState): void {
    if (this.#state === state) return
    this.#state = state
    this.#emit('state', state)
  }

  #emit<K extends keyof HandleListeners>(type: K, ...args: Parameters<HandleListeners[K]>): void {
    for (const listener of this.#listeners[type]) {
      try {
        (listener as (...a: Parameters<HandleListeners[K]>) => void)(...args)
      } catch {
        // a listener's own failure must not stop the stream for the others
      }
    }
  }
}
