/**
 * The provider engine's runner on the AI SDK. A turn is a chain of legs: each leg streams one
 * model call; the tool calls it ends with are answered here (local tools), by the attached client
 * (bridged tools) or from outside (deferred tools, which may park the session). The turn's state
 * lives in `#state`, not on an async stack, so a snapshot taken while waiting on deferred
 * executions can be rebuilt in another runner, even another process, and continued mid-turn.
 */
import { randomUUID } from 'node:crypto'
import type { ToolSet } from 'ai'
import { type MessageOrigin, type PermissionMode, type ResolvedBy, type SessionClosedReason, type SessionInfo, type Usage, typedOutput } from '../../protocol/index.ts'
import { errorOutcome, interruptedOutcome, successOutcome, TurnMachinery } from '../turn-machinery.ts'
import { StreamEventWriter } from '../stream-events.ts'
import type { EventListener } from '../../sessions/event-log.ts'
import type { EngineRunnerContext, ExecutionOutcome, PermissionDecision, Runner, ToolCallAnswer } from '../../sessions/runner.ts'
import { SessionCore } from '../../sessions/session-core.ts'
import { metadataOf, type OutgoingAttachment } from '../../sessions/attachments.ts'
import type { RunnerSnapshot } from '../../sessions/session-store.ts'
import { catalogOf, providerFor } from './model-factory.ts'
import type { McpConnection } from './mcp.ts'
import { ScratchFs } from './scratch-fs.ts'
import { sharedTools, offeredGrants, toolSetOf, wiredGrants, type ToolOutput, type ToolSpec } from './tools.ts'
import { runTurn, type LegToolCall } from './turn.ts'
import { addUsage, assistantEntry, partOf, toolResultEntry, type CallRecord, type EngineState, type TurnState } from './turn-state.ts'
import { providerSnapshot } from './snapshot.ts'
import { claimDeferredIds, dispatchCalls, type DispatchHost } from './dispatch.ts'
import type { AiSdkRunnerOptions } from './options.ts'

const DEFAULT_MAX_LEGS = 25

/** One provider session; built by `createAiSdkRunner` (create-runner.ts) once its MCP servers connect. */
export class ProviderRunner implements Runner {
  readonly id: string
  #core: SessionCore
  readonly #turns: TurnMachinery
  #ctx: EngineRunnerContext
  #options: AiSdkRunnerOptions
  #provider: ReturnType<typeof providerFor>['provider']
  #apiKeySource: string
  #catalog: string[]
  #defaultModel: string
  #tools: Map<string, ToolSpec>
  /** Built on the first model call: idle sessions are the common case and should stay small. */
  #toolSet: ToolSet | undefined
  #fs: ScratchFs
  #state: EngineState
  #abort: AbortController | undefined
  #legInFlight = false
  #driving = false
  #inert = false
  #started: Promise<void> | undefined
  #restored: boolean
  /** Bridged calls time out here; a client that never answers must not hold the turn forever. */
  #bridgeTimers: Map<string, ReturnType<typeof setTimeout>> | undefined

  #mcp: McpConnection[]

  constructor(ctx: EngineRunnerContext, options: AiSdkRunnerOptions, mcp: McpConnection[]) {
    this.#mcp = mcp
    const { config, profile, restore } = ctx
    this.id = config.id
    this.#ctx = ctx
    this.#options = options
    this.#catalog = catalogOf(profile)
    this.#defaultModel = profile.provider?.model ?? this.#catalog[0]
    if (config.model !== undefined && !this.#catalog.includes(config.model)) {
      throw new Error(`model '${config.model}' is not offered by profile ${profile.name} (available: ${this.#catalog.join(', ')})`)
    }
    ;({ provider: this.#provider, apiKeySource: this.#apiKeySource } = providerFor(profile, options))
    const grants = offeredGrants(wiredGrants(options.backends), profile.session?.capabilities, config.capabilities as string[] | undefined)
    const shared = sharedTools(options, grants, ctx.peers !== undefined)
    // MCP tools carry this session's connection, so only sessions without them share a tool map.
    this.#tools = mcp.length ? new Map([...shared, ...mcp.flatMap((c) => c.tools.map((t) => [t.name, t] as const))]) : shared
    this.#restored = restore !== undefined
    if (restore) {
      this.#core = new SessionCore(config, { events: restore.events, seq: restore.seq, createdAt: restore.createdAt })
      this.#state = structuredClone(restore.engineState as EngineState)
      this.#fs = ScratchFs.fromJSON(restore.files)
    } else {
      this.#core = new SessionCore({ ...config, model: config.model ?? this.#defaultModel })
      this.#state = { sdkSessionId: randomUUID(), history: [], numTurns: 0, model: config.model, queue: [] }
      this.#fs = new ScratchFs()
      for (const [path, text] of Object.entries(options.seedFiles ?? {})) this.#fs.write(path, text)
    }
    this.#core.apiKeySource = this.#apiKeySource
    // No interactive approvals for this engine (embedding-rules.17): the machinery has none to deny.
    this.#turns = new TurnMachinery('provider', this.#core)
  }

  start(): Promise<void> {
    return (this.#started ??= this.#boot())
  }

  async #boot(): Promise<void> {
    // A rebuilt session continues where it was; it never starts a turn by itself (engine-facts §4).
    if (this.#restored) return
    const core = this.#core
    core.emit({
      type: 'system_init', sdkSessionId: this.#state.sdkSessionId, model: this.#currentModel(), apiKeySource: this.#apiKeySource,
      tools: [...this.#tools.keys()], permissionMode: core.permissionMode,
    })
    core.emit({ type: 'capabilities', models: this.#catalog.map((value) => ({ value, displayName: value })), defaultModel: this.#defaultModel })
    core.setStatus('idle')
    const prompt = this.#ctx.config.prompt
    if (typeof prompt === 'string' && prompt.trim()) this.sendMessage(prompt)
  }

  info(): SessionInfo {
    return this.#turns.info()
  }

  subscribe(listener: EventListener, afterSeq = 0): () => void {
    return this.#turns.subscribe(listener, afterSeq)
  }

  files(): ScratchFs {
    return this.#fs
  }

  sendMessage(text: string, attachments: OutgoingAttachment[] = [], origin?: MessageOrigin): void {
    this.#assertUsable()
    this.#core.emit({
      type: 'user_message', message: { role: 'user', content: text }, parentToolUseId: null,
      ...(attachments.length ? { attachments: attachments.map(metadataOf) } : {}), ...(origin ? { origin } : {}),
    })
    // Queued like any message: a peer's message never interrupts a running turn.
    this.#state.queue.push({ kind: 'message', text, ...(attachments.length ? { parts: attachments.map(partOf) } : {}), ...(origin?.hops ? { hops: origin.hops } : {}) })
    void this.#drive()
  }

  /** Queued behind a running turn, never an interrupt (session-status-values.9). */
  clearContext(): void {
    this.#assertUsable()
    this.#state.queue.push({ kind: 'clear' })
    void this.#drive()
  }

  setTitle(title: string | undefined): void {
    this.#turns.setTitle(title)
  }

  resolvePermission(_requestId: string, _decision: PermissionDecision, _by: ResolvedBy): boolean {
    return false // interactiveApprovals is false for this engine (embedding-rules.17)
  }

  interrupt(): void {
    if (this.#inert || this.#core.closed) return
    const turn = this.#state.turn
    if (!turn) return
    if (this.#abort) {
      // A model call or a local tool is running: abort it; the leg loop ends the turn.
      turn.interrupted = true
      return this.#abort.abort()
    }
    // Waiting on executions: fail every open call so history stays valid, then end the turn (engine-facts §3).
    for (const call of turn.calls) {
      if (call.output) continue
      call.output = { ok: false, error: 'interrupted', reason: 'interrupted' }
      // Protocol 7's cancel reason for an interrupted turn.
      if (call.kind === 'bridged') this.#ctx.bridge.cancel?.(call.executionId, 'aborted')
      this.#core.emit({ type: 'execution_failed', executionId: call.executionId, reason: 'interrupted', error: 'the turn was interrupted' })
    }
    this.#appendToolResults(turn)
    this.#finishTurn(turn, 'interrupted')
    void this.#drive()
  }

  setPermissionMode(mode: PermissionMode): void {
    this.#assertUsable()
    this.#turns.changeMode(mode)
    this.#turns.modeChanged(mode)
  }

  setModel(model: string | undefined): void {
    this.#assertUsable()
    if (model !== undefined && !this.#catalog.includes(model)) {
      throw new Error(`unknown model '${model}' (available: ${this.#catalog.join(', ')})`)
    }
    this.#state.model = model
    this.#turns.modelChanged(model)
  }

  settleExecution(executionId: string, outcome: ExecutionOutcome): boolean {
    if (this.#inert || this.#core.closed) return false
    const turn = this.#state.turn
    const call = turn?.calls.find((c) => c.executionId === executionId && c.kind === 'deferred')
    if (!turn || !call || call.output) return false
    this.#settle(turn, call, outcome.status === 'ok'
      ? { ok: true, value: outcome.output, ...(outcome.typed ? { output: outcome.typed } : {}), ...(outcome.logs ? { logs: outcome.logs } : {}) }
      : { ok: false, error: outcome.error, reason: outcome.reason, modelText: `${outcome.reason}: ${outcome.error}`, ...(outcome.logs ? { logs: outcome.logs } : {}) })
    return true
  }

  resolveToolCall(executionId: string, outcome: ToolCallAnswer): boolean {
    if (this.#inert || this.#core.closed) return false
    const turn = this.#state.turn
    const call = turn?.calls.find((c) => c.executionId === executionId && c.kind === 'bridged')
    if (!turn || !call || call.output) return false // late or duplicate answers are ignored
    this.#settle(turn, call, outcome)
    return true
  }

  snapshot(): RunnerSnapshot | undefined {
    if (this.#core.closed || this.#legInFlight) return undefined
    return providerSnapshot(this.#core, this.#state, this.#fs)
  }

  park(): RunnerSnapshot | undefined {
    if (this.#core.status !== 'parked') return undefined
    const snap = this.snapshot()
    if (!snap || snap.executions.length === 0) return undefined
    this.#inert = true
    this.#dispose()
    return snap
  }

  endLostTurn(message: string): void {
    if (this.#state.turn || this.#core.closed) return
    this.#state.numTurns++
    this.#turns.endTurn(errorOutcome(message), { durationMs: 0, numTurns: this.#state.numTurns, totalCostUsd: 0 })
  }

  fail(message: string): void {
    this.#turns.fail(message, (reason) => this.close(reason))
  }

  close(reason: SessionClosedReason = 'client'): void {
    if (this.#core.closed) return
    // The engine stops before `session_closed`: no leg runs on, no bridged call stays open.
    this.#state.queue.length = 0
    this.#abort?.abort()
    for (const call of this.#state.turn?.calls ?? []) {
      if (!call.output && call.kind === 'bridged') this.#ctx.bridge.cancel?.(call.executionId, 'session_closed')
    }
    this.#turns.close(reason, () => this.#dispose())
  }

  async mcpServers(): Promise<unknown[]> {
    return this.#mcp.map((c) => c.describe())
  }

  #dispose(): void {
    for (const timer of this.#bridgeTimers?.values() ?? []) clearTimeout(timer)
    this.#bridgeTimers?.clear()
    // Connections and their per-session tokens go on close and on park; a rebuild mints new ones.
    for (const connection of this.#mcp) void connection.dispose()
    try {
      this.#options.onClose?.()
    } catch {
      // The host's dispose hook must not keep a session from closing or parking.
    }
  }

  #assertUsable(): void {
    this.#turns.assertOpen()
    if (this.#inert) throw new Error('session is parked')
  }

  #currentModel(): string {
    return this.#state.model ?? this.#defaultModel
  }

  /** Starts the next queued task when no turn is open. A turn waiting on executions keeps it open. */
  async #drive(): Promise<void> {
    if (this.#driving) return
    this.#driving = true
    try {
      while (!this.#state.turn && !this.#core.closed && !this.#inert) {
        const task = this.#state.queue.shift()
        if (!task) break
        if (task.kind === 'clear') {
          this.#state.history = []
          this.#state.sdkSessionId = randomUUID()
          this.#core.emit({ type: 'conversation_reset', sdkSessionId: this.#state.sdkSessionId })
          continue
        }
        this.#state.history.push({ role: 'user', content: task.parts ? [...task.parts, { type: 'text', text: task.text }] : task.text })
        this.#state.turn = { startedAt: Date.now(), usage: {}, legs: 0, lastText: '', calls: [], ...(task.hops ? { hops: task.hops } : {}) }
        this.#core.setStatus('running')
        await this.#runLegs(this.#state.turn)
      }
    } finally {
      this.#driving = false
    }
  }

  /** Runs legs until the turn ends or waits on executions answered elsewhere. */
  async #runLegs(turn: TurnState): Promise<void> {
    const core = this.#core
    for (;;) {
      // A stale loop (its turn ended by an interrupt or a park) must never run another turn's legs.
      if (this.#state.turn !== turn || core.closed || this.#inert) return
      if (turn.legs >= (this.#options.maxLegs ?? DEFAULT_MAX_LEGS)) return this.#finishTurn(turn, 'error', 'too many tool calls in one turn')
      turn.legs++
      const abort = (this.#abort = new AbortController())
      const model = this.#currentModel()
      this.#legInFlight = true
      const leg = await runTurn({
        model: this.#provider.chatModel(model),
        messages: this.#state.history,
        system: this.#ctx.profile.session?.instructions,
        signal: abort.signal,
        maxRetries: this.#options.maxRetries ?? 2,
        tools: (this.#toolSet ??= toolSetOf(this.#tools)),
        // Deltas in protocol 7's raw Messages-API shape, only when asked for (events.11).
        stream: this.#ctx.config.includePartialMessages
          ? new StreamEventWriter((event) => core.emit({ type: 'stream_delta', event, parentToolUseId: null, uuid: randomUUID() }), model)
          : undefined,
      }).finally(() => {
        this.#legInFlight = false
        this.#abort = undefined
      })
      if (core.closed) return
      addUsage(turn.usage, leg.usage)
      const calls = leg.aborted || leg.error ? [] : leg.toolCalls
      this.#flushAssistant(leg.text, calls, model, leg.usage)
      if (leg.text) turn.lastText = leg.text
      if (leg.aborted) return this.#finishTurn(turn, 'interrupted')
      if (leg.error) return this.#finishTurn(turn, 'error', leg.error)
      if (!calls.length) return this.#finishTurn(turn, 'success')
      // Protocol 7 correlates execution_* events with the tool_use block by its id: the execution
      // id is the tool call's own, except where the gateway-wide lookup would become ambiguous.
      turn.calls = calls.map((c) => ({ ...c, executionId: c.toolCallId, kind: this.#tools.get(c.toolName)?.kind ?? 'unknown' }))
      const host = this.#dispatchHost(turn)
      if (!(await claimDeferredIds(host, turn))) return
      await dispatchCalls(host, turn)
      if (this.#state.turn !== turn || core.closed) return
      if (turn.interrupted) {
        for (const call of turn.calls) call.output ??= { ok: false, error: 'interrupted', reason: 'interrupted' }
        this.#appendToolResults(turn)
        return this.#finishTurn(turn, 'interrupted')
      }
      if (turn.calls.some((c) => !c.output)) {
        // Announced only once every call of the batch is handed over (engine-facts §4).
        if (turn.calls.some((c) => !c.output && c.kind === 'deferred')) core.setStatus('parked')
        return
      }
      this.#appendToolResults(turn)
    }
  }

  #flushAssistant(text: string, calls: LegToolCall[], model: string, usage: Usage): void {
    const entry = assistantEntry(text, calls, model, usage)
    if (!entry) return
    this.#core.emit({ type: 'assistant_message', message: entry.message, parentToolUseId: null, uuid: randomUUID() })
    this.#state.history.push(entry.history)
  }

  #dispatchHost(turn: TurnState): DispatchHost {
    return {
      ctx: this.#ctx, tools: this.#tools, fs: this.#fs, emit: (body) => this.#core.emit(body), timers: (this.#bridgeTimers ??= new Map()),
      running: (controller) => { this.#abort = controller },
      settle: (call, output, resume) => this.#settle(turn, call, output, resume),
      current: () => this.#state.turn === turn && !this.#core.closed,
    }
  }

  /** Records one answer; when the batch is complete, the turn continues with the next leg. */
  #settle(turn: TurnState, call: CallRecord, output: ToolOutput, resume = true): void {
    call.output = output
    clearTimeout(this.#bridgeTimers?.get(call.executionId))
    this.#bridgeTimers?.delete(call.executionId)
    const logs = output.logs ? { logs: output.logs } : {}
    if (output.ok) this.#core.emit({ type: 'execution_result', executionId: call.executionId, output: output.output ?? typedOutput(output.value), ...logs })
    else this.#core.emit({ type: 'execution_failed', executionId: call.executionId, reason: output.reason ?? 'failed', error: output.error, ...logs })
    if (!resume || turn.calls.some((c) => !c.output)) return
    this.#appendToolResults(turn)
    this.#core.setStatus('running')
    void this.#runLegs(turn).then(() => this.#drive())
  }

  /** Tool results go right after the assistant message that made the calls (providers require adjacency). */
  #appendToolResults(turn: TurnState): void {
    if (!turn.calls.length) return
    const entry = toolResultEntry(turn.calls)
    this.#core.emit({ type: 'user_message', message: entry.message, parentToolUseId: null, synthetic: true })
    this.#state.history.push(entry.history)
    turn.calls = []
  }

  #finishTurn(turn: TurnState, outcome: 'success' | 'interrupted' | 'error', error?: string): void {
    this.#state.turn = undefined
    this.#state.numTurns++
    const result = outcome === 'interrupted' ? interruptedOutcome() : outcome === 'error' ? errorOutcome(error ?? 'error') : successOutcome(turn.lastText)
    this.#turns.endTurn(result, { durationMs: Date.now() - turn.startedAt, numTurns: this.#state.numTurns, totalCostUsd: 0, usage: turn.usage })
  }
}
