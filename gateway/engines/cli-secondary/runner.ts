/**
 * A cli_secondary session on `codex app-server` (reference/codex-app-server-protocol.md §12): one
 * child per session, a thread started or resumed on it, one turn at a time (a `turn/start` during
 * a turn would steer it, so messages queue), items mapped onto the spec's events, approvals as
 * server requests through the gateway's permission flow. Nothing here knows whether the binary
 * is the real codex or our fake: only the launch command differs.
 */
import { randomUUID } from 'node:crypto'
import { rm } from 'node:fs/promises'
import {
  ENGINE_CAPABILITIES, type MessageOrigin, type PermissionMode, type ResolvedBy, type SessionClosedReason, type SessionEventBody, type SessionInfo,
} from '../../protocol/index.ts'
import type { EventListener } from '../../sessions/event-log.ts'
import type { PermissionDecision, ProducedFile, Runner, RunnerConfig } from '../../sessions/runner.ts'
import { SessionCore, type SessionCoreRestore } from '../../sessions/session-core.ts'
import type { RunnerSnapshot } from '../../sessions/session-store.ts'
import { dormantSnapshot } from '../dormancy.ts'
import { INTERRUPTED_RESULT } from '../interrupted.ts'
import { RespawnPolicy, type RespawnOptions } from '../respawn.ts'
import { metadataOf, type OutgoingAttachment } from '../../sessions/attachments.ts'
import { Approvals, type Settled } from '../cli-primary/approvals.ts'
import { StreamEventWriter } from '../stream-events.ts'
import { ProducedFiles } from '../cli-primary/produced.ts'
import { addUsage, changedPaths, textOf, toolResultOf, toolUseOf, userTextOf, zeroUsage, type Item, type Usage } from './items.ts'
import { threadSettings, turnSettings } from './modes.ts'
import { CodexPeer, type Json, type Launch } from './peer.ts'
import { inputOf, nonceOf, type Queued } from './codex-shapes.ts'
import { mapServerRequest, type Ask } from './server-requests.ts'
import { SubAgentThreads } from './sub-agents.ts'
import { settleQuestionByPolicy } from '../questions.ts'

export interface CodexRunnerSettings {
  launch: Launch
  /** How long codex may take to answer a handshake or thread request before the session fails. */
  requestTimeoutMs: number
  clientVersion: string
  /** A dormant session waking: numbering goes on after `restore.seq` (config.resume names the thread). */
  restore?: SessionCoreRestore
  /** A dead codex child: respawn and resume the thread, failing the session only on a crash loop. */
  respawn?: RespawnOptions
}


interface Turn {
  id?: string
  nonce: string
  started: number
  usage: Usage
  lastText?: string
  lastError?: string
  interruptRequested: boolean
  /** `turn/started` was read: codex refuses `turn/interrupt` before it ("no active turn to interrupt"). */
  active: boolean
  /** Tool cards by codex item id: approvals point their `toolUseId` at them (reference §7). */
  items: Map<string, Item>
  /** Turn-scoped notifications read before the turn id was known (same stdout chunk as the turn/start answer). */
  early: Array<[string, Json]>
  /** Raw stream events for `item/agentMessage/delta`s (events.11), made on the first delta. */
  stream?: StreamEventWriter
}

export class CodexRunner implements Runner {
  readonly id: string
  #core: SessionCore
  #config: RunnerConfig
  #settings: CodexRunnerSettings
  #peer: CodexPeer | undefined
  #approvals: Approvals
  #produced: ProducedFiles
  #started: Promise<void> | undefined
  #ready = false
  #threadId: string | undefined
  readonly #subAgents = new SubAgentThreads()
  #defaultModel: string | undefined
  #model: string | undefined
  #mode: PermissionMode
  #queue: Queued[] = []
  #turn: Turn | undefined
  #turns = 0
  #interruptNext = false
  /** The latest context reading: `last.totalTokens` against the window, overwritten, never summed (engine-facts §2). */
  #lastContext: Record<string, unknown> | undefined
  /** Image attachments written for codex (`localImage` paths); removed when the session closes. */
  #tempDirs: string[] = []
  /** Codex server request id → gateway request id, so `serverRequest/resolved` retires the card. */
  #asked = new Map<string, string>()
  #respawn: RespawnPolicy
  /** Codex has written the thread (a turn of it completed, or it was resumed): only then can it be resumed. */
  #threadStored = false
  /** A respawn is under way (its backoff or handshake): messages queue behind it. */
  #respawning = false

  constructor(config: RunnerConfig, settings: CodexRunnerSettings) {
    this.id = config.id
    this.#config = config
    this.#settings = settings
    this.#core = new SessionCore(config, settings.restore)
    this.#mode = config.permissionMode
    this.#respawn = new RespawnPolicy(settings.respawn)
    this.#model = typeof config.model === 'string' ? config.model : undefined
    this.#produced = new ProducedFiles(config.cwd as string | undefined)
    this.#approvals = new Approvals((body) => this.#emit(body), config.approvalTimeoutMs as number | null | undefined)
  }

  start(): Promise<void> {
    return (this.#started ??= this.#boot())
  }

  /** A child with the session's handlers; its death outside `close()` goes to `#onDeath`. */
  #spawn(): CodexPeer {
    const peer: CodexPeer = new CodexPeer(this.#settings.launch, {
      onNotification: (method, params) => this.#onNotification(method, params),
      onRequest: (method, params, id) => this.#onServerRequest(method, params, id),
      onExit: (summary) => this.#onDeath(peer, summary),
    })
    this.#peer = peer
    return peer
  }

  /** initialize, then the thread: started, or resumed by id (a dormant wake, a respawn). */
  async #handshake(peer: CodexPeer, resume: string | undefined): Promise<Json> {
    const timeout = this.#settings.requestTimeoutMs
    await peer.request('initialize', { clientInfo: { name: 'agent-session-gateway', title: null, version: this.#settings.clientVersion }, capabilities: { experimentalApi: true } }, timeout)
    peer.notify('initialized')
    const common = { cwd: this.#config.cwd as string, ...threadSettings(this.#mode), ...(this.#model ? { model: this.#model } : {}) }
    return resume ? await peer.request('thread/resume', { threadId: resume, ...common }, timeout) : await peer.request('thread/start', common, timeout)
  }

  async #boot(): Promise<void> {
    const peer = this.#spawn()
    try {
      const cwd = this.#config.cwd as string
      const resume = typeof this.#config.resume === 'string' ? this.#config.resume : undefined
      const result = await this.#handshake(peer, resume)
      const thread = result.thread as { id: string; turns?: Array<{ id: string; items?: Item[] }> }
      this.#threadId = thread.id
      this.#threadStored = resume !== undefined
      this.#defaultModel = typeof result.model === 'string' ? result.model : undefined
      if (resume) this.#backfill(thread.turns ?? [])
      // Codex has no system_init (engine-facts §2): the thread response stands in for it.
      this.#emit({
        type: 'system_init', sdkSessionId: thread.id, model: this.#defaultModel, cwd, apiKeySource: 'none', tools: ['Bash', 'apply_patch'],
        skills: [], slashCommands: [], permissionMode: this.#mode, mcpServers: [],
      })
      this.#emit({ type: 'capabilities', models: this.#defaultModel ? [{ value: this.#defaultModel }] : [], commands: [], ...(this.#defaultModel ? { defaultModel: this.#defaultModel } : {}) })
    } catch (err) {
      if (!this.#core.closed && this.#peer === peer) this.fail(`codex could not start the thread: ${(err as Error).message}`)
      return
    }
    this.#ready = true
    if (!this.#turn && this.#queue.length === 0) this.#core.setStatus('idle')
    const prompt = this.#config.prompt
    if (typeof prompt === 'string' && prompt.trim()) this.sendMessage(prompt)
    else this.#pump()
  }

  /**
   * The child died outside a shutdown (issue 24): the running turn ends with an error result, the
   * session stays usable, and the next message respawns codex on the same thread. A crash loop
   * (deaths with no completed turn between them) fails the session.
   */
  #onDeath(peer: CodexPeer, summary: string): void {
    if (this.#core.closed || this.#peer !== peer) return
    this.#peer = undefined
    this.#ready = false
    if (!this.#respawn.noteDeath()) return this.fail(`codex kept exiting (${summary})`)
    // Before the thread existed there is nothing to resume: the start failed, and so does the session.
    if (this.#threadId === undefined) return this.fail(summary)
    const next = this.#threadStored ? `restarts codex on thread ${this.#threadId}` : 'starts a new thread (codex stored none of this one)'
    this.#emit({ type: 'sdk_event', payload: { type: 'gateway_notice', message: `${summary}; the next message ${next}` } })
    const turn = this.#turn
    if (turn) this.#finishTurn(turn, 'failed', summary)
    else this.#approvals.denyAll('the codex process exited')
  }

  /** A new child resuming the thread, after the crash loop's backoff; the history is not replayed again. */
  async #respawnPeer(): Promise<void> {
    this.#respawning = true
    try {
      await new Promise((resolve) => setTimeout(resolve, this.#respawn.delayMs))
      if (this.#core.closed) return
      const peer = this.#spawn()
      try {
        // A thread killed in its first turn was never written: the new child starts a new one.
        const result = await this.#handshake(peer, this.#threadStored ? this.#threadId : undefined)
        const thread = result.thread as { id: string }
        if (thread.id !== this.#threadId) {
          this.#threadId = thread.id
          this.#emit({ type: 'system_init', sdkSessionId: thread.id, model: this.#defaultModel, cwd: this.#config.cwd as string, apiKeySource: 'none', tools: ['Bash', 'apply_patch'], skills: [], slashCommands: [], permissionMode: this.#mode, mcpServers: [] })
        }
      } catch (err) {
        if (this.#core.closed || this.#peer !== peer) return
        peer.close()
        this.#peer = undefined
        if (!this.#respawn.noteDeath()) return this.fail(`codex could not resume thread ${this.#threadId}: ${(err as Error).message}`)
        return void queueMicrotask(() => this.#pump())
      }
      if (this.#core.closed || this.#peer !== peer) return
      this.#ready = true
    } finally {
      this.#respawning = false
    }
    this.#pump()
  }

  /** The dormant record's content: the codex thread id and the seq numbering (embedding-rules.14). */
  snapshot(): RunnerSnapshot | undefined {
    return dormantSnapshot(this.#core, this.#threadStored ? this.#threadId : undefined)
  }

  /** A resumed thread's turns as `replay` events (events.10), each turn with its own id nonce. */
  #backfill(turns: Array<{ id: string; items?: Item[] }>): void {
    for (const turn of turns) {
      const nonce = nonceOf()
      for (const item of turn.items ?? []) {
        const toolUseId = `${nonce}:${item.id}`
        if (item.type === 'userMessage') {
          this.#emit({ type: 'user_message', message: { role: 'user', content: userTextOf(item) }, replay: true })
          continue
        }
        const text = textOf(item)
        if (text) this.#emit({ type: 'assistant_message', message: text, parentToolUseId: null, replay: true })
        const use = toolUseOf(item, toolUseId)
        if (use) this.#emit({ type: 'assistant_message', message: use, parentToolUseId: null, replay: true })
        const result = toolResultOf(item, toolUseId)
        if (result) this.#emit({ type: 'user_message', message: result, parentToolUseId: null, replay: true, synthetic: true })
      }
    }
  }

  #onNotification(method: string, params: Json): void {
    // Sub-agent threads share the connection; only the session's own thread drives it (engine-facts §2).
    if (typeof params.threadId === 'string' && params.threadId !== this.#threadId) return this.#onSubAgent(method, params.threadId, params)
    const turn = this.#turn
    if (turn && turn.id === undefined) {
      if (method === 'turn/started') {
        this.#adoptTurnId(turn, String((params.turn as Json | undefined)?.id))
        return this.#markActive(turn)
      }
      if (typeof params.turnId === 'string' || method === 'turn/completed') {
        turn.early.push([method, params])
        return
      }
    }
    const ofTurn = turn !== undefined && turn.id !== undefined && params.turnId === turn.id
    switch (method) {
      case 'turn/started':
        if (turn && (params.turn as Json | undefined)?.id === turn.id) this.#markActive(turn)
        return
      case 'item/started':
        if (ofTurn) this.#onItemStarted(turn, params.item as Item)
        return
      case 'item/completed':
        if (ofTurn) this.#onItemCompleted(turn, params.item as Item)
        return
      case 'item/agentMessage/delta':
        if (ofTurn && this.#config.includePartialMessages === true) {
          turn.stream ??= new StreamEventWriter((event) => this.#emit({ type: 'stream_delta', event, parentToolUseId: null, uuid: randomUUID() }), this.#model ?? this.#defaultModel)
          turn.stream.text(String(params.delta ?? ''))
        }
        return
      case 'thread/tokenUsage/updated': {
        // After a resume codex repeats the previous turn's usage under that turn's id: filter by turn (reference §9).
        if (!ofTurn) return
        const usage = params.tokenUsage as { last?: Json; modelContextWindow?: number | null } | undefined
        if (usage?.last) addUsage(turn.usage, usage.last)
        if (usage?.last && typeof usage.modelContextWindow === 'number') {
          const total = Number(usage.last.totalTokens ?? 0)
          this.#lastContext = { totalTokens: total, maxTokens: usage.modelContextWindow, percentage: Math.round((total / usage.modelContextWindow) * 1000) / 10, categories: [] }
        }
        return
      }
      case 'item/autoApprovalReview/completed':
        // Codex's own reviewer decided an escalation under `auto` (reference §8): shown, not asked.
        return this.#emit({ type: 'sdk_event', payload: { type: 'codex_auto_review', targetItemId: params.targetItemId, review: params.review, action: params.action } })
      case 'account/rateLimits/updated': {
        // Codex sends this after every model request, windows null when the provider reports none: only readings pass.
        const limits = params.rateLimits as Json | undefined
        if (limits && (limits.primary || limits.secondary || limits.rateLimitReachedType)) this.#emit({ type: 'rate_limit', info: limits })
        return
      }
      case 'error':
        if (ofTurn && params.willRetry !== true) turn.lastError = String((params.error as Json | undefined)?.message ?? 'codex reported an error')
        return
      case 'serverRequest/resolved': {
        // Codex settled a request itself (interrupt): retire the card (reference §7).
        const requestId = this.#asked.get(String(params.requestId))
        if (requestId) this.#approvals.resolve(requestId, { behavior: 'deny', message: 'codex withdrew the request' }, 'policy')
        return
      }
      case 'turn/completed': {
        const done = params.turn as { id?: string; status?: string; error?: { message?: string } | null } | undefined
        if (turn && done?.id === turn.id) {
          this.#threadStored = true
          this.#finishTurn(turn, String(done?.status), done?.error?.message)
        }
        return
      }
      default:
    }
  }

  /** A sub-agent thread's completed items, nested under the card that spawned it; its turns and usage are its own. */
  #onSubAgent(method: string, thread: string, params: Json): void {
    const turn = this.#turn
    if (method !== 'item/completed' || !turn) return
    const item = params.item as Item
    const parentToolUseId = this.#subAgents.parentOf(thread)
    const text = textOf(item)
    if (text) return this.#emit({ type: 'assistant_message', message: text, parentToolUseId })
    const toolUseId = `${turn.nonce}:${thread}:${item.id}`
    const use = toolUseOf(item, toolUseId)
    const result = toolResultOf(item, toolUseId)
    if (use) this.#emit({ type: 'assistant_message', message: use, parentToolUseId })
    if (result) this.#emit({ type: 'user_message', message: result, parentToolUseId, synthetic: true })
  }

  #onItemStarted(turn: Turn, item: Item): void {
    const toolUseId = `${turn.nonce}:${item.id}`
    this.#subAgents.noteRootItem(item, toolUseId, this.#threadId)
    const use = toolUseOf(item, toolUseId)
    if (!use) return
    turn.items.set(item.id, item)
    if (item.type === 'fileChange') {
      // Each added or updated path is a candidate produced file once the change completes (events.18).
      this.#produced.noteToolUses(changedPaths(item).filter((c) => c.kind !== 'delete').map((c, i) => ({ type: 'tool_use', id: `${toolUseId}#${i}`, name: 'Write', input: { file_path: c.path } })))
    }
    this.#emit({ type: 'assistant_message', message: use, parentToolUseId: null })
  }

  #onItemCompleted(turn: Turn, item: Item): void {
    const toolUseId = `${turn.nonce}:${item.id}`
    this.#subAgents.noteRootItem(item, toolUseId, this.#threadId)
    if (item.type === 'agentMessage' && typeof item.text === 'string') turn.lastText = item.text
    if (item.type === 'agentMessage') turn.stream?.end()
    const text = textOf(item)
    if (text) return this.#emit({ type: 'assistant_message', message: text, parentToolUseId: null })
    const result = toolResultOf(item, toolUseId)
    if (!result) return
    if (!turn.items.has(item.id)) {
      // A tool item codex reports only on completion still gets its card first.
      const use = toolUseOf(item, toolUseId)
      if (use) this.#emit({ type: 'assistant_message', message: use, parentToolUseId: null })
    }
    this.#emit({ type: 'user_message', message: result, parentToolUseId: null, synthetic: true })
    if (item.type === 'fileChange') {
      const ok = item.status === 'completed'
      const paths = changedPaths(item).filter((c) => c.kind !== 'delete')
      for (const file of this.#produced.collect(paths.map((_, i) => ({ type: 'tool_result', tool_use_id: `${toolUseId}#${i}`, is_error: !ok })))) this.#emit({ type: 'file_produced', ...file })
    }
  }

  async #onServerRequest(method: string, params: Json, serverId: number | string): Promise<unknown> {
    const mapped = mapServerRequest(method, params, this.#turn)
    // Every other server request is answered, so nothing hangs (reference §3).
    if (!mapped) throw new Error(`the gateway does not handle ${method}`)
    const behavior = this.#config.questionBehavior
    if (mapped.questions && (behavior === 'auto' || behavior === 'deny')) {
      const request = { id: randomUUID(), requestId: '', ...mapped.ask }
      request.requestId = request.id
      const answer = settleQuestionByPolicy((body) => this.#emit(body), request, behavior, mapped.questions)
      return mapped.answer(answer.behavior === 'allow' ? { behavior: 'allow', updatedInput: { answers: answer.answers }, resolvedBy: 'policy' } : { ...answer, resolvedBy: 'policy' }, () => this.interrupt())
    }
    return mapped.answer(await this.#ask(serverId, mapped.ask), () => this.interrupt())
  }

  async #ask(serverId: number | string, request: Ask): Promise<Settled> {
    const requestId = randomUUID()
    this.#asked.set(String(serverId), requestId)
    this.#core.setStatus('awaiting_approval')
    try {
      return await this.#approvals.ask({ id: requestId, requestId, ...request })
    } finally {
      this.#asked.delete(String(serverId))
      if (!this.#core.closed && this.#approvals.size === 0) this.#core.setStatus(this.#turn ? 'running' : 'idle')
    }
  }

  #finishTurn(turn: Turn, status: string, error: string | undefined): void {
    this.#turn = undefined
    this.#turns += 1
    turn.stream?.finish(status === 'completed' ? 'end_turn' : undefined)
    // Anything still asked when the turn ends is denied (engine-facts §2: turn end sweeps approvals).
    this.#approvals.denyAll('the turn ended')
    const ok = status === 'completed'
    if (ok) this.#respawn.noteSuccess()
    const outcome = ok ? { subtype: 'success', isError: false, ...(turn.lastText !== undefined ? { result: turn.lastText } : {}) }
      : status === 'interrupted' ? { ...INTERRUPTED_RESULT, errors: [...INTERRUPTED_RESULT.errors] }
        : { subtype: 'error_during_execution', isError: true, errors: [error ?? turn.lastError ?? `the turn ended with status ${status}`] }
    this.#emit({ type: 'turn_result', ...outcome, durationMs: Date.now() - turn.started, numTurns: this.#turns, totalCostUsd: 0, usage: turn.usage })
    if (this.#lastContext) this.#emit({ type: 'context_usage', usage: this.#lastContext })
    if (this.#queue.length === 0 && this.#approvals.size === 0) this.#core.setStatus('idle')
    this.#pump()
  }

  /** Starts the next queued message as a turn when none runs. */
  #pump(): void {
    if (this.#turn || this.#core.closed) return
    if (!this.#ready) {
      // A dead child is replaced only when there is a message for it (issue 24).
      if (!this.#peer && !this.#respawning && this.#threadId !== undefined && this.#queue.length) void this.#respawnPeer()
      return
    }
    const next = this.#queue.shift()
    if (!next) return
    const turn: Turn = { nonce: nonceOf(), started: Date.now(), usage: zeroUsage(), interruptRequested: this.#interruptNext, active: false, items: new Map(), early: [] }
    this.#interruptNext = false
    this.#turn = turn
    this.#core.setStatus('running')
    void this.#startTurn(turn, next)
  }

  async #startTurn(turn: Turn, message: Queued): Promise<void> {
    const peer = this.#peer
    if (!peer) return
    try {
      const input = await inputOf(message, this.#tempDirs)
      // Overrides persist in codex, so model and mode are restated on every turn (reference §5).
      const model = this.#model ?? this.#defaultModel
      const effort = typeof this.#config.reasoningEffort === 'string' ? { effort: this.#config.reasoningEffort } : {}
      const result = await peer.request('turn/start', { threadId: this.#threadId, input, cwd: this.#config.cwd, ...turnSettings(this.#mode), ...(model ? { model } : {}), ...effort }, this.#settings.requestTimeoutMs)
      this.#adoptTurnId(turn, String((result.turn as Json | undefined)?.id))
    } catch (err) {
      if (this.#core.closed || this.#turn !== turn) return
      // A rejected turn/start fails the turn, not the session (engine-facts §2).
      this.#finishTurn(turn, 'failed', `codex refused the turn: ${(err as Error).message}`)
    }
  }

  /** The turn id, from the turn/start answer or `turn/started`, whichever is read first. */
  #adoptTurnId(turn: Turn, id: string): void {
    if (turn.id !== undefined) return
    turn.id = id
    for (const [method, params] of turn.early.splice(0)) this.#onNotification(method, params)
  }

  #markActive(turn: Turn): void {
    if (turn.active) return
    turn.active = true
    if (turn.interruptRequested && this.#turn === turn) this.#sendInterrupt(turn)
  }

  #sendInterrupt(turn: Turn): void {
    void this.#peer?.request('turn/interrupt', { threadId: this.#threadId, turnId: turn.id }).catch(() => undefined)
  }

  #emit(body: SessionEventBody): void {
    if (!this.#core.closed) this.#core.emit(body)
  }

  info(): SessionInfo {
    return this.#core.info()
  }

  subscribe(listener: EventListener, afterSeq = 0): () => void {
    return this.#core.subscribe(listener, afterSeq)
  }

  producedFiles(): ProducedFile[] {
    return this.#produced.list()
  }

  /**
   * Codex's MCP servers come from its config.toml (none per session). `mcpServerStatus/list` has
   * tools but no status: having tools reads as connected, else pending (engine-facts §2). Only
   * names leave, never a server's configuration.
   */
  async mcpServers(): Promise<unknown[] | undefined> {
    if (!this.#peer?.alive || !this.#ready) return []
    const result = await this.#peer.request('mcpServerStatus/list', {}, this.#settings.requestTimeoutMs)
    const rows = Array.isArray(result.data) ? (result.data as Json[]) : []
    return rows.map((row) => {
      // `tools` is a name-keyed map in 0.169's schema; an array form is read by each tool's name.
      const tools = Array.isArray(row.tools) ? row.tools.map((t) => String((t as Json)?.name)) : row.tools && typeof row.tools === 'object' ? Object.keys(row.tools as object) : []
      return { name: String(row.name), status: tools.length ? 'connected' : row.authStatus === 'notLoggedIn' ? 'needs-auth' : 'pending', tools: tools.map((name) => ({ name })) }
    })
  }

  sendMessage(text: string, attachments: OutgoingAttachment[] = [], origin?: MessageOrigin): void {
    if (this.#core.closed) throw new Error('session is closed')
    // Codex echoes the input as a userMessage item; the runner reports it itself, once, at once.
    this.#core.emit({
      type: 'user_message', message: { role: 'user', content: text },
      ...(attachments.length ? { attachments: attachments.map(metadataOf) } : {}), ...(origin ? { origin } : {}),
    })
    this.#queue.push({ text, attachments })
    if (this.#approvals.size === 0) this.#core.setStatus('running')
    this.#pump()
  }

  setTitle(title: string | undefined): void {
    this.#core.setTitle(title)
  }

  resolvePermission(requestId: string, decision: PermissionDecision, by: ResolvedBy): boolean {
    return this.#approvals.resolve(requestId, decision, by)
  }

  interrupt(): void {
    const turn = this.#turn
    if (this.#core.closed) return
    if (!turn) {
      // A message queued while codex was still starting is the turn being interrupted.
      if (this.#queue.length) this.#interruptNext = true
      return
    }
    // Codex refuses an interrupt before `turn/started`; until then it waits (reference §9).
    if (!turn.active) turn.interruptRequested = true
    else this.#sendInterrupt(turn)
  }

  setPermissionMode(mode: PermissionMode): void {
    if (this.#core.closed) throw new Error('session is closed')
    if (!ENGINE_CAPABILITIES.cli_secondary.permissionModes.includes(mode)) throw new Error(`permission mode '${mode}' is not supported by engine cli_secondary`)
    // Applied at the next turn/start: a running turn's sandbox is fixed.
    this.#mode = mode
    this.#core.emit({ type: 'permission_mode_changed', mode })
  }

  setModel(model: string | undefined): void {
    if (this.#core.closed) throw new Error('session is closed')
    this.#model = model
    this.#core.emit(model === undefined ? { type: 'model_changed' } : { type: 'model_changed', model })
  }

  fail(message: string): void {
    if (this.#core.closed) return
    this.#core.reportError(message)
    this.close('error')
  }

  close(reason: SessionClosedReason = 'client'): void {
    if (this.#core.closed) return
    this.#core.reportClosed(reason)
    this.#approvals.denyAll('the session was closed')
    this.#queue = []
    this.#peer?.close()
    for (const dir of this.#tempDirs.splice(0)) void rm(dir, { recursive: true, force: true }).catch(() => undefined)
  }
}
