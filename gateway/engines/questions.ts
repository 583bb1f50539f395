/**
 * Questions an engine asks its user (the Claude CLI's `AskUserQuestion`, codex's
 * `item/tool/requestUserInput`) share one convention on the wire (engine-facts §Permissions): a
 * `permission_requested` for `AskUserQuestion` whose input holds `questions`, answered by an allow
 * whose `updatedInput.answers` maps each question's text to the chosen label (several joined by
 * ", "). `questionBehavior` settles them unattended; the requested/resolved pair is still emitted
 * so a transcript shows the choice.
 */
import type { PermissionRequest, QuestionBehavior, SessionEventBody } from '../protocol/index.ts'

export const QUESTION_TOOL = 'AskUserQuestion'

export interface Question {
  question: string
  header?: string
  multiSelect?: boolean
  options?: Array<{ label: string; description?: string }>
}

/** What a policy decided: an allow with the answers, or a deny the model reads. */
export type PolicyAnswer = { behavior: 'allow'; answers: Record<string, string> } | { behavior: 'deny'; message: string }

export const NO_ONE_TO_ASK = 'No one is available to answer; decide yourself and go on.'

/** `auto` takes each question's first option; `deny` tells the model to decide itself. */
export function answerByPolicy(behavior: Exclude<QuestionBehavior, 'ask'>, questions: Question[]): PolicyAnswer {
  if (behavior === 'deny') return { behavior: 'deny', message: NO_ONE_TO_ASK }
  return { behavior: 'allow', answers: Object.fromEntries(questions.map((q) => [q.question, q.options?.[0]?.label ?? ''])) }
}

/** Settles a question by policy, emitting the requested/resolved pair a transcript shows. */
export function settleQuestionByPolicy(emit: (body: SessionEventBody) => void, request: PermissionRequest, behavior: Exclude<QuestionBehavior, 'ask'>, questions: Question[]): PolicyAnswer {
  emit({ type: 'permission_requested', request })
  const answer = answerByPolicy(behavior, questions)
  emit({ type: 'permission_resolved', requestId: request.id, behavior: answer.behavior, resolvedBy: 'policy', ...(answer.behavior === 'deny' ? { message: answer.message } : {}) })
  return answer
}

/** The labels a client chose for one question: an array as given, or the convention's ", "-joined string. */
export function chosenLabels(answers: unknown, question: string): string[] {
  const chosen = answers && typeof answers === 'object' ? (answers as Record<string, unknown>)[question] : undefined
  if (Array.isArray(chosen)) return chosen.map(String)
  if (typeof chosen !== 'string' || chosen === '') return []
  return chosen.split(', ')
}
