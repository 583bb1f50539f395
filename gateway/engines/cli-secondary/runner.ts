/**
 * A cli_secondary session on `codex app-server` (reference/codex-app-server-protocol.md §12): one
 * child per session, a thread started or resumed on it, one turn at a time (a `turn/start` during
 * a turn would steer it, so messages queue), items mapped onto the spec's events, approvals as
 * server requests through the gateway's permission flow. Nothing here knows whether the binary
 * is the real codex or our fake: only the launch command differs.
 */
import { randomUUID } from 'node:crypto'
import { rm } from 'node:fs/promises'
import type { MessageOrigin, PermissionMode, ResolvedBy, SessionClosedReason, SessionInfo } from '../../protocol/index.ts'
import type { EventListener } from '../../sessions/event-log.ts'
import type { PermissionDecision, ProducedFile, Runner, RunnerConfig } from '../../sessions/runner.ts'
import { SessionCore, type SessionCoreRestore } from '../../sessions/session-core.ts'
import type { RunnerSnapshot } from '../../sessions/session-store.ts'
import { dormantSnapshot } from '../dormancy.ts'
import { errorOutcome, interruptedOutcome, successOutcome, TurnMachinery } from '../turn-machinery.ts'
import { RespawnPolicy, type RespawnOptions } from '../respawn.ts'
import { metadataOf, type OutgoingAttachment } from '../../sessions/attachments.ts'
import { Approvals } from '../cli-primary/approvals.ts'
import { StreamEventWriter } from '../stream-events.ts'
import { ProducedFiles } from '../cli-primary/produced.ts'
import { noteTokenUsage, type Item } from './items.ts'
import { turnSettings } from './modes.ts'
import { handshake } from './handshake.ts'
import { CodexPeer, type Json, type Launch } from './peer.ts'
import { inputOf, mcpStatusRows, threadInit, type Queued } from './codex-shapes.ts'
import { newTurn, type Turn } from './turn.ts'
import { replayTurns, subAgentItem } from './replay.ts'
import { CodexAsks } from './asks.ts'
import { itemCompleted, itemStarted, type ItemSink } from './turn-items.ts'
import { SubAgentThreads } from './sub-agents.ts'

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

export class CodexRunner implements Runner {
  readonly id: string
  readonly #turns: TurnMachinery
  #config: RunnerConfig
  #settings: CodexRunnerSettings
  #peer: CodexPeer | undefined
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
  #turnCount = 0
  #interruptNext = false
  /** The latest context reading: `last.totalTokens` against the window, overwritten, never summed (engine-facts §2). */
  #lastContext: Record<string, unknown> | undefined
  /** Image attachments written for codex (`localImage` paths); removed when the session closes. */
  #tempDirs: string[] = []
  readonly #asks: CodexAsks
  readonly #items: ItemSink
  #respawn: RespawnPolicy
  /** Codex has written the thread (a turn of it completed, or it was resumed): only then can it be resumed. */
  #threadStored = false
  /** A respawn is under way (its backoff or handshake): messages queue behind it. */
  #respawning = false

  constructor(config: RunnerConfig, settings: CodexRunnerSettings) {
    this.id = config.id
    this.#config = config
    this.#settings = settings
    this.#turns = new TurnMachinery('cli_secondary', new SessionCore(config, settings.restore), (emit) => new Approvals(emit, config.approvalTimeoutMs as number | null | undefined))
    this.#mode = config.permissionMode
    this.#respawn = new RespawnPolicy(settings.respawn)
    this.#model = typeof config.model === 'string' ? config.model : undefined
    this.#produced = new ProducedFiles(config.cwd as string | undefined)
    this.#asks = new CodexAsks({ turns: this.#turns, questionBehavior: config.questionBehavior, currentTurn: () => this.#turn, interrupt: () => this.interrupt() })
    this.#items = { emit: (body) => this.#turns.emit(body), produced: this.#produced, subAgents: this.#subAgents, threadId: () => this.#threadId }
  }

  start(): Promise<void> {
    return (this.#started ??= this.#boot())
  }

  /** A child with the session's handlers; its death outside `close()` goes to `#onDeath`. */
  #spawn(): CodexPeer {
    const peer: CodexPeer = new CodexPeer(this.#settings.launch, {
      onNotification: (method, params) => this.#onNotification(method, params),
      onRequest: (method, params, id) => this.#asks.answer(method, params, id),
      onExit: (summary) => this.#onDeath(peer, summary),
    })
    this.#peer = peer
    return peer
  }

  /** initialize, then the thread: started, or resumed by id (a dormant wake, a respawn). */
  #handshake(peer: CodexPeer, resume: string | undefined): Promise<Json> {
    return handshake(peer, { timeoutMs: this.#settings.requestTimeoutMs, clientVersion: this.#settings.clientVersion, cwd: this.#config.cwd as string, mode: this.#mode, model: this.#model }, resume)
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
      if (resume) replayTurns((body) => this.#turns.emit(body), thread.turns ?? [])
      this.#turns.emit(threadInit(thread.id, this.#defaultModel, cwd, this.#mode))
      this.#turns.emit({ type: 'capabilities', models: this.#defaultModel ? [{ value: this.#defaultModel }] : [], commands: [], ...(this.#defaultModel ? { defaultModel: this.#defaultModel } : {}) })
    } catch (err) {
      if (!this.#turns.closed && this.#peer === peer) this.fail(`codex could not start the thread: ${(err as Error).message}`)
      return
    }
    this.#ready = true
    if (!this.#turn && this.#queue.length === 0) this.#turns.core.setStatus('idle')
    const prompt = this.#config.prompt
    if (typeof prompt === 'string' && prompt.trim()) this.sendMessage(prompt)
    else this.#pump()
  }

  /**
   * The child died outside a shutdown: the running turn ends with an error result, the
   * session stays usable, and the next message respawns codex on the same thread. A crash loop
   * (deaths with no completed turn between them) fails the session.
   */
  #onDeath(peer: CodexPeer, summary: string): void {
    if (this.#turns.closed || this.#peer !== peer) return
    this.#peer = undefined
    this.#ready = false
    if (!this.#respawn.noteDeath()) return this.fail(`codex kept exiting (${summary})`)
    // Before the thread existed there is nothing to resume: the start failed, and so does the session.
    if (this.#threadId === undefined) return this.fail(summary)
    const next = this.#threadStored ? `restarts codex on thread ${this.#threadId}` : 'starts a new thread (codex stored none of this one)'
    this.#turns.notice(`${summary}; the next message ${next}`)
    const turn = this.#turn
    if (turn) return this.#finishTurn(turn, 'failed', summary)
    this.#turns.denyApprovals('the codex process exited')
    // A respawn that died before its turn began: its waiting messages end with one error turn_result (events.12).
    if (!this.#queue.length) return
    this.#queue = []
    this.#interruptNext = false
    this.#turns.endTurn(errorOutcome(summary), { durationMs: 0, numTurns: ++this.#turnCount, totalCostUsd: 0 })
  }

  /** A new child resuming the thread, after the crash loop's backoff; the history is not replayed again. */
  async #respawnPeer(): Promise<void> {
    this.#respawning = true
    try {
      await new Promise((resolve) => setTimeout(resolve, this.#respawn.delayMs))
      if (this.#turns.closed) return
      const peer = this.#spawn()
      try {
        // A thread killed in its first turn was never written: the new child starts a new one.
        const result = await this.#handshake(peer, this.#threadStored ? this.#threadId : undefined)
        const thread = result.thread as { id: string }
        if (thread.id !== this.#threadId) {
          this.#threadId = thread.id
          this.#turns.emit(threadInit(thread.id, this.#defaultModel, this.#config.cwd as string, this.#mode))
        }
      } catch (err) {
        if (this.#turns.closed || this.#peer !== peer) return
        peer.close()
        this.#peer = undefined
        if (!this.#respawn.noteDeath()) return this.fail(`codex could not resume thread ${this.#threadId}: ${(err as Error).message}`)
        return void queueMicrotask(() => this.#pump())
      }
      if (this.#turns.closed || this.#peer !== peer) return
      this.#ready = true
    } finally {
      this.#respawning = false
    }
    this.#pump()
  }

  /** The dormant record's content: the codex thread id and the seq numbering (embedding-rules.14). */
  snapshot(): RunnerSnapshot | undefined {
    return dormantSnapshot(this.#turns.core, this.#threadStored ? this.#threadId : undefined)
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
        if (ofTurn) itemStarted(this.#items, turn, params.item as Item)
        return
      case 'item/completed':
        if (ofTurn) itemCompleted(this.#items, turn, params.item as Item)
        return
      case 'item/agentMessage/delta':
        if (ofTurn && this.#config.includePartialMessages === true) {
          turn.stream ??= new StreamEventWriter((event) => this.#turns.emit({ type: 'stream_delta', event, parentToolUseId: null, uuid: randomUUID() }), this.#model ?? this.#defaultModel)
          turn.stream.text(String(params.delta ?? ''))
        }
        return
      case 'thread/tokenUsage/updated':
        // After a resume codex repeats the previous turn's usage under that turn's id: filter by turn (reference §9).
        if (ofTurn) this.#lastContext = noteTokenUsage(turn.usage, params.tokenUsage) ?? this.#lastContext
        return
      case 'item/autoApprovalReview/completed':
        // Codex's own reviewer decided an escalation under `auto` (reference §8): shown, not asked.
        return this.#turns.emit({ type: 'sdk_event', payload: { type: 'codex_auto_review', targetItemId: params.targetItemId, review: params.review, action: params.action } })
      case 'account/rateLimits/updated': {
        // Codex sends this after every model request, windows null when the provider reports none: only readings pass.
        const limits = params.rateLimits as Json | undefined
        if (limits && (limits.primary || limits.secondary || limits.rateLimitReachedType)) this.#turns.emit({ type: 'rate_limit', info: limits })
        return
      }
      case 'error':
        if (ofTurn && params.willRetry !== true) turn.lastError = String((params.error as Json | undefined)?.message ?? 'codex reported an error')
        return
      case 'serverRequest/resolved':
        return this.#asks.withdrawn(params.requestId)
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
    subAgentItem((body) => this.#turns.emit(body), item, `${turn.nonce}:${thread}:${item.id}`, this.#subAgents.parentOf(thread))
  }

  #finishTurn(turn: Turn, status: string, error: string | undefined): void {
    this.#turn = undefined
    this.#turnCount += 1
    turn.stream?.finish(status === 'completed' ? 'end_turn' : undefined)
    // Anything still asked when the turn ends is denied (engine-facts §2: turn end sweeps approvals).
    this.#turns.denyApprovals('the turn ended')
    const ok = status === 'completed'
    if (ok) this.#respawn.noteSuccess()
    const outcome = ok ? successOutcome(turn.lastText)
      : status === 'interrupted' ? interruptedOutcome() : errorOutcome(error ?? turn.lastError ?? `the turn ended with status ${status}`)
    this.#turns.endTurn(outcome, { durationMs: Date.now() - turn.started, numTurns: this.#turnCount, totalCostUsd: 0, usage: turn.usage }, { contextUsage: this.#lastContext, stayBusy: this.#queue.length > 0 })
    this.#pump()
  }

  /** Starts the next queued message as a turn when none runs. */
  #pump(): void {
    if (this.#turn || this.#turns.closed) return
    if (!this.#ready) {
      // A dead child is replaced only when there is a message for it.
      if (!this.#peer && !this.#respawning && this.#threadId !== undefined && this.#queue.length) void this.#respawnPeer()
      return
    }
    const next = this.#queue.shift()
    if (!next) return
    const turn = newTurn(this.#interruptNext)
    this.#interruptNext = false
    this.#turn = turn
    this.#turns.core.setStatus('running')
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
      if (this.#turns.closed || this.#turn !== turn) return
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

  info(): SessionInfo {
    return this.#turns.info()
  }

  subscribe(listener: EventListener, afterSeq = 0): () => void {
    return this.#turns.subscribe(listener, afterSeq)
  }

  producedFiles(): ProducedFile[] {
    return this.#produced.list()
  }

  /** Codex's MCP servers come from its config.toml (none per session). */
  async mcpServers(): Promise<unknown[] | undefined> {
    if (!this.#peer?.alive || !this.#ready) return []
    return mcpStatusRows(await this.#peer.request('mcpServerStatus/list', {}, this.#settings.requestTimeoutMs))
  }

  sendMessage(text: string, attachments: OutgoingAttachment[] = [], origin?: MessageOrigin): void {
    this.#turns.assertOpen()
    // Codex echoes the input as a userMessage item; the runner reports it itself, once, at once.
    this.#turns.core.emit({
      type: 'user_message', message: { role: 'user', content: text },
      ...(attachments.length ? { attachments: attachments.map(metadataOf) } : {}), ...(origin ? { origin } : {}),
    })
    this.#queue.push({ text, attachments })
    if (this.#turns.unasked) this.#turns.core.setStatus('running')
    this.#pump()
  }

  setTitle(title: string | undefined): void {
    this.#turns.setTitle(title)
  }

  resolvePermission(requestId: string, decision: PermissionDecision, by: ResolvedBy): boolean {
    return this.#turns.approvals?.resolve(requestId, decision, by) ?? false
  }

  interrupt(): void {
    const turn = this.#turn
    if (this.#turns.closed) return
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
    this.#turns.changeMode(mode)
    // Applied at the next turn/start: a running turn's sandbox is fixed.
    this.#mode = mode
    this.#turns.modeChanged(mode)
  }

  setModel(model: string | undefined): void {
    this.#turns.assertOpen()
    this.#model = model
    this.#turns.modelChanged(model)
  }

  fail(message: string): void {
    this.#turns.fail(message, (reason) => this.close(reason))
  }

  close(reason: SessionClosedReason = 'client'): void {
    this.#turns.close(reason, () => {
      this.#queue = []
      this.#peer?.close()
      for (const dir of this.#tempDirs.splice(0)) void rm(dir, { recursive: true, force: true }).catch(() => undefined)
    })
  }
}
