/**
 * Codex's own record of a thread as the spec's events: a resumed thread's turns as `replay`
 * messages (events.10), each turn with its own id nonce, and a sub-agent thread's completed items
 * nested under the card that spawned it (events.10 `parentToolUseId`).
 */
import type { SessionEventBody } from '../../protocol/index.ts'
import { nonceOf } from './codex-shapes.ts'
import { textOf, toolResultOf, toolUseOf, userTextOf, type Item } from './items.ts'

export function replayTurns(emit: (body: SessionEventBody) => void, turns: Array<{ id: string; items?: Item[] }>): void {
  for (const turn of turns) {
    const nonce = nonceOf()
    for (const item of turn.items ?? []) {
      const toolUseId = `${nonce}:${item.id}`
      if (item.type === 'userMessage') {
        emit({ type: 'user_message', message: { role: 'user', content: userTextOf(item) }, replay: true })
        continue
      }
      const text = textOf(item)
      if (text) emit({ type: 'assistant_message', message: text, parentToolUseId: null, replay: true })
      const use = toolUseOf(item, toolUseId)
      if (use) emit({ type: 'assistant_message', message: use, parentToolUseId: null, replay: true })
      const result = toolResultOf(item, toolUseId)
      if (result) emit({ type: 'user_message', message: result, parentToolUseId: null, replay: true, synthetic: true })
    }
  }
}

/** A sub-agent thread's completed item; its turns and usage are its own and never drive the session's turn. */
export function subAgentItem(emit: (body: SessionEventBody) => void, item: Item, toolUseId: string, parentToolUseId: string): void {
  const text = textOf(item)
  if (text) return emit({ type: 'assistant_message', message: text, parentToolUseId })
  const use = toolUseOf(item, toolUseId)
  const result = toolResultOf(item, toolUseId)
  if (use) emit({ type: 'assistant_message', message: use, parentToolUseId })
  if (result) emit({ type: 'user_message', message: result, parentToolUseId, synthetic: true })
}
