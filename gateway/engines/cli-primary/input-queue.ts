/**
 * The streaming-input side of a query: an async iterable the SDK pulls user messages from. The
 * SDK never echoes them back, so the runner emits its own `user_message` when it pushes one.
 */
import { randomUUID } from 'node:crypto'
import type { SDKUserMessage } from '@anthropic-ai/claude-agent-sdk'

export class InputQueue implements AsyncIterable<SDKUserMessage> {
  #items: SDKUserMessage[] = []
  #wake: (() => void) | undefined
  #ended = false

  /** Returns the message's uuid: the CLI names it in an interrupt's receipt (still queued, or cancelled). */
  push(content: SDKUserMessage['message']['content']): string {
    if (this.#ended) throw new Error('session is closed')
    const uuid = randomUUID()
    this.#items.push({ type: 'user', session_id: '', parent_tool_use_id: null, message: { role: 'user', content }, uuid })
    this.#wake?.()
    return uuid
  }

  /** Ending the input is the CLI's shutdown signal (stdin EOF). */
  end(): void {
    this.#ended = true
    this.#wake?.()
  }

  async *[Symbol.asyncIterator](): AsyncIterator<SDKUserMessage> {
    for (;;) {
      const next = this.#items.shift()
      if (next) {
        yield next
        continue
      }
      if (this.#ended) return
      await new Promise<void>((resolve) => { this.#wake = resolve })
      this.#wake = undefined
    }
  }
}
