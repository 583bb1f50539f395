/**
 * Codex's server → client requests on the gateway's permission flow (reference §7, engine-facts
 * §Codex: five channels). Each maps to one `permission_requested` and back to codex's answer
 * shape; any other request is refused with an error so nothing hangs.
 */
import type { Settled } from '../cli-primary/approvals.ts'
import { elicitationAnswer, elicitationAsk } from '../elicitation.ts'
import { QUESTION_TOOL, chosenLabels, type Question } from '../questions.ts'
import { toolInputOf, type Item } from './items.ts'
import { decisionOf } from './codex-shapes.ts'
import type { Json } from './peer.ts'

export interface Ask {
  toolName: string
  input: unknown
  title: string
  toolUseId?: string
}

export interface MappedRequest {
  ask: Ask
  /** Questions a `questionBehavior` policy may settle without a person. */
  questions?: Question[]
  answer(settled: Settled, interrupt: () => void): unknown
}

interface TurnView {
  nonce: string
  items: Map<string, Item>
}

export function mapServerRequest(method: string, params: Json, turn: TurnView | undefined): MappedRequest | undefined {
  const toolUseId = turn && params.itemId !== undefined ? { toolUseId: `${turn.nonce}:${String(params.itemId)}` } : {}
  switch (method) {
    case 'item/commandExecution/requestApproval':
    case 'item/fileChange/requestApproval': {
      const command = method === 'item/commandExecution/requestApproval'
      const item = turn?.items.get(String(params.itemId))
      const input = command ? { command: params.command, cwd: params.cwd } : (item ? toolInputOf(item)?.input : undefined) ?? {}
      const reason = typeof params.reason === 'string' && params.reason ? params.reason : undefined
      return {
        ask: { toolName: command ? 'Bash' : 'apply_patch', input, title: reason ?? (command ? 'Run a command' : 'Apply a patch'), ...toolUseId },
        answer: (settled, interrupt) => ({ decision: decisionOf(settled, params.availableDecisions, interrupt) }),
      }
    }
    case 'item/permissions/requestApproval':
      return {
        ask: { toolName: 'permissions', input: { permissions: params.permissions, cwd: params.cwd }, title: String(params.reason ?? 'Grant permissions') },
        // Allow echoes what was asked, for this turn only; deny grants nothing (reference §7).
        answer: (settled) => (settled.behavior === 'allow' ? { permissions: params.permissions ?? {}, scope: 'turn' } : { permissions: {}, scope: 'turn' }),
      }
    case 'item/tool/requestUserInput': {
      const asked = Array.isArray(params.questions) ? (params.questions as Json[]) : []
      const questions: Question[] = asked.map((q) => ({
        question: String(q.question ?? ''),
        header: String(q.header ?? ''),
        multiSelect: false,
        options: Array.isArray(q.options) ? (q.options as Json[]).map((o) => ({ label: String(o.label ?? ''), description: String(o.description ?? '') })) : [],
      }))
      return {
        ask: { toolName: QUESTION_TOOL, input: { questions }, title: questions[0]?.question || 'Answer a question', ...toolUseId },
        questions,
        // A deny answers nothing: codex's model reads the empty answers and decides itself.
        answer: (settled) => {
          const given = settled.behavior === 'allow' ? (settled.updatedInput as Json | undefined)?.answers : undefined
          return { answers: Object.fromEntries(asked.map((q, i) => [String(q.id ?? i), { answers: chosenLabels(given, questions[i]!.question) }])) }
        },
      }
    }
    case 'mcpServer/elicitation/request':
      return {
        ask: elicitationAsk(params),
        answer: (settled) => ({ content: null, ...elicitationAnswer(settled), _meta: null }),
      }
    default:
      return undefined
  }
}
