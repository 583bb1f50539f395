/**
 * Codex sub-agents are threads of their own multiplexed on the session's connection, told apart
 * only by each notification's `threadId` (engine-facts §Codex, sub-agents). Their items reach the
 * client as messages whose `parentToolUseId` is the root thread's item that spawned them, so a
 * transcript nests them under that card; a thread seen before (or without) its spawning item gets
 * a stable stand-in parent, `codex-thread:<id>`. Their turn and usage notifications never drive
 * the session's own turn.
 */
import type { Item } from './items.ts'

/** Root-thread items that name the threads they spawn or talk to. */
const SPAWNING = new Set(['collabAgentToolCall', 'subAgentActivity'])

export class SubAgentThreads {
  readonly #parents = new Map<string, string>()

  /** Remembers which child threads a root item names, under that item's tool-use id. */
  noteRootItem(item: Item, toolUseId: string, rootThread: string | undefined): void {
    if (!SPAWNING.has(item.type)) return
    for (const thread of threadIdsIn(item)) if (thread !== rootThread && !this.#parents.has(thread)) this.#parents.set(thread, toolUseId)
  }

  parentOf(thread: string): string {
    return this.#parents.get(thread) ?? `codex-thread:${thread}`
  }
}

/** Thread ids an item carries, whatever codex's release names the field (`receiverThreadIds`, `threadId`, …). */
function threadIdsIn(item: Item): string[] {
  const found: string[] = []
  for (const [key, value] of Object.entries(item)) {
    if (!/thread/i.test(key)) continue
    if (typeof value === 'string') found.push(value)
    else if (Array.isArray(value)) for (const v of value) if (typeof v === 'string') found.push(v)
  }
  return found
}
