/**
 * One handler per scenario step kind, each mapping the step onto app-server notifications and
 * server requests (reference §6-§10). A handler returns a TurnEnd only when its step ends the
 * turn early (`fail`); steps with no app-server form answer the model `unsupported call`.
 */
import { withModel, withToolResult, type Step } from '../scenario/format.ts'
import { changeFile, runCommand } from './turn-items.ts'
import type { TurnEnd, TurnState } from './turn-state.ts'
import { notify } from './wire.ts'

type StepOf<K extends Step['type']> = Extract<Step, { type: K }>
type StepHandler<K extends Step['type']> = (turn: TurnState, step: StepOf<K>) => Promise<TurnEnd | void> | TurnEnd | void

/** deferred, bridge, deliver_file, cost, context_usage: no app-server form. */
const unsupported = (turn: TurnState, step: Step) => { turn.toolResult = `unsupported call: ${step.type}` }

const HANDLERS: { [K in Step['type']]?: StepHandler<K> } = {
  text: (turn, step) => {
    const text = withModel(withToolResult(step.text, turn.toolResult), turn.host.model)
    const message = turn.openMessage()
    const size = step.chunkSize ?? 16
    for (let i = 0; i < text.length; i += size) notify('item/agentMessage/delta', { ...turn.base, itemId: message.id, delta: text.slice(i, i + size) })
    message.text += text
  },
  usage: (turn, step) => {
    turn.usage = { input: step.input, output: step.output, cacheRead: step.cacheRead ?? 0, cacheCreation: step.cacheCreation ?? 0 }
  },
  sleep: (turn, step) => turn.pause(step.ms),
  hang: (turn) => turn.pause(undefined),
  crash: () => {
    process.stderr.write('fake codex: crashing mid-turn as the scenario asks\n')
    process.exit(1)
  },
  fail: (turn, step) => {
    notify('error', { ...turn.base, willRetry: false, error: { message: step.message, codexErrorInfo: 'other', additionalDetails: null } })
    return { status: 'failed', items: turn.items, error: { message: step.message } }
  },
  rate_limit: (_turn, step) => {
    notify('account/rateLimits/updated', { rateLimits: { limitId: 'codex', primary: { usedPercent: Math.round((step.utilization ?? 0) * 100), windowDurationMins: 300, resetsAt: Math.floor(Date.now() / 1000) + 3600 }, secondary: null, planType: null, rateLimitReachedType: step.status === 'rejected' ? 'primary' : null } })
  },
  tool: async (turn, step) => {
    const command = typeof step.input.command === 'string' ? step.input.command : undefined
    // The model named a tool codex does not have: it sees an error, no item appears.
    turn.toolResult = command ? await runCommand(turn, command) : `unsupported call: ${step.name}`
  },
  produce_file: async (turn, step) => {
    turn.toolResult = await changeFile(turn, step.path, step.content)
  },
  question: async (turn, step) => {
    // codex's own question channel (experimental; the real binary asks it in plan mode): the answer is the tool result.
    const id = `call_${turn.nextNumber()}`
    const answered = await turn.askFor('item/tool/requestUserInput', {
      itemId: id, isBlocking: true,
      questions: [{ id: 'q1', header: 'Question', question: step.question, isOther: false, isSecret: false, options: (step.options ?? []).map((label) => ({ label, description: '' })) }],
    })
    turn.toolResult = `User answered: ${JSON.stringify((answered?.answers as Record<string, unknown> | undefined) ?? {})}`
  },
  subagent: playSubagent,
  elicitation: async (turn, step) => {
    const answered = await turn.askFor('mcpServer/elicitation/request', { serverName: step.server, message: step.message, mode: 'form', requestedSchema: step.schema ?? { type: 'object', properties: {} } })
    turn.toolResult = `Elicitation ${String(answered?.action ?? 'decline')}: ${JSON.stringify(answered?.content ?? null)}`
  },
}

/** Plays one step; resolves with the turn's end when the step ends it. */
export function playStep(turn: TurnState, step: Step): Promise<TurnEnd | void> | TurnEnd | void {
  const handler = HANDLERS[step.type] as StepHandler<Step['type']> | undefined
  return handler ? handler(turn, step) : unsupported(turn, step)
}

/** A sub-agent is a thread of its own on the same connection; only its threadId tells it apart (engine-facts §Codex). */
function playSubagent(turn: TurnState, step: StepOf<'subagent'>): void {
  const { host } = turn
  const n = turn.nextNumber()
  const id = `call_${n}`
  const child = `${host.threadId}-sub-${n}`
  const item = { type: 'collabAgentToolCall', id, tool: 'spawnAgent', status: 'inProgress', senderThreadId: host.threadId, receiverThreadIds: [child], prompt: step.prompt }
  turn.started(item)
  const sub = { threadId: child, turnId: `${host.turnId}-sub-${n}` }
  notify('turn/started', { threadId: child, turn: { id: sub.turnId, status: 'inProgress', items: [], error: null } })
  notify('item/started', { ...sub, item: { type: 'agentMessage', id: 'msg_1', text: '', phase: null }, startedAtMs: Date.now() })
  notify('item/agentMessage/delta', { ...sub, itemId: 'msg_1', delta: step.text })
  notify('item/completed', { ...sub, item: { type: 'agentMessage', id: 'msg_1', text: step.text, phase: null }, completedAtMs: Date.now() })
  // The child's own completion arrives before the parent's turn ends; it must not end it.
  notify('turn/completed', { threadId: child, turn: { id: sub.turnId, status: 'completed', items: [], error: null } })
  turn.completed({ ...item, status: 'completed' })
  turn.toolResult = step.text
}

/** Steps that add no item, so an agentMessage being written before them goes on after them. */
export const CONTINUES_TEXT = new Set<Step['type']>(['text', 'usage', 'cost', 'sleep', 'context_usage', 'rate_limit'])
