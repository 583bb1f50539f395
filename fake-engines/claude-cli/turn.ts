/**
 * Plays one scenario as one CLI turn (reference/claude-cli-protocol.md §4.3, §7): `system/init`,
 * one `assistant` frame per content block (with `stream_event`s under --include-partial-messages),
 * tool calls through `can_use_tool`, then exactly one `result`. Each step kind has its handler in
 * turn-steps.ts; adjacent text steps are one text block (turn-state.ts).
 */
import { randomUUID } from 'node:crypto'
import type { Step } from '../scenario/format.ts'
import { CONTINUES_TEXT, playStep } from './turn-steps.ts'
import { Interrupted, TurnState, type TurnHost, type TurnOutcome } from './turn-state.ts'
import { send } from './wire.ts'

export type { TurnHost, TurnOutcome } from './turn-state.ts'

export async function playTurn(steps: Step[], host: TurnHost, turnIndex: number, costSoFar: number): Promise<TurnOutcome> {
  const turn = new TurnState(host, turnIndex, costSoFar)
  try {
    for (const step of steps) {
      if (host.signal.aborted) throw new Interrupted()
      if (!CONTINUES_TEXT.has(step.type)) turn.text.end()
      const outcome = await playStep(turn, step)
      if (outcome) return outcome
    }
    turn.text.end()
  } catch (err) {
    if (!(err instanceof Interrupted)) throw err
    // The answer written so far is the interrupted turn's partial message.
    turn.text.end()
    send({ type: 'user', ...turn.base, uuid: randomUUID(), parent_tool_use_id: null, message: { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user]' }] } })
    return { result: turn.result({ subtype: 'error_during_execution', is_error: true, errors: ['Request was aborted.'], terminal_reason: 'aborted_streaming' }) }
  }
  return { result: turn.result({ subtype: 'success', is_error: false, result: turn.lastText, stop_reason: 'end_turn', terminal_reason: 'completed' }) }
}
