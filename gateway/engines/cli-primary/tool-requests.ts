/**
 * What the Claude CLI asks the session while a turn runs: `canUseTool` (approvals, and
 * `AskUserQuestion` settled by `questionBehavior`) and MCP elicitations,
 * each a permission request to the client, the session `awaiting_approval` until it is answered.
 */
import { randomUUID } from 'node:crypto'
import type { CanUseTool, OnElicitation, PermissionResult } from '@anthropic-ai/claude-agent-sdk'
import type { PermissionRequest, QuestionBehavior } from '../../protocol/index.ts'
import { elicitationAnswer, elicitationAsk } from '../elicitation.ts'
import { QUESTION_TOOL, settleQuestionByPolicy, type Question } from '../questions.ts'
import type { TurnMachinery } from '../turn-machinery.ts'
import type { Approvals, Settled } from './approvals.ts'
import { PEER_TOOL_NAMES } from './peer-tools.ts'
import { permissionRequest, toPermissionResult } from './sdk-shapes.ts'

export interface ToolRequestHost {
  turns: TurnMachinery
  /** The gateway's own peer tools need no human: their limits are enforced by the peer service. */
  peersOn: boolean
  questionBehavior(): QuestionBehavior
  /** Where the status goes back to once answered. */
  turnActive(): boolean
  /** A deny with `interrupt: true` stops the turn: it must end as every interrupt does (INTERRUPTED_RESULT). */
  interrupted(): void
}

export function toolRequests(host: ToolRequestHost): { canUseTool: CanUseTool; onElicitation: OnElicitation } {
  const ask = async (request: PermissionRequest, signal: AbortSignal): Promise<Settled> => {
    host.turns.core.setStatus('awaiting_approval')
    const settled = await (host.turns.approvals as Approvals).ask(request, signal)
    if (!host.turns.closed) host.turns.core.setStatus(host.turnActive() ? 'running' : 'idle')
    if (settled.behavior === 'deny' && settled.interrupt === true) host.interrupted()
    return settled
  }

  /** questionBehavior `auto` picks each question's first option, `deny` lets the model decide; both still show in the transcript. */
  const settleQuestion = (request: PermissionRequest, input: Record<string, unknown>, behavior: Exclude<QuestionBehavior, 'ask'>): PermissionResult => {
    const questions = (input.questions as Question[] | undefined) ?? []
    const answer = settleQuestionByPolicy((body) => host.turns.emit(body), request, behavior, questions)
    return answer.behavior === 'deny' ? answer : { behavior: 'allow', updatedInput: { ...input, answers: answer.answers } }
  }

  const canUseTool: CanUseTool = async (toolName, input, options) => {
    const { signal, toolUseID } = options
    if (host.peersOn && PEER_TOOL_NAMES.includes(toolName)) return { behavior: 'allow', updatedInput: input, toolUseID }
    const request = permissionRequest(randomUUID(), toolName, input, options)
    const behavior = host.questionBehavior()
    if (toolName === QUESTION_TOOL && behavior !== 'ask') return settleQuestion(request, input, behavior)
    return toPermissionResult(await ask(request, signal), input, toolUseID)
  }

  /** An MCP server's request for input goes to the client like a permission. */
  const onElicitation: OnElicitation = async (request, { signal }) => {
    const id = randomUUID()
    const settled = await ask({ id, requestId: id, ...elicitationAsk(request), ...(request.displayName ? { displayName: request.displayName } : {}), ...(request.description ? { description: request.description } : {}) }, signal)
    return elicitationAnswer(settled)
  }

  return { canUseTool, onElicitation }
}
