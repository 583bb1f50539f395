/**
 * A cli_primary session on the Claude Agent SDK: one `query()` with streaming input per session,
 * its messages mapped onto the spec's events, approvals through `canUseTool`. Nothing here knows
 * whether the executable is the real CLI or our fake: only the path and environment differ.
 */
import type { Options, Query } from '@anthropic-ai/claude-agent-sdk'
import type { MessageOrigin, PermissionMode, ResolvedBy, SessionClosedReason, SessionInfo } from '../../protocol/index.ts'
import type { EventListener } from '../../sessions/event-log.ts'
import type { PermissionDecision, ProducedFile, Runner, RunnerConfig } from '../../sessions/runner.ts'
import { SessionCore, type SessionCoreRestore } from '../../sessions/session-core.ts'
import type { RunnerSnapshot } from '../../sessions/session-store.ts'
import { dormantSnapshot } from '../dormancy.ts'
import { questionBehaviorOf } from '../questions.ts'
import { errorOutcome, interruptedOutcome, TurnMachinery, type TurnOutcome } from '../turn-machinery.ts'
import { RespawnPolicy, type RespawnOptions } from '../respawn.ts'
import { Approvals } from './approvals.ts'
import { InputQueue } from './input-queue.ts'
import { ProducedFiles } from './produced.ts'
import { queryOptions } from './query-options.ts'
import { loadClaudeAgentSdk, type ClaudeAgentSdk } from './sdk.ts'
import type { PeerPort } from '../../sessions/peers.ts'
import { metadataOf, type OutgoingAttachment } from '../../sessions/attachments.ts'
import type { QuestionBehavior } from '../../protocol/index.ts'
import { replayTranscript } from './replay.ts'
import { UnstartedTurn } from './unstarted-turn.ts'
import { InitReport } from './init-report.ts'
import { blockOf, stripSecrets } from './sdk-shapes.ts'
import { shapeModels, type CliModelRow } from './models.ts'
import { toolRequests } from './tool-requests.ts'
import { dispatchMessage, type MessageSink } from './sdk-messages.ts'

export interface CliRunnerSettings {
  /** SDK options the adapter derived from its configuration and the profile (executable, env, ...). */
  sdkOptions: Partial<Options>
  questionBehavior: QuestionBehavior
  onNotice(message: string): void
  /** This session's peer messaging, served to the CLI as an in-process MCP server. */
  peers?: PeerPort
  /** A dormant session waking: numbering goes on after `restore.seq` (config.resume names the conversation). */
  restore?: SessionCoreRestore
  /** A dead CLI process: respawn and resume the conversation, failing the session only on a crash loop. */
  respawn?: RespawnOptions
}

export class ClaudeRunner implements Runner {
  readonly id: string
  readonly #turns: TurnMachinery
  #config: RunnerConfig
  #settings: CliRunnerSettings
  #input = new InputQueue()
  #query: Query | undefined
  #started: Promise<void> | undefined
  #turnActive = false
  /** The CLI announced this turn (system_init); before that it may not act on an interrupt. */
  #turnStarted = false
  #interruptPending = false
  #unstarted = new UnstartedTurn()
  /** The client interrupted the running turn: its result is reported as an interrupt whatever the CLI says. */
  #interrupted = false
  /** The SDK session id to resume from: known at system_init, renewed by /clear (embedding-rules.14). */
  #resumeId: string | undefined
  /**
   * The CLI has stored that conversation: a turn of it ended. The real CLI keeps nothing of a
   * conversation killed in its first turn ("No conversation found with session ID" on resume).
   */
  #resumable = false
  #sdk: ClaudeAgentSdk | undefined
  #respawn: RespawnPolicy
  /** A respawn is waiting out its backoff: input goes to the queue the new process will read. */
  #respawning = false
  #produced: ProducedFiles
  /** Relay depth of the latest peer message this session received (0 after a human's). */
  #hops = 0
  /** `/clear` waits for a running turn (session-status-values.9); its result is the reset, not a turn. */
  #clearQueued = false
  #clearing = false
  /** The CLI announced a reset (its `conversation_reset` message): the result that follows is the reset's, not a turn's. */
  #resetAnnounced = false
  readonly #init: InitReport
  readonly #requests: ReturnType<typeof toolRequests>
  readonly #sink: MessageSink

  constructor(config: RunnerConfig, settings: CliRunnerSettings) {
    this.id = config.id
    this.#config = config
    this.#settings = settings
    this.#turns = new TurnMachinery('cli_primary', new SessionCore(config, settings.restore), (emit) => new Approvals(emit, config.approvalTimeoutMs as number | null | undefined))
    this.#init = new InitReport((body) => this.#turns.emit(body))
    this.#requests = toolRequests({
      turns: this.#turns, peersOn: settings.peers !== undefined, turnActive: () => this.#turnActive,
      // The CLI ends that turn with its own errors; the client asked for an interrupt.
      interrupted: () => { if (this.#turnActive) this.#interrupted = true },
      // The session's own choice wins over the adapter's default.
      questionBehavior: () => questionBehaviorOf(config.questionBehavior, settings.questionBehavior),
    })
    this.#respawn = new RespawnPolicy(settings.respawn)
    if (typeof config.resume === 'string' && config.forkSession !== true) {
      this.#resumeId = config.resume
      this.#resumable = true
    }
    this.#produced = new ProducedFiles(config.cwd)
    this.#sink = {
      emit: (body) => this.#turns.emit(body), produced: this.#produced,
      onInit: (init) => this.#onInit(init), onResult: (r) => this.#onResult(r), onReset: (id, byClear) => this.#onReset(id, byClear),
    }
  }

  start(): Promise<void> {
    return (this.#started ??= this.#boot())
  }

  async #boot(): Promise<void> {
    const config = this.#config
    const sdk = (this.#sdk = await loadClaudeAgentSdk())
    const configDir = (this.#settings.sdkOptions.env as Record<string, string> | undefined)?.CLAUDE_CONFIG_DIR
    if (typeof config.resume === 'string') {
      const missing = await replayTranscript((body) => this.#turns.emit(body), configDir, config.resume, config.cwd)
      // A dormant session's wake (embedding-rules.14) must bring its conversation back: resumed
      // empty, the client would hold an empty history under the old session's id without a word.
      if (missing && config.wakeFromDormant === true) {
        return this.fail(`the session's conversation cannot be resumed in this process: ${missing} (the CLI's configuration directory must be readable here, at the same path)`)
      }
      if (missing) this.#turns.emit({ type: 'sdk_event', payload: { type: 'gateway_notice', message: `${missing}; the resumed session starts empty` } })
    }
    this.#query = this.#startQuery(sdk, typeof config.resume === 'string' ? config.resume : undefined, config.forkSession === true)
    // Without a prompt the CLI says nothing until the first message: the session is idle now (engine-facts §1).
    this.#turns.core.setStatus('idle')
    void this.#loadCapabilities(this.#query)
    const prompt = config.prompt
    if (typeof prompt === 'string' && prompt.trim()) this.sendMessage(prompt)
  }

  /** One CLI process reading `this.#input`; the session's current model and mode, resuming `resume` when given. */
  #startQuery(sdk: ClaudeAgentSdk, resume: string | undefined, fork: boolean): Query {
    const q = sdk.query({
      prompt: this.#input,
      options: queryOptions(sdk, {
        config: this.#config, sdkOptions: this.#settings.sdkOptions, peers: this.#settings.peers, model: this.#turns.core.model,
        permissionMode: this.#turns.core.permissionMode, resume, fork, requests: this.#requests, hops: () => this.#hops,
      }),
    })
    void this.#consume(q)
    return q
  }

  /**
   * The CLI process died outside a shutdown: a running turn ends with an error result,
   * the session stays usable, and the next input respawns the CLI on the same conversation. A
   * crash loop (deaths with no successful turn between them) fails the session.
   */
  #onDeath(q: Query, summary: string): void {
    if (this.#turns.closed || this.#query !== q) return
    this.#query = undefined
    this.#input.end()
    if (!this.#respawn.noteDeath()) return this.fail(`the Claude Code process kept exiting (${summary})`)
    // Before the CLI named a conversation there is nothing to resume: the session fails as before.
    if (this.#resumeId === undefined) return this.fail(summary)
    const next = this.#resumable ? `restarts the CLI on conversation ${this.#resumeId}` : 'starts a new conversation (the CLI stored none of this one)'
    this.#turns.notice(`${summary}; the next message ${next}`)
    this.#turns.denyApprovals('the Claude Code process exited')
    this.#clearing = false
    this.#clearQueued = false
    if (this.#turnActive) {
      this.#turnActive = false
      this.#interrupted = false
      this.#endTurnHere(errorOutcome(summary), true)
    }
    this.#turns.core.setStatus('idle')
  }

  /** Input for a dead CLI: a fresh queue now, read by a process resumed after the crash loop's backoff. */
  #ensureProcess(): void {
    if (this.#query || this.#respawning || !this.#sdk || this.#turns.closed) return
    const sdk = this.#sdk
    this.#input = new InputQueue()
    this.#respawning = true
    setTimeout(() => {
      this.#respawning = false
      if (this.#turns.closed) return
      this.#query = this.#startQuery(sdk, this.#resumable ? this.#resumeId : undefined, false)
    }, this.#respawn.delayMs)
  }

  async #loadCapabilities(q: Query): Promise<void> {
    try {
      const init = await q.initializationResult()
      const { models, defaultModel } = shapeModels((init.models ?? []) as CliModelRow[])
      this.#turns.emit({ type: 'capabilities', models, commands: init.commands ?? [], ...(defaultModel ? { defaultModel } : {}) })
      const account = (init as { account?: { apiKeySource?: string; subscriptionType?: string } }).account
      if (account?.apiKeySource) this.#init.apiKeySource = account.apiKeySource
      this.#init.notePlan(account?.subscriptionType)
    } catch {
      // A CLI that cannot answer initialize still streams; the session just has no model list.
    }
  }

  async #consume(q: Query): Promise<void> {
    try {
      for await (const message of q) dispatchMessage(message, this.#sink)
      this.#onDeath(q, 'the Claude Code process ended unexpectedly')
    } catch (err) {
      this.#onDeath(q, `the Claude Code process failed: ${(err as Error).message}`)
    }
  }

  #onInit(init: Record<string, unknown>): void {
    this.#turnStarted = true
    this.#unstarted.started()
    if (this.#interruptPending) {
      // The real CLI ignores an interrupt that arrives before it has started the turn.
      this.#interruptPending = false
      void this.#query?.interrupt().catch(() => undefined)
    }
    if (typeof init.session_id === 'string' && init.session_id !== this.#resumeId) {
      this.#resumeId = init.session_id
      this.#resumable = false
    }
    const apiKeySource = this.#init.init(init, this.#turns.core.permissionMode)
    if (apiKeySource === 'oauth') {
      if (this.#config.requireApiKey === true) return this.fail('this server requires an API key, and the session signed in with a subscription (apiKeySource oauth)')
      this.#settings.onNotice(`session ${this.id} runs on a subscription login (apiKeySource oauth), not an API key`)
    }
  }

  /** The dormant record's content: the SDK session id and the seq numbering (embedding-rules.14). */
  snapshot(): RunnerSnapshot | undefined {
    return dormantSnapshot(this.#turns.core, this.#resumable ? this.#resumeId : undefined)
  }

  producedFiles(): ProducedFile[] {
    return this.#produced.list()
  }

  async mcpServers(): Promise<unknown[] | undefined> {
    if (!this.#query || this.#turns.closed) return []
    const servers = await this.#query.mcpServerStatus()
    return servers.map(stripSecrets)
  }

  async mcpServerAction(name: string, action: 'reconnect' | 'enable' | 'disable'): Promise<void> {
    this.#turns.assertOpen()
    if (!this.#query) throw new Error('session is closed')
    if (action === 'reconnect') await this.#query.reconnectMcpServer(name)
    else await this.#query.toggleMcpServer(name, action === 'enable')
  }

  /**
   * A fresh conversation: the one to resume from now, before any next system_init (engine-facts §1).
   * `byClear`: /clear's own result follows; a reset inside a turn (plan-mode exit) ends with that turn's.
   */
  #onReset(conversationId: string, byClear: boolean): void {
    this.#resumeId = conversationId
    this.#resumable = true
    if (byClear) this.#resetAnnounced = true
    this.#turns.emit({ type: 'conversation_reset', sdkSessionId: conversationId })
  }

  /** The result that closes a reset: no `turn_result`; a CLI that announced no reset gets it from the result's id. */
  #onResetResult(r: Record<string, unknown>): void {
    const typed = !this.#clearing
    this.#clearing = false
    if (!this.#resetAnnounced && typeof r.session_id === 'string') this.#onReset(r.session_id, true)
    this.#resetAnnounced = false
    if (typed) {
      this.#turnActive = false
      this.#interrupted = false
      if (this.#clearQueued) {
        this.#clearQueued = false
        queueMicrotask(() => this.#startClear())
      }
    }
    if (this.#turns.unasked) this.#turns.core.setStatus('idle')
    void this.#pollContextUsage()
  }

  #onResult(r: Record<string, unknown>): void {
    if (this.#clearing || this.#resetAnnounced) return this.#onResetResult(r)
    this.#turnActive = false
    this.#interruptPending = false
    // A result after this turn's system_init: the CLI has written the conversation to its store.
    if (this.#turnStarted) this.#resumable = true
    const interrupted = this.#interrupted && (r.subtype !== 'success' || r.is_error === true)
    if (r.subtype === 'success' && r.is_error !== true) this.#respawn.noteSuccess()
    this.#interrupted = false
    if (this.#clearQueued) {
      this.#clearQueued = false
      queueMicrotask(() => this.#startClear())
    }
    const usage = r.usage as Record<string, number> | undefined
    const outcome = interrupted
      ? interruptedOutcome()
      : { subtype: String(r.subtype), isError: r.is_error === true, ...(typeof r.result === 'string' ? { result: r.result } : {}), ...(Array.isArray(r.errors) ? { errors: r.errors as string[] } : {}) }
    // A turn that ends under a standing approval stays awaiting it; the approval's answer settles it to idle.
    this.#turns.endTurn(outcome, { durationMs: Number(r.duration_ms ?? 0), numTurns: Number(r.num_turns ?? 0), totalCostUsd: Number(r.total_cost_usd ?? 0), ...(usage ? { usage } : {}) })
    void this.#pollContextUsage()
  }

  async #pollContextUsage(): Promise<void> {
    try {
      const usage = await this.#query?.getContextUsage()
      if (usage) this.#turns.emit({ type: 'context_usage', usage })
    } catch {
      // An engine without the method simply reports nothing.
    }
  }

  info(): SessionInfo {
    return this.#turns.info()
  }

  subscribe(listener: EventListener, afterSeq = 0): () => void {
    return this.#turns.subscribe(listener, afterSeq)
  }

  sendMessage(text: string, attachments: OutgoingAttachment[] = [], origin?: MessageOrigin): void {
    this.#turns.assertOpen()
    // The SDK never echoes streamed input, so the runner reports the message itself (engine-facts §1).
    this.#turns.core.emit({
      type: 'user_message', message: { role: 'user', content: text }, parentToolUseId: null,
      ...(attachments.length ? { attachments: attachments.map(metadataOf) } : {}), ...(origin ? { origin } : {}),
    })
    if (!this.#turnActive) this.#interrupted = false
    this.#turnActive = true
    this.#turnStarted = false
    this.#hops = origin?.hops ?? 0
    if (this.#turns.unasked) this.#turns.core.setStatus('running')
    this.#ensureProcess()
    this.#unstarted.pushed(this.#input.push(attachments.length ? [...attachments.map(blockOf), { type: 'text', text }] as never : text))
  }

  clearContext(): void {
    this.#turns.assertOpen()
    if (this.#turnActive || this.#clearing) this.#clearQueued = true
    else this.#startClear()
  }

  #startClear(): void {
    if (this.#turns.closed) return
    this.#clearing = true
    this.#ensureProcess()
    this.#input.push('/clear')
  }

  setTitle(title: string | undefined): void {
    this.#turns.setTitle(title)
  }

  resolvePermission(requestId: string, decision: PermissionDecision, by: ResolvedBy): boolean {
    return this.#turns.approvals?.resolve(requestId, decision, by) ?? false
  }

  interrupt(): void {
    if (this.#turns.closed) return
    if (this.#turnActive) this.#interrupted = true
    if (!this.#turnActive || this.#turnStarted) return void this.#query?.interrupt().catch(() => undefined)
    // Not started yet: its messages are withdrawn, or it is interrupted again at its system_init.
    this.#interruptPending = true
    const q = this.#query
    void this.#unstarted.withdraw(q).then((withdrawn) => {
      if (withdrawn === 'none' || q !== this.#query || !this.#turnActive || this.#turnStarted) return
      this.#interruptPending = false
      this.#interrupted = false
      if (withdrawn === 'part') return // the messages sent since still run, as this turn
      this.#turnActive = false
      this.#endTurnHere(interruptedOutcome())
    })
  }

  /** A turn the CLI will report nothing more of (its process died, its messages were withdrawn) ends here, with the session's figures so far. */
  #endTurnHere(outcome: TurnOutcome, stayBusy = false): void {
    const info = this.#turns.info()
    this.#turns.endTurn(outcome, { durationMs: 0, numTurns: info.numTurns, totalCostUsd: info.totalCostUsd }, { stayBusy })
  }

  setPermissionMode(mode: PermissionMode): void {
    this.#turns.changeMode(mode)
    void this.#query?.setPermissionMode(mode).catch(() => undefined)
    this.#turns.modeChanged(mode)
  }

  setModel(model: string | undefined): void {
    this.#turns.assertOpen()
    void this.#query?.setModel(model).catch(() => undefined)
    this.#turns.modelChanged(model)
  }

  fail(message: string): void {
    this.#turns.fail(message, (reason) => this.close(reason))
  }

  close(reason: SessionClosedReason = 'client'): void {
    this.#turns.close(reason, () => {
      this.#input.end()
      try { this.#query?.close() } catch { /* the process may already be gone */ }
    })
  }
}
