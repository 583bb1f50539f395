/**
 * The session's own thread's items as the spec's events: a tool card when an item starts (or,
 * for one codex reports only on completion, just before its result), the result and any produced
 * files when it completes (events.18), agent text as assistant messages. Sub-agent threads'
 * spawning items are noted so their events nest under the card (sub-agents.ts).
 */
import type { SessionEventBody } from '../../protocol/index.ts'
import type { ProducedFiles } from '../cli-primary/produced.ts'
import { changedPaths, textOf, toolResultOf, toolUseOf, type Item } from './items.ts'
import type { SubAgentThreads } from './sub-agents.ts'
import type { Turn } from './turn.ts'

export interface ItemSink {
  emit(body: SessionEventBody): void
  produced: ProducedFiles
  subAgents: SubAgentThreads
  threadId(): string | undefined
}

export function itemStarted(sink: ItemSink, turn: Turn, item: Item): void {
  const toolUseId = `${turn.nonce}:${item.id}`
  sink.subAgents.noteRootItem(item, toolUseId, sink.threadId())
  const use = toolUseOf(item, toolUseId)
  if (!use) return
  turn.items.set(item.id, item)
  if (item.type === 'fileChange') {
    // Each added or updated path is a candidate produced file once the change completes (events.18).
    sink.produced.noteToolUses(changedPaths(item).filter((c) => c.kind !== 'delete').map((c, i) => ({ type: 'tool_use', id: `${toolUseId}#${i}`, name: 'Write', input: { file_path: c.path } })))
  }
  sink.emit({ type: 'assistant_message', message: use, parentToolUseId: null })
}

export function itemCompleted(sink: ItemSink, turn: Turn, item: Item): void {
  const toolUseId = `${turn.nonce}:${item.id}`
  sink.subAgents.noteRootItem(item, toolUseId, sink.threadId())
  if (item.type === 'agentMessage' && typeof item.text === 'string') turn.lastText = item.text
  if (item.type === 'agentMessage') turn.stream?.end()
  const text = textOf(item)
  if (text) return sink.emit({ type: 'assistant_message', message: text, parentToolUseId: null })
  const result = toolResultOf(item, toolUseId)
  if (!result) return
  if (!turn.items.has(item.id)) {
    // A tool item codex reports only on completion still gets its card first.
    const use = toolUseOf(item, toolUseId)
    if (use) sink.emit({ type: 'assistant_message', message: use, parentToolUseId: null })
  }
  sink.emit({ type: 'user_message', message: result, parentToolUseId: null, synthetic: true })
  if (item.type === 'fileChange') {
    const ok = item.status === 'completed'
    const paths = changedPaths(item).filter((c) => c.kind !== 'delete')
    for (const file of sink.produced.collect(paths.map((_, i) => ({ type: 'tool_result', tool_use_id: `${toolUseId}#${i}`, is_error: !ok })))) sink.emit({ type: 'file_produced', ...file })
  }
}
