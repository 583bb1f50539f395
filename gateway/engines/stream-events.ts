/**
 * Maps an engine's own streaming deltas onto protocol 7's raw stream events (events.11,
 * gateway/protocol/stream-events.ts), for engines whose wire is not the Anthropic Messages stream
 * (the provider engine's AI SDK parts; cli_secondary's item deltas). One writer per streamed
 * message: it numbers content blocks the way the Messages API does, opening a block on its first
 * delta and closing the previous one, so a protocol-7 UI sees the same frames from every engine.
 *
 * Usage: `const w = new StreamEventWriter(emit, model)`, then `w.text(chunk)`, `w.thinking(chunk)`,
 * `w.toolInput(id, name, partialJson)` as deltas arrive, `w.end()` when a block is complete and
 * `w.finish(stopReason)` when the message is. `message_start` goes out lazily with the first block,
 * so a message that streams nothing emits nothing.
 */
import type { RawStreamEvent } from '../protocol/index.ts'

type BlockKind = 'text' | 'thinking' | 'tool_use'

export class StreamEventWriter {
  #emit: (event: RawStreamEvent) => void
  #model: string | undefined
  #started = false
  #index = -1
  #open: { kind: BlockKind; key?: string } | undefined

  constructor(emit: (event: RawStreamEvent) => void, model?: string) {
    this.#emit = emit
    this.#model = model
  }

  text(text: string): void {
    if (!text) return
    this.#block('text', undefined, { type: 'text', text: '' })
    this.#emit({ type: 'content_block_delta', index: this.#index, delta: { type: 'text_delta', text } })
  }

  thinking(thinking: string): void {
    if (!thinking) return
    this.#block('thinking', undefined, { type: 'thinking', thinking: '' })
    this.#emit({ type: 'content_block_delta', index: this.#index, delta: { type: 'thinking_delta', thinking } })
  }

  /** A tool call's arguments as they stream; `id` keeps two calls in separate blocks. */
  toolInput(id: string, name: string, partialJson: string): void {
    this.#block('tool_use', id, { type: 'tool_use', id, name, input: {} })
    if (partialJson) this.#emit({ type: 'content_block_delta', index: this.#index, delta: { type: 'input_json_delta', partial_json: partialJson } })
  }

  /** Closes the open block; the next delta starts a new one. */
  end(): void {
    if (!this.#open) return
    this.#open = undefined
    this.#emit({ type: 'content_block_stop', index: this.#index })
  }

  /** Closes the message (`message_delta` with the stop reason, then `message_stop`), if one began. */
  finish(stopReason?: string): void {
    if (!this.#started) return
    this.end()
    this.#started = false
    this.#index = -1
    this.#emit({ type: 'message_delta', delta: { stop_reason: stopReason ?? null } })
    this.#emit({ type: 'message_stop' })
  }

  #block(kind: BlockKind, key: string | undefined, start: Extract<RawStreamEvent, { type: 'content_block_start' }>['content_block']): void {
    if (this.#open?.kind === kind && this.#open.key === key) return
    if (!this.#started) {
      this.#started = true
      this.#emit({ type: 'message_start', message: { type: 'message', role: 'assistant', content: [], ...(this.#model ? { model: this.#model } : {}) } })
    }
    this.end()
    this.#index++
    this.#open = { kind, key }
    this.#emit({ type: 'content_block_start', index: this.#index, content_block: start })
  }
}
