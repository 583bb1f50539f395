/**
 * Plays one scenario as one app-server turn (reference §6-§10): agentMessage items with deltas,
 * commandExecution and fileChange items that ask through server requests when the thread's
 * sandbox and approval policy say so (or are reviewed under `auto_review`), token usage, and a
 * terminal `turn/completed`. Each step kind has its handler in turn-steps.ts; adjacent text steps
 * are one agentMessage (turn-state.ts); steps this engine cannot express are listed in scenarios/README.md.
 */
import type { Step } from '../scenario/format.ts'
import { CONTINUES_TEXT, playStep } from './turn-steps.ts'
import { Interrupted, TurnState, type TokenUsage, type TurnEnd, type TurnHost } from './turn-state.ts'
import { notify } from './wire.ts'

export type { TurnEnd, TurnHost, TurnSettings } from './turn-state.ts'

const DEFAULT_USAGE: TokenUsage = { input: 100, output: 10, cacheRead: 0, cacheCreation: 0 }
export const CONTEXT_WINDOW = 258_400

export async function playTurn(steps: Step[], host: TurnHost): Promise<TurnEnd> {
  const turn = new TurnState(host)
  try {
    for (const step of steps) {
      if (host.signal.aborted) throw new Interrupted()
      if (!CONTINUES_TEXT.has(step.type)) turn.endMessage()
      const end = await playStep(turn, step)
      if (end) return end
    }
    turn.endMessage()
    reportUsage(turn, turn.usage ?? DEFAULT_USAGE)
    return { status: 'completed', items: turn.items, error: null }
  } catch (err) {
    if (err instanceof Interrupted) {
      turn.endMessage()
      return { status: 'interrupted', items: turn.items, error: null }
    }
    throw err
  }
}

function reportUsage(turn: TurnState, u: TokenUsage): void {
  const last = { inputTokens: u.input + u.cacheRead, cachedInputTokens: u.cacheRead, cacheWriteInputTokens: u.cacheCreation, outputTokens: u.output, reasoningOutputTokens: 0, totalTokens: u.input + u.cacheRead + u.output }
  notify('thread/tokenUsage/updated', { ...turn.base, tokenUsage: { total: last, last, modelContextWindow: CONTEXT_WINDOW } })
}
