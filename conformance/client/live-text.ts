/**
 * Live text the way a protocol-7 UI builds it: `content_block_delta` frames carrying a
 * `text_delta` append to the streaming row of their conversation (keyed by `parentToolUseId`,
 * since sub-agents stream concurrently); the row ends with the turn. Kept per turn, beside the
 * text of the turn's final assistant messages, so a test can compare the two.
 */
import type { SessionEvent } from './shapes.ts'

export interface TurnText {
  /** Text rebuilt from `stream_delta` events of the main conversation. */
  live: string
  /** Text of the turn's assistant messages of the main conversation. */
  final: string
  /** Whether the turn ended (a `turn_result` arrived). */
  done: boolean
}

export class LiveText {
  readonly turns: TurnText[] = []

  /** The turn being streamed (a fresh one when none is open). */
  get current(): TurnText {
    const last = this.turns.at(-1)
    if (last && !last.done) return last
    const turn = { live: '', final: '', done: false }
    this.turns.push(turn)
    return turn
  }

  apply(event: SessionEvent): void {
    if (event.type === 'stream_delta') {
      const e = event as Extract<SessionEvent, { type: 'stream_delta' }>
      if (e.parentToolUseId != null) return
      if (e.event?.type === 'content_block_delta' && e.event.delta?.type === 'text_delta' && typeof e.event.delta.text === 'string') {
        this.current.live += e.event.delta.text
      }
    } else if (event.type === 'assistant_message') {
      const e = event as Extract<SessionEvent, { type: 'assistant_message' }>
      if (e.parentToolUseId != null) return
      const { content } = e.message
      this.current.final += typeof content === 'string' ? content : content.filter((b) => b.type === 'text').map((b) => b.text ?? '').join('')
    } else if (event.type === 'turn_result') {
      this.current.done = true
    }
  }
}
