/**
 * The provider engine's runner on the AI SDK: text turns, one at a time, streamed from an
 * OpenAI-compatible model. Tools, grants and parking arrive in a later issue; the turn loop is
 * shaped so a tool set can be added to `runTurn` without changing the session contract.
 */
import { randomUUID } from 'node:crypto'
import type { ModelMessage } from 'ai'
import { ENGINE_CAPABILITIES, type MessageAttachment, type PermissionMode, type ResolvedBy, type SessionClosedReason, type SessionInfo } from '../../protocol/index.ts'
import type { EventListener } from '../../sessions/event-log.ts'
import type { EngineRunnerContext, PermissionDecision, Runner } from '../../sessions/runner.ts'
import { SessionCore } from '../../sessions/session-core.ts'
import { catalogOf, providerFor, type ModelSource } from './model-factory.ts'
import { runTurn } from './turn.ts'

export interface AiSdkRunnerOptions extends ModelSource {
  /** Retries of a failed model call (AI SDK default 2); 0 surfaces errors at once. */
  maxRetries?: number
  /** Releases per-session resources; runs when the session closes (embedding-rules.9). */
  onClose?: () => void
}

type Task = { kind: 'message'; text: string } | { kind: 'clear' }

export function createAiSdkRunner(ctx: EngineRunnerContext, options: AiSdkRunnerOptions = {}): Runner {
  return new ProviderRunner(ctx, options)
}

class ProviderRunner implements Runner {
  readonly id: string
  #core: SessionCore
  #ctx: EngineRunnerContext
  #options: AiSdkRunnerOptions
  #provider: ReturnType<typeof providerFor>['provider']
  #apiKeySource: string
  #catalog: string[]
  #defaultModel: string
  #model: string | undefined
  #history: ModelMessage[] = []
  #queue: Task[] = []
  #busy = false
  #abort: AbortController | undefined
  #started: Promise<void> | undefined
  #numTurns = 0

  constructor(ctx: EngineRunnerContext, options: AiSdkRunnerOptions) {
    const { config, profile } = ctx
    this.id = config.id
    this.#ctx = ctx
    this.#options = options
    this.#catalog = catalogOf(profile)
    this.#defaultModel = profile.provider?.model ?? this.#catalog[0]
    if (config.model !== undefined && !this.#catalog.includes(config.model)) {
      throw new Error(`model '${config.model}' is not offered by profile ${profile.name} (available: ${this.#catalog.join(', ')})`)
    }
    this.#model = config.model
    ;({ provider: this.#provider, apiKeySource: this.#apiKeySource } = providerFor(profile, options))
    this.#core = new SessionCore({ ...config, model: config.model ?? this.#defaultModel })
    this.#core.apiKeySource = this.#apiKeySource
  }

  start(): Promise<void> {
    return (this.#started ??= this.#boot())
  }

  async #boot(): Promise<void> {
    const core = this.#core
    core.emit({
      type: 'system_init',
      sdkSessionId: randomUUID(),
      model: this.#currentModel(),
      apiKeySource: this.#apiKeySource,
      tools: [],
      permissionMode: core.permissionMode,
    })
    core.emit({ type: 'capabilities', models: this.#catalog.map((value) => ({ value })), defaultModel: this.#defaultModel })
    core.setStatus('idle')
    const prompt = this.#ctx.config.prompt
    if (typeof prompt === 'string' && prompt.trim()) this.sendMessage(prompt)
  }

  info(): SessionInfo {
    return this.#core.info()
  }

  subscribe(listener: EventListener, afterSeq = 0): () => void {
    return this.#core.subscribe(listener, afterSeq)
  }

  sendMessage(text: string, _attachments?: MessageAttachment[]): void {
    if (this.#core.closed) throw new Error('session is closed')
    this.#core.emit({ type: 'user_message', message: { role: 'user', content: text } })
    this.#queue.push({ kind: 'message', text })
    void this.#pump()
  }

  /** Queued behind a running turn, never an interrupt (session-status-values.9). */
  clearContext(): void {
    if (this.#core.closed) throw new Error('session is closed')
    this.#queue.push({ kind: 'clear' })
    void this.#pump()
  }

  setTitle(title: string | undefined): void {
    this.#core.setTitle(title)
  }

  resolvePermission(_requestId: string, _decision: PermissionDecision, _by: ResolvedBy): boolean {
    return false // interactiveApprovals is false for this engine (embedding-rules.17)
  }

  interrupt(): void {
    this.#abort?.abort()
  }

  setPermissionMode(mode: PermissionMode): void {
    if (this.#core.closed) throw new Error('session is closed')
    if (!ENGINE_CAPABILITIES.provider.permissionModes.includes(mode)) {
      throw new Error(`permission mode '${mode}' is not supported by engine provider`)
    }
    this.#core.emit({ type: 'permission_mode_changed', mode })
  }

  setModel(model: string | undefined): void {
    if (this.#core.closed) throw new Error('session is closed')
    if (model !== undefined && !this.#catalog.includes(model)) {
      throw new Error(`unknown model '${model}' (available: ${this.#catalog.join(', ')})`)
    }
    this.#model = model
    this.#core.emit(model === undefined ? { type: 'model_changed' } : { type: 'model_changed', model })
  }

  fail(message: string): void {
    if (this.#core.closed) return
    this.#core.emit({ type: 'session_error', message })
    this.#core.setStatus('failed')
    this.close('error')
  }

  close(reason: SessionClosedReason = 'client'): void {
    if (this.#core.closed) return
    this.#queue.length = 0
    this.#abort?.abort()
    this.#core.emit({ type: 'session_closed', reason })
    this.#core.setStatus('closed')
    try {
      this.#options.onClose?.()
    } catch {
      // The host's dispose hook must not keep a session from closing.
    }
  }

  #currentModel(): string {
    return this.#model ?? this.#defaultModel
  }

  async #pump(): Promise<void> {
    if (this.#busy) return
    this.#busy = true
    try {
      for (let task = this.#queue.shift(); task && !this.#core.closed; task = this.#queue.shift()) {
        if (task.kind === 'clear') {
          this.#history = []
          this.#core.emit({ type: 'conversation_reset', sdkSessionId: randomUUID() })
        } else {
          await this.#turn(task.text)
        }
      }
    } finally {
      this.#busy = false
    }
  }

  async #turn(text: string): Promise<void> {
    const core = this.#core
    core.setStatus('running')
    this.#history.push({ role: 'user', content: text })
    const abort = (this.#abort = new AbortController())
    const started = Date.now()
    const model = this.#currentModel()
    const outcome = await runTurn({
      model: this.#provider.chatModel(model),
      messages: this.#history,
      system: this.#ctx.profile.session?.instructions,
      signal: abort.signal,
      maxRetries: this.#options.maxRetries ?? 2,
      onDelta: this.#ctx.config.includePartialMessages
        ? (delta) => core.emit({ type: 'stream_delta', event: { type: 'text_delta', text: delta } })
        : undefined,
    })
    this.#abort = undefined
    if (core.closed) return
    if (outcome.text) {
      // A half-finished answer is still flushed as a durable message before the failed result.
      core.emit({ type: 'assistant_message', message: { role: 'assistant', content: [{ type: 'text', text: outcome.text }], model, usage: outcome.usage } })
      this.#history.push({ role: 'assistant', content: outcome.text })
    }
    this.#numTurns++
    const base = { durationMs: Date.now() - started, numTurns: this.#numTurns, totalCostUsd: 0, usage: outcome.usage }
    if (outcome.aborted) core.emit({ type: 'turn_result', subtype: 'interrupted', isError: true, ...base })
    else if (outcome.error) core.emit({ type: 'turn_result', subtype: 'error_during_execution', isError: true, errors: [outcome.error], ...base })
    else core.emit({ type: 'turn_result', subtype: 'success', isError: false, result: outcome.text, ...base })
    core.setStatus('idle')
  }
}
