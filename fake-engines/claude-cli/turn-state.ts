/**
 * One CLI turn in play: the API message id, usage and cost it reports, the permission denials it
 * collects, and the frames every step sends through (reference/claude-cli-protocol.md §4.3, §7).
 * An interrupt anywhere surfaces as `Interrupted`.
 */
import { randomUUID } from 'node:crypto'
import { send, type Frame } from './wire.ts'

export interface TurnHost {
  sessionId: string
  model: string
  cwd: string
  partial: boolean
  /** Resolves with the SDK's `can_use_tool` answer, or undefined when tools run without asking. */
  askPermission(toolName: string, input: unknown, toolUseId: string): Promise<Record<string, unknown> | undefined>
  /** Runs a tool the SDK hosts (`mcp__<server>__<tool>` of an SDK MCP server); undefined for any other tool. */
  callSdkTool(toolName: string, input: Record<string, unknown>): Promise<{ text: string; isError: boolean }> | undefined
  /** An MCP server's elicitation; resolves with the SDK's answer (`{action, content?}`). */
  elicit(serverName: string, message: string, schema: Record<string, unknown>): Promise<Record<string, unknown>>
  signal: AbortSignal
  setContextTokens(tokens: number): void
}

export interface TurnOutcome {
  result: Frame
}

export class Interrupted extends Error {}

const newMessageId = () => `msg_fake_${randomUUID().slice(0, 8)}`

export class TurnState {
  readonly host: TurnHost
  readonly base: { session_id: string }
  readonly #started = Date.now()
  readonly #turnIndex: number
  readonly #costSoFar: number
  /** One API message per model call, as the real CLI reports it: a tool result starts a new one. */
  #messageId = newMessageId()
  usage = { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }
  cost = 0
  lastText = ''
  lastToolResult = ''
  readonly denials: unknown[] = []
  /**
   * The text block being written. Adjacent text steps are one block, as a model writes one answer
   * in several deltas (and as the fake model APIs and the provider fake play them): `hello` is one
   * block "Hello, world!", which is the result.
   */
  readonly text: TextBlock

  constructor(host: TurnHost, turnIndex: number, costSoFar: number) {
    this.host = host
    this.base = { session_id: host.sessionId }
    this.#turnIndex = turnIndex
    this.#costSoFar = costSoFar
    this.text = new TextBlock(this, (written) => {
      this.assistant([{ type: 'text', text: written }])
      this.lastText = written
    })
  }

  assistant(content: unknown[], extra: Record<string, unknown> = {}): void {
    send({
      type: 'assistant', ...this.base, uuid: randomUUID(), parent_tool_use_id: null, timestamp: new Date().toISOString(),
      message: { id: this.#messageId, type: 'message', role: 'assistant', model: this.host.model, content, stop_reason: null, stop_sequence: null, usage: this.usage }, ...extra,
    })
  }

  toolResult(toolUseId: string, content: string, isError: boolean): void {
    this.lastToolResult = content
    this.#messageId = newMessageId()
    send({
      type: 'user', ...this.base, uuid: randomUUID(), parent_tool_use_id: null, timestamp: new Date().toISOString(),
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content, is_error: isError }] },
    })
  }

  /** The turn's one `result` frame, with the fields its ending adds. */
  result(fields: Record<string, unknown>): TurnOutcome['result'] {
    const { usage, cost, host } = this
    return {
      type: 'result', ...this.base, uuid: randomUUID(), duration_ms: Date.now() - this.#started, duration_api_ms: Date.now() - this.#started,
      num_turns: this.#turnIndex, total_cost_usd: this.#costSoFar + cost, usage, permission_denials: this.denials,
      modelUsage: { [host.model]: { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens, cacheReadInputTokens: usage.cache_read_input_tokens, cacheCreationInputTokens: usage.cache_creation_input_tokens, costUSD: cost } },
      ...fields,
    }
  }

  /** Waits `ms`; an interrupt rejects with Interrupted. */
  pause(ms: number): Promise<void> {
    const { signal } = this.host
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(new Interrupted())
      const timer = setTimeout(resolve, ms)
      signal.addEventListener('abort', () => { clearTimeout(timer); reject(new Interrupted()) }, { once: true })
    })
  }
}

/**
 * A text block: its deltas as `stream_event`s (with partial messages), and one `assistant` frame
 * with the whole text when it ends (`finished` is told the text).
 */
class TextBlock {
  readonly #turn: TurnState
  readonly #finished: (text: string) => void
  #open: string | undefined

  constructor(turn: TurnState, finished: (text: string) => void) {
    this.#turn = turn
    this.#finished = finished
  }

  async write(text: string, size: number): Promise<void> {
    if (!this.#turn.host.partial) return void (this.#open = (this.#open ?? '') + text)
    if (this.#open === undefined) this.#event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })
    this.#open ??= ''
    for (let i = 0; i < text.length; i += size) {
      const delta = text.slice(i, i + size)
      this.#event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: delta } })
      this.#open += delta
      await this.#turn.pause(0)
    }
  }

  end(): void {
    if (this.#open === undefined) return
    if (this.#turn.host.partial) this.#event({ type: 'content_block_stop', index: 0 })
    const text = this.#open
    this.#open = undefined
    this.#finished(text)
  }

  #event(e: unknown): void {
    send({ type: 'stream_event', ...this.#turn.base, uuid: randomUUID(), parent_tool_use_id: null, event: e })
  }
}
