/**
 * A cli_primary session on the Claude Agent SDK: one `query()` with streaming input per session,
 * its messages mapped onto the spec's events, approvals through `canUseTool`. Nothing here knows
 * whether the executable is the real CLI or our fake: only the path and environment differ.
 */
import { randomUUID } from 'node:crypto'
import type { CanUseTool, OnElicitation, Options, PermissionResult, Query, SDKMessage, SessionMessage } from '@anthropic-ai/claude-agent-sdk'
import {
  ENGINE_CAPABILITIES, type MessageOrigin, type PermissionMode, type ResolvedBy, type SessionClosedReason, type SessionEventBody, type SessionInfo,
} from '../../protocol/index.ts'
import type { EventListener } from '../../sessions/event-log.ts'
import type { PermissionDecision, ProducedFile, Runner, RunnerConfig } from '../../sessions/runner.ts'
import { SessionCore, type SessionCoreRestore } from '../../sessions/session-core.ts'
import type { RunnerSnapshot } from '../../sessions/session-store.ts'
import { dormantSnapshot } from '../dormancy.ts'
import { elicitationAnswer, elicitationAsk } from '../elicitation.ts'
import { QUESTION_TOOL, settleQuestionByPolicy, type Question } from '../questions.ts'
import { INTERRUPTED_RESULT, isInterruptMarker } from '../interrupted.ts'
import { RespawnPolicy, type RespawnOptions } from '../respawn.ts'
import { Approvals } from './approvals.ts'
import { InputQueue } from './input-queue.ts'
import { ProducedFiles } from './produced.ts'
import { PEER_SERVER, PEER_TOOL_NAMES, peerServer } from './peer-tools.ts'
import { loadClaudeAgentSdk, type ClaudeAgentSdk } from './sdk.ts'
import type { PeerPort } from '../../sessions/peers.ts'
import { metadataOf, type OutgoingAttachment } from '../../sessions/attachments.ts'
import type { PermissionRequest, QuestionBehavior, RawStreamEvent } from '../../protocol/index.ts'
import { transcriptMessages } from './transcripts.ts'
import { blockOf, isToolResult, permissionRequest, stripSecrets, toolTitles, toPermissionResult, uuidOf } from './sdk-shapes.ts'
import { shapeModels, type CliModelRow } from './models.ts'


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
  #core: SessionCore
  #config: RunnerConfig
  #settings: CliRunnerSettings
  #input = new InputQueue()
  #query: Query | undefined
  #approvals: Approvals
  #started: Promise<void> | undefined
  #turnActive = false
  /** The CLI announced this turn (system_init); before that it may not act on an interrupt. */
  #turnStarted = false
  #interruptPending = false
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
  #skills: string | undefined
  /** `/clear` waits for a running turn (session-status-values.9); its result is the reset, not a turn. */
  /** Relay depth of the latest peer message this session received (0 after a human's). */
  #hops = 0
  #clearQueued = false
  #clearing = false
  #toolTitles: string | undefined
  #planType: string | undefined
  #apiKeySource = 'none'

  constructor(config: RunnerConfig, settings: CliRunnerSettings) {
    this.id = config.id
    this.#config = config
    this.#settings = settings
    this.#core = new SessionCore(config, settings.restore)
    this.#respawn = new RespawnPolicy(settings.respawn)
    if (typeof config.resume === 'string' && config.forkSession !== true) {
      this.#resumeId = config.resume
      this.#resumable = true
    }
    this.#produced = new ProducedFiles(config.cwd)
    this.#approvals = new Approvals((body) => this.#emit(body), config.approvalTimeoutMs as number | null | undefined)
  }

  start(): Promise<void> {
    return (this.#started ??= this.#boot())
  }

  async #boot(): Promise<void> {
    const config = this.#config
    const sdk = (this.#sdk = await loadClaudeAgentSdk())
    if (typeof config.resume === 'string') await this.#backfill(config.resume)
    this.#query = this.#startQuery(sdk, typeof config.resume === 'string' ? config.resume : undefined, config.forkSession === true)
    // Without a prompt the CLI says nothing until the first message: the session is idle now (engine-facts §1).
    this.#core.setStatus('idle')
    void this.#loadCapabilities(this.#query)
    const prompt = config.prompt
    if (typeof prompt === 'string' && prompt.trim()) this.sendMessage(prompt)
  }

  /** One CLI process reading `this.#input`; the session's current model and mode, resuming `resume` when given. */
  #startQuery(sdk: ClaudeAgentSdk, resume: string | undefined, fork: boolean): Query {
    const config = this.#config
    const model = this.#core.model
    const q = sdk.query({
      prompt: this.#input,
      options: {
        // A sub-agent's own text and thinking reach the client, not only its tool calls (engine-facts §1); a host's sdkOptions may turn it off.
        forwardSubagentText: true,
        ...this.#settings.sdkOptions,
        cwd: config.cwd,
        ...(model ? { model } : {}),
        permissionMode: this.#core.permissionMode,
        ...(config.canBypassPermissions ? { allowDangerouslySkipPermissions: true } : {}),
        includePartialMessages: config.includePartialMessages === true,
        ...(resume ? { resume } : {}),
        ...(fork ? { forkSession: true } : {}),
        ...(typeof config.maxTurns === 'number' ? { maxTurns: config.maxTurns } : {}),
        ...(Array.isArray(config.allowedTools) ? { allowedTools: config.allowedTools as string[] } : {}),
        ...(Array.isArray(config.disallowedTools) ? { disallowedTools: config.disallowedTools as string[] } : {}),
        ...this.#mcpOptions(sdk),
        canUseTool: this.#canUseTool,
        onElicitation: this.#onElicitation,
      },
    })
    void this.#consume(q)
    return q
  }

  /**
   * The CLI process died outside a shutdown (issue 24): a running turn ends with an error result,
   * the session stays usable, and the next input respawns the CLI on the same conversation. A
   * crash loop (deaths with no successful turn between them) fails the session.
   */
  #onDeath(q: Query, summary: string): void {
    if (this.#core.closed || this.#query !== q) return
    this.#query = undefined
    this.#input.end()
    if (!this.#respawn.noteDeath()) return this.fail(`the Claude Code process kept exiting (${summary})`)
    // Before the CLI named a conversation there is nothing to resume: the session fails as before.
    if (this.#resumeId === undefined) return this.fail(summary)
    const next = this.#resumable ? `restarts the CLI on conversation ${this.#resumeId}` : 'starts a new conversation (the CLI stored none of this one)'
    this.#emit({ type: 'sdk_event', payload: { type: 'gateway_notice', message: `${summary}; the next message ${next}` } })
    this.#approvals.denyAll('the Claude Code process exited')
    this.#clearing = false
    this.#clearQueued = false
    if (this.#turnActive) {
      this.#turnActive = false
      this.#interrupted = false
      const info = this.#core.info()
      this.#emit({ type: 'turn_result', subtype: 'error_during_execution', isError: true, errors: [summary], durationMs: 0, numTurns: info.numTurns, totalCostUsd: info.totalCostUsd })
    }
    this.#core.setStatus('idle')
  }

  /** Input for a dead CLI: a fresh queue now, read by a process resumed after the crash loop's backoff. */
  #ensureProcess(): void {
    if (this.#query || this.#respawning || !this.#sdk || this.#core.closed) return
    const sdk = this.#sdk
    this.#input = new InputQueue()
    this.#respawning = true
    setTimeout(() => {
      this.#respawning = false
      if (this.#core.closed) return
      this.#query = this.#startQuery(sdk, this.#resumable ? this.#resumeId : undefined, false)
    }, this.#respawn.delayMs)
  }

  /**
   * A resumed thread's history, read from the CLI's transcript and emitted as `replay` messages
   * (events.10): the SDK re-sends none of it. A missing transcript is surfaced, not hidden.
   */
  async #backfill(sdkSessionId: string): Promise<void> {
    const configDir = (this.#settings.sdkOptions.env as Record<string, string> | undefined)?.CLAUDE_CONFIG_DIR
    let messages: SessionMessage[]
    try {
      messages = await transcriptMessages(configDir, sdkSessionId, this.#config.cwd)
    } catch (err) {
      messages = []
      this.#emit({ type: 'sdk_event', payload: { type: 'gateway_notice', message: `could not read the transcript of ${sdkSessionId}: ${(err as Error).message}` } })
    }
    if (!messages.length) this.#emit({ type: 'sdk_event', payload: { type: 'gateway_notice', message: `no stored transcript for ${sdkSessionId}; the resumed session starts empty` } })
    for (const m of messages) {
      const parent = m.parent_tool_use_id ?? null
      if (m.type === 'assistant') this.#emit({ type: 'assistant_message', message: m.message as never, parentToolUseId: parent, replay: true })
      else if (m.type === 'user') this.#emit({ type: 'user_message', message: m.message as never, parentToolUseId: parent, replay: true, ...(isToolResult(m.message) || isInterruptMarker(m.message) ? { synthetic: true } : {}) })
    }
  }

  /**
   * The session's own MCP servers plus, with peers on, the in-process peer server. Its tools are
   * allowed in canUseTool, not by bare `allowedTools` entries: those would shadow the callback for
   * them (the SDK's CLAUDE_SDK_CAN_USE_TOOL_SHADOWED warning on every session).
   */
  #mcpOptions(sdk: ClaudeAgentSdk): Partial<Options> {
    const own = (this.#config.mcpServers ?? {}) as NonNullable<Options['mcpServers']>
    const peers = this.#settings.peers
    if (!peers) return Object.keys(own).length ? { mcpServers: own } : {}
    return { mcpServers: { ...own, [PEER_SERVER]: peerServer(sdk, peers, () => this.#hops) } }
  }

  async #loadCapabilities(q: Query): Promise<void> {
    try {
      const init = await q.initializationResult()
      const { models, defaultModel } = shapeModels((init.models ?? []) as CliModelRow[])
      this.#emit({ type: 'capabilities', models, commands: init.commands ?? [], ...(defaultModel ? { defaultModel } : {}) })
      const account = (init as { account?: { apiKeySource?: string; subscriptionType?: string } }).account
      if (account?.apiKeySource) this.#apiKeySource = account.apiKeySource
      this.#notePlan(account?.subscriptionType)
    } catch {
      // A CLI that cannot answer initialize still streams; the session just has no model list.
    }
  }

  async #consume(q: Query): Promise<void> {
    try {
      for await (const message of q) this.#onMessage(message)
      this.#onDeath(q, 'the Claude Code process ended unexpectedly')
    } catch (err) {
      this.#onDeath(q, `the Claude Code process failed: ${(err as Error).message}`)
    }
  }

  #onMessage(m: SDKMessage): void {
    const raw = m as Record<string, unknown> & { type: string; subtype?: string }
    const parent = (raw.parent_tool_use_id as string | null | undefined) ?? null
    switch (raw.type) {
      case 'system':
        // Everything else, `status` included, passes through untouched (events.19).
        if (raw.subtype === 'init') return this.#onInit(raw)
        return this.#emit({ type: 'sdk_event', payload: raw })
      case 'assistant':
        this.#produced.noteToolUses((raw.message as { content?: unknown } | undefined)?.content)
        return this.#emit({ type: 'assistant_message', message: raw.message as never, parentToolUseId: parent, ...uuidOf(raw) })
      case 'user': {
        this.#emit({ type: 'user_message', message: raw.message as never, parentToolUseId: parent, synthetic: true, ...uuidOf(raw) })
        for (const file of this.#produced.collect((raw.message as { content?: unknown } | undefined)?.content)) this.#emit({ type: 'file_produced', ...file })
        return
      }
      case 'stream_event':
        // The SDK's raw Messages-API event passes through untouched: it already is protocol 7's shape (events.11).
        return this.#emit({ type: 'stream_delta', event: raw.event as RawStreamEvent, parentToolUseId: parent, uuid: String(raw.uuid ?? randomUUID()) })
      case 'rate_limit_event':
        return this.#emit({ type: 'rate_limit', info: raw.rate_limit_info })
      case 'result':
        return this.#onResult(raw)
      default:
        return this.#emit({ type: 'sdk_event', payload: raw })
    }
  }

  #onInit(init: Record<string, unknown>): void {
    this.#turnStarted = true
    if (this.#interruptPending) {
      // The real CLI ignores an interrupt that arrives before it has started the turn.
      this.#interruptPending = false
      void this.#query?.interrupt().catch(() => undefined)
    }
    if (typeof init.session_id === 'string' && init.session_id !== this.#resumeId) {
      this.#resumeId = init.session_id
      this.#resumable = false
    }
    const apiKeySource = String(init.apiKeySource ?? this.#apiKeySource)
    this.#apiKeySource = apiKeySource
    this.#emit({
      type: 'system_init', sdkSessionId: String(init.session_id), model: init.model as string | undefined, cwd: init.cwd as string | undefined,
      apiKeySource, tools: (init.tools as string[]) ?? [], skills: (init.skills as string[]) ?? [], slashCommands: (init.slash_commands as string[]) ?? [],
      permissionMode: (init.permissionMode as PermissionMode) ?? this.#core.permissionMode, claudeCodeVersion: init.claude_code_version as string | undefined,
      mcpServers: (init.mcp_servers as Array<{ name: string; status: string }>) ?? [],
    })
    this.#noteSkillsAndTools(init)
    if (apiKeySource === 'oauth') {
      if (this.#config.requireApiKey === true) return this.fail('this server requires an API key, and the session signed in with a subscription (apiKeySource oauth)')
      this.#settings.onNotice(`session ${this.id} runs on a subscription login (apiKeySource oauth), not an API key`)
    }
  }

  /** `skills` and `tool_titles` follow init, and again only when they change (events.15-16). */
  #noteSkillsAndTools(init: Record<string, unknown>): void {
    const skills = ((init.skills as unknown[]) ?? []).map((s) => (typeof s === 'string' ? { name: s, enabled: true } : s))
    const skillsKey = JSON.stringify(skills)
    if (skillsKey !== this.#skills) {
      this.#skills = skillsKey
      this.#emit({ type: 'skills', skills })
    }
    const titles = toolTitles((init.tools as string[]) ?? [])
    const titlesKey = JSON.stringify(titles)
    if (titlesKey !== this.#toolTitles) {
      this.#toolTitles = titlesKey
      this.#emit({ type: 'tool_titles', titles })
    }
  }

  /** The dormant record's content: the SDK session id and the seq numbering (embedding-rules.14). */
  snapshot(): RunnerSnapshot | undefined {
    return dormantSnapshot(this.#core, this.#resumable ? this.#resumeId : undefined)
  }

  producedFiles(): ProducedFile[] {
    return this.#produced.list()
  }

  async mcpServers(): Promise<unknown[] | undefined> {
    if (!this.#query || this.#core.closed) return []
    const servers = await this.#query.mcpServerStatus()
    return servers.map(stripSecrets)
  }

  async mcpServerAction(name: string, action: 'reconnect' | 'enable' | 'disable'): Promise<void> {
    if (!this.#query || this.#core.closed) throw new Error('session is closed')
    if (action === 'reconnect') await this.#query.reconnectMcpServer(name)
    else await this.#query.toggleMcpServer(name, action === 'enable')
  }

  #onResult(r: Record<string, unknown>): void {
    if (this.#clearing) {
      this.#clearing = false
      // The fresh conversation is the one to resume from now, before any next system_init (engine-facts §1).
      if (typeof r.session_id === 'string') this.#resumeId = r.session_id
      this.#resumable = true
      this.#emit({ type: 'conversation_reset', sdkSessionId: String(r.session_id) })
      if (this.#approvals.size === 0) this.#core.setStatus('idle')
      return
    }
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
      ? { ...INTERRUPTED_RESULT, errors: [...INTERRUPTED_RESULT.errors] }
      : { subtype: String(r.subtype), isError: r.is_error === true, ...(typeof r.result === 'string' ? { result: r.result } : {}), ...(Array.isArray(r.errors) ? { errors: r.errors as string[] } : {}) }
    this.#emit({
      type: 'turn_result', ...outcome, durationMs: Number(r.duration_ms ?? 0), numTurns: Number(r.num_turns ?? 0), totalCostUsd: Number(r.total_cost_usd ?? 0),
      ...(usage ? { usage } : {}),
    })
    // A turn that ends under a standing approval stays awaiting it; the approval's answer settles it to idle.
    if (this.#approvals.size === 0) this.#core.setStatus('idle')
    void this.#pollContextUsage()
  }

  async #pollContextUsage(): Promise<void> {
    try {
      const usage = await this.#query?.getContextUsage()
      if (usage && !this.#core.closed) this.#emit({ type: 'context_usage', usage })
    } catch {
      // An engine without the method simply reports nothing.
    }
  }

  /** `plan_info` once per change, never for an API-key session (events.9). */
  #notePlan(subscriptionType: string | undefined): void {
    if (!subscriptionType || this.#apiKeySource !== 'oauth' || subscriptionType === this.#planType) return
    this.#planType = subscriptionType
    this.#emit({ type: 'plan_info', subscriptionType })
  }

  #canUseTool: CanUseTool = async (toolName, input, options) => {
    const { signal, toolUseID } = options
    // The gateway's own peer tools need no human: their limits are enforced by the peer service.
    if (this.#settings.peers && PEER_TOOL_NAMES.includes(toolName)) return { behavior: 'allow', updatedInput: input, toolUseID }
    const id = randomUUID()
    const request = permissionRequest(id, toolName, input, options)
    if (toolName === QUESTION_TOOL && this.#questionBehavior() !== 'ask') return this.#settleQuestion(request, input)
    this.#core.setStatus('awaiting_approval')
    const settled = await this.#approvals.ask(request, signal)
    if (!this.#core.closed) this.#core.setStatus(this.#turnActive ? 'running' : 'idle')
    return toPermissionResult(settled, input, toolUseID)
  }

  /** An MCP server's request for input goes to the client like a permission (issue 24, Deliver 3). */
  #onElicitation: OnElicitation = async (request, { signal }) => {
    const id = randomUUID()
    const ask = elicitationAsk(request)
    this.#core.setStatus('awaiting_approval')
    const settled = await this.#approvals.ask({ id, requestId: id, ...ask, ...(request.displayName ? { displayName: request.displayName } : {}), ...(request.description ? { description: request.description } : {}) }, signal)
    if (!this.#core.closed) this.#core.setStatus(this.#turnActive ? 'running' : 'idle')
    return elicitationAnswer(settled)
  }

  /** The session's own choice wins over the adapter's default. */
  #questionBehavior(): QuestionBehavior {
    const own = this.#config.questionBehavior
    return own === 'ask' || own === 'auto' || own === 'deny' ? own : this.#settings.questionBehavior
  }

  /** questionBehavior `auto` picks each question's first option, `deny` lets the model decide; both still show in the transcript. */
  #settleQuestion(request: PermissionRequest, input: Record<string, unknown>): PermissionResult {
    const questions = (input.questions as Question[] | undefined) ?? []
    const answer = settleQuestionByPolicy((body) => this.#emit(body), request, this.#questionBehavior() as Exclude<QuestionBehavior, 'ask'>, questions)
    return answer.behavior === 'deny' ? answer : { behavior: 'allow', updatedInput: { ...input, answers: answer.answers } }
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

  sendMessage(text: string, attachments: OutgoingAttachment[] = [], origin?: MessageOrigin): void {
    if (this.#core.closed) throw new Error('session is closed')
    // The SDK never echoes streamed input, so the runner reports the message itself (engine-facts §1).
    this.#core.emit({
      type: 'user_message', message: { role: 'user', content: text }, parentToolUseId: null,
      ...(attachments.length ? { attachments: attachments.map(metadataOf) } : {}), ...(origin ? { origin } : {}),
    })
    if (!this.#turnActive) this.#interrupted = false
    this.#turnActive = true
    this.#turnStarted = false
    this.#hops = origin?.hops ?? 0
    if (this.#approvals.size === 0) this.#core.setStatus('running')
    this.#ensureProcess()
    this.#input.push(attachments.length ? [...attachments.map(blockOf), { type: 'text', text }] as never : text)
  }

  clearContext(): void {
    if (this.#core.closed) throw new Error('session is closed')
    if (this.#turnActive || this.#clearing) this.#clearQueued = true
    else this.#startClear()
  }

  #startClear(): void {
    if (this.#core.closed) return
    this.#clearing = true
    this.#ensureProcess()
    this.#input.push('/clear')
  }

  setTitle(title: string | undefined): void {
    this.#core.setTitle(title)
  }

  resolvePermission(requestId: string, decision: PermissionDecision, by: ResolvedBy): boolean {
    return this.#approvals.resolve(requestId, decision, by)
  }

  interrupt(): void {
    if (this.#core.closed) return
    // Sent now (the fake and an already-running turn act on it) and again at the turn's system_init.
    if (this.#turnActive && !this.#turnStarted) this.#interruptPending = true
    if (this.#turnActive) this.#interrupted = true
    void this.#query?.interrupt().catch(() => undefined)
  }

  setPermissionMode(mode: PermissionMode): void {
    if (this.#core.closed) throw new Error('session is closed')
    if (!ENGINE_CAPABILITIES.cli_primary.permissionModes.includes(mode)) throw new Error(`permission mode '${mode}' is not supported by engine cli_primary`)
    void this.#query?.setPermissionMode(mode).catch(() => undefined)
    this.#core.emit({ type: 'permission_mode_changed', mode })
  }

  setModel(model: string | undefined): void {
    if (this.#core.closed) throw new Error('session is closed')
    void this.#query?.setModel(model).catch(() => undefined)
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
    this.#input.end()
    try { this.#query?.close() } catch { /* the process may already be gone */ }
  }
}
