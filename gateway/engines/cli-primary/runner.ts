/**
 * A cli_primary session on the Claude Agent SDK: one `query()` with streaming input per session,
 * its messages mapped onto the spec's events, approvals through `canUseTool`. Nothing here knows
 * whether the executable is the real CLI or our fake: only the path and environment differ.
 */
import { randomUUID } from 'node:crypto'
import type { CanUseTool, Options, PermissionResult, Query, SDKMessage, SessionMessage } from '@anthropic-ai/claude-agent-sdk'
import {
  ENGINE_CAPABILITIES, type MessageOrigin, type PermissionMode, type ResolvedBy, type SessionClosedReason, type SessionEventBody, type SessionInfo,
} from '../../protocol/index.ts'
import type { EventListener } from '../../sessions/event-log.ts'
import type { PermissionDecision, ProducedFile, Runner, RunnerConfig } from '../../sessions/runner.ts'
import { SessionCore } from '../../sessions/session-core.ts'
import { Approvals, DEFAULT_DENY_MESSAGE } from './approvals.ts'
import { InputQueue } from './input-queue.ts'
import { ProducedFiles } from './produced.ts'
import { PEER_SERVER, PEER_TOOL_NAMES, peerServer } from './peer-tools.ts'
import { loadClaudeAgentSdk, type ClaudeAgentSdk } from './sdk.ts'
import type { PeerPort } from '../../sessions/peers.ts'
import { metadataOf, type OutgoingAttachment } from '../../sessions/attachments.ts'
import type { PermissionRequest, QuestionBehavior, RawStreamEvent } from '../../protocol/index.ts'
import { transcriptMessages } from './transcripts.ts'
import { shapeModels, type CliModelRow } from './models.ts'


export interface CliRunnerSettings {
  /** SDK options the adapter derived from its configuration and the profile (executable, env, ...). */
  sdkOptions: Partial<Options>
  questionBehavior: QuestionBehavior
  onNotice(message: string): void
  /** This session's peer messaging, served to the CLI as an in-process MCP server. */
  peers?: PeerPort
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
    this.#core = new SessionCore(config)
    this.#produced = new ProducedFiles(config.cwd)
    this.#approvals = new Approvals((body) => this.#emit(body), config.approvalTimeoutMs as number | null | undefined)
  }

  start(): Promise<void> {
    return (this.#started ??= this.#boot())
  }

  async #boot(): Promise<void> {
    const config = this.#config
    const sdk = await loadClaudeAgentSdk()
    if (typeof config.resume === 'string') await this.#backfill(config.resume)
    this.#query = sdk.query({
      prompt: this.#input,
      options: {
        ...this.#settings.sdkOptions,
        cwd: config.cwd,
        ...(config.model ? { model: config.model } : {}),
        permissionMode: config.permissionMode,
        ...(config.canBypassPermissions ? { allowDangerouslySkipPermissions: true } : {}),
        includePartialMessages: config.includePartialMessages === true,
        ...(typeof config.resume === 'string' ? { resume: config.resume } : {}),
        ...(config.forkSession === true ? { forkSession: true } : {}),
        ...(typeof config.maxTurns === 'number' ? { maxTurns: config.maxTurns } : {}),
        ...(Array.isArray(config.allowedTools) ? { allowedTools: config.allowedTools as string[] } : {}),
        ...(Array.isArray(config.disallowedTools) ? { disallowedTools: config.disallowedTools as string[] } : {}),
        ...this.#mcpOptions(sdk),
        canUseTool: this.#canUseTool,
      },
    })
    void this.#consume(this.#query)
    // Without a prompt the CLI says nothing until the first message: the session is idle now (engine-facts §1).
    this.#core.setStatus('idle')
    void this.#loadCapabilities(this.#query)
    const prompt = config.prompt
    if (typeof prompt === 'string' && prompt.trim()) this.sendMessage(prompt)
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
      else if (m.type === 'user') this.#emit({ type: 'user_message', message: m.message as never, parentToolUseId: parent, replay: true, ...(isToolResult(m.message) ? { synthetic: true } : {}) })
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
      if (!this.#core.closed) this.fail('the Claude Code process ended unexpectedly')
    } catch (err) {
      if (!this.#core.closed) this.fail(`the Claude Code process failed: ${(err as Error).message}`)
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
      this.#emit({ type: 'conversation_reset', sdkSessionId: String(r.session_id) })
      if (this.#approvals.size === 0) this.#core.setStatus('idle')
      return
    }
    this.#turnActive = false
    this.#interruptPending = false
    if (this.#clearQueued) {
      this.#clearQueued = false
      queueMicrotask(() => this.#startClear())
    }
    const usage = r.usage as Record<string, number> | undefined
    this.#emit({
      type: 'turn_result', subtype: String(r.subtype), isError: r.is_error === true, durationMs: Number(r.duration_ms ?? 0),
      numTurns: Number(r.num_turns ?? 0), totalCostUsd: Number(r.total_cost_usd ?? 0),
      ...(typeof r.result === 'string' ? { result: r.result } : {}), ...(Array.isArray(r.errors) ? { errors: r.errors as string[] } : {}),
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
    if (toolName === 'AskUserQuestion' && this.#questionBehavior() !== 'ask') return this.#settleQuestion(id, request, input)
    this.#core.setStatus('awaiting_approval')
    const settled = await this.#approvals.ask(request, signal)
    if (!this.#core.closed) this.#core.setStatus(this.#turnActive ? 'running' : 'idle')
    return toPermissionResult(settled, input, toolUseID)
  }

  /** The session's own choice wins over the adapter's default. */
  #questionBehavior(): QuestionBehavior {
    const own = this.#config.questionBehavior
    return own === 'ask' || own === 'auto' || own === 'deny' ? own : this.#settings.questionBehavior
  }

  /** questionBehavior `auto` picks each question's first option, `deny` lets the model decide; both still show in the transcript. */
  #settleQuestion(requestId: string, request: PermissionRequest, input: Record<string, unknown>): PermissionResult {
    this.#emit({ type: 'permission_requested', request })
    if (this.#questionBehavior() === 'deny') {
      const message = 'No one is available to answer; decide yourself and go on.'
      this.#emit({ type: 'permission_resolved', requestId, behavior: 'deny', resolvedBy: 'policy', message })
      return { behavior: 'deny', message }
    }
    const questions = (input.questions as Array<{ question: string; options?: Array<{ label: string }> }> | undefined) ?? []
    const answers = Object.fromEntries(questions.map((q) => [q.question, q.options?.[0]?.label ?? '']))
    this.#emit({ type: 'permission_resolved', requestId, behavior: 'allow', resolvedBy: 'policy' })
    return { behavior: 'allow', updatedInput: { ...input, answers } }
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
    this.#turnActive = true
    this.#turnStarted = false
    this.#hops = origin?.hops ?? 0
    if (this.#approvals.size === 0) this.#core.setStatus('running')
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

const TOOL_TITLES: Record<string, string> = {
  Bash: 'Run a command', Read: 'Read a file', Write: 'Write a file', Edit: 'Edit a file', MultiEdit: 'Edit a file',
  Glob: 'Find files', Grep: 'Search files', WebFetch: 'Fetch a page', WebSearch: 'Search the web', AskUserQuestion: 'Ask a question',
  Task: 'Run a sub-agent', TodoWrite: 'Update the plan', NotebookEdit: 'Edit a notebook',
}

/** Human labels keyed by wire tool name; MCP tools read as "server: tool". */
function toolTitles(tools: string[]): Record<string, string> {
  return Object.fromEntries(tools.map((name) => {
    const mcp = /^mcp__(.+?)__(.+)$/.exec(name)
    return [name, TOOL_TITLES[name] ?? (mcp ? `${mcp[1]}: ${mcp[2]}` : name)]
  }))
}

/** MCP server entries leave without environment values or HTTP headers (other-shapes.7). */
function stripSecrets(server: unknown): unknown {
  if (typeof server !== 'object' || server === null) return server
  const { config, ...rest } = server as { config?: Record<string, unknown> }
  if (!config || typeof config !== 'object') return rest
  const { env: _env, headers: _headers, ...safe } = config
  return { ...rest, config: safe }
}

/** Anthropic content blocks: images and PDFs as base64 sources, text attachments inlined. */
function blockOf(a: OutgoingAttachment): Record<string, unknown> {
  const data = Buffer.from(a.data).toString('base64')
  if (a.mediaType.startsWith('image/')) return { type: 'image', source: { type: 'base64', media_type: a.mediaType, data } }
  if (a.mediaType === 'application/pdf') return { type: 'document', source: { type: 'base64', media_type: a.mediaType, data }, title: a.name }
  return { type: 'text', text: `<attachment name="${a.name}">\n${Buffer.from(a.data).toString('utf8')}\n</attachment>\n` }
}

function isToolResult(message: unknown): boolean {
  const content = (message as { content?: unknown } | undefined)?.content
  return Array.isArray(content) && content.some((b) => b?.type === 'tool_result')
}

/** The SDK message's own uuid, which protocol 7 carries on messages. */
function uuidOf(raw: Record<string, unknown>): { uuid?: string } {
  return typeof raw.uuid === 'string' ? { uuid: raw.uuid } : {}
}

/**
 * Protocol 7's PermissionRequest from the SDK's canUseTool call: the SDK's own wording (title,
 * display name, description, decision reason) and the sub-agent id travel with it.
 */
function permissionRequest(id: string, toolName: string, input: Record<string, unknown>, options: Parameters<CanUseTool>[2]): PermissionRequest {
  const o = options as Parameters<CanUseTool>[2] & { title?: unknown; displayName?: unknown; description?: unknown; decisionReason?: unknown; agentID?: unknown }
  const request: PermissionRequest = { id, requestId: id, toolName, input, toolUseId: o.toolUseID }
  for (const [key, value] of [['title', o.title], ['displayName', o.displayName], ['description', o.description], ['decisionReason', o.decisionReason], ['agentId', o.agentID]] as const) {
    if (typeof value === 'string' && value) request[key] = value
  }
  return request
}

function toPermissionResult(settled: PermissionDecision, input: Record<string, unknown>, toolUseID: string): PermissionResult {
  if (settled.behavior === 'allow') {
    // The CLI's tools reject an allow without the input (engine-facts §1): an unedited allow passes it back as is.
    const updatedInput = typeof settled.updatedInput === 'object' && settled.updatedInput !== null ? settled.updatedInput as Record<string, unknown> : input
    return { behavior: 'allow', updatedInput, toolUseID }
  }
  return { behavior: 'deny', message: settled.message || DEFAULT_DENY_MESSAGE, ...(settled.interrupt ? { interrupt: true } : {}), toolUseID }
}
