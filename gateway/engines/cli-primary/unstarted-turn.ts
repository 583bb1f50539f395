/**
 * An interrupt that reaches the Claude CLI before it started the turn (commands.3, commands.10).
 * The real CLI reads a control request ahead of a user message it has queued but not started, so
 * a plain interrupt there stops nothing and the message runs later, as a turn nobody waits for.
 * `cancel_queued` withdraws the turn's messages (each stamped with a uuid when pushed) instead:
 * when the receipt lists every one of them as cancelled, none will run and no result will come, so
 * the runner ends the turn itself. A receipt that cancels nothing (an older CLI, or the turn had
 * started after all) leaves the runner's fallback: the interrupt again at the turn's system_init.
 */
import type { Query, SDKControlInterruptResponse } from '@anthropic-ai/claude-agent-sdk'

export type Withdrawal = 'turn' | 'part' | 'none'

export class UnstartedTurn {
  /** Uuids of the active turn's messages the CLI has not started yet. */
  #uuids: string[] = []

  pushed(uuid: string): void {
    this.#uuids.push(uuid)
  }

  /** The CLI started the turn (system_init): its messages are no longer queued. */
  started(): void {
    this.#uuids = []
  }

  /**
   * Interrupts with `cancel_queued`. `turn`: every message of the turn was withdrawn; `part`: those
   * sent before the interrupt were, and messages sent since still run; `none`: nothing withdrawn.
   */
  async withdraw(query: Query | undefined): Promise<Withdrawal> {
    const doomed = [...this.#uuids]
    // `cancelQueued` is in the SDK's implementation and its wire type (cancel_queued), not yet in
    // the public signature of `interrupt`.
    const interrupt = query?.interrupt as ((options?: { cancelQueued?: boolean }) => Promise<SDKControlInterruptResponse | undefined>) | undefined
    const receipt = await interrupt?.call(query, { cancelQueued: true }).catch(() => undefined)
    const cancelled = new Set(receipt?.cancelled ?? [])
    if (!doomed.length || !doomed.every((uuid) => cancelled.has(uuid))) return 'none'
    this.#uuids = this.#uuids.filter((uuid) => !cancelled.has(uuid))
    return this.#uuids.length ? 'part' : 'turn'
  }
}
