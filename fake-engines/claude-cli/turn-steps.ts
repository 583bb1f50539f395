/**
 * One handler per scenario step kind, each mapping the step onto Claude CLI frames
 * (reference/claude-cli-protocol.md §4.3, §7): text into the turn's open text block (turn-state.ts), tools through `can_use_tool`. A handler returns a TurnOutcome only
 * when its step ends the turn early (`fail`).
 */
import { randomUUID } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import { isAbsolute, join } from 'node:path'
import { withToolResult, type Step } from '../scenario/format.ts'
import { Interrupted, type TurnOutcome, type TurnState } from './turn-state.ts'
import { send } from './wire.ts'

type StepOf<K extends Step['type']> = Extract<Step, { type: K }>
type StepHandler<K extends Step['type']> = (turn: TurnState, step: StepOf<K>) => Promise<TurnOutcome | void> | TurnOutcome | void

/** deferred, bridge, deliver_file: provider-engine steps with no CLI form. */
const unsupported = (turn: TurnState, step: Step) => turn.assistant([{ type: 'text', text: `(step ${step.type} has no Claude CLI form)` }])

const HANDLERS: { [K in Step['type']]?: StepHandler<K> } = {
  text: (turn, step) => turn.text.write(withToolResult(step.text, turn.lastToolResult), step.chunkSize ?? 16),
  usage: (turn, step) => {
    turn.usage = { input_tokens: step.input, output_tokens: step.output, cache_creation_input_tokens: step.cacheCreation ?? 0, cache_read_input_tokens: step.cacheRead ?? 0 }
  },
  cost: (turn, step) => { turn.cost += step.usd },
  sleep: (turn, step) => turn.pause(step.ms),
  hang: (turn) => turn.pause(2 ** 30),
  // The process dies mid-turn, as a CLI killed by the OOM killer would.
  crash: () => process.exit(137),
  fail: (turn, step) => {
    turn.assistant([{ type: 'text', text: `API Error: ${step.status ?? 500} ${step.message}` }], { error: 'unknown' })
    const text = `API Error: ${step.status ?? 500} ${JSON.stringify({ type: 'error', error: { message: step.message } })}`
    return { result: turn.result({ subtype: 'success', is_error: true, result: text, api_error_status: step.status ?? 500, terminal_reason: 'api_error' }) }
  },
  tool: async (turn, step) => {
    const goOn = await useTool(turn, step.name, step.input, async (input) => (await turn.host.callSdkTool(step.name, input)) ?? `ran ${step.name} with ${JSON.stringify(input)}`)
    if (!goOn) throw new Interrupted()
  },
  question: async (turn, step) => {
    const input = { questions: [{ question: step.question, header: 'Question', multiSelect: false, options: (step.options ?? []).map((label) => ({ label, description: '' })) }] }
    await useTool(turn, 'AskUserQuestion', input, async (answered) => `User answered: ${JSON.stringify(answered.answers ?? {})}`)
  },
  produce_file: async (turn, step) => {
    const path = isAbsolute(step.path) ? step.path : join(turn.host.cwd, step.path)
    await useTool(turn, 'Write', { file_path: path, content: step.content }, async (input) => {
      await writeFile(String(input.file_path), String(input.content ?? ''))
      return `File created successfully at: ${String(input.file_path)}`
    })
  },
  rate_limit: (turn, step) => {
    send({ type: 'rate_limit_event', ...turn.base, uuid: randomUUID(), rate_limit_info: { status: step.status, rateLimitType: 'five_hour', ...(step.utilization === undefined ? {} : { utilization: step.utilization }), resetsAt: Math.floor(Date.now() / 1000) + 3600 } })
  },
  context_usage: (turn, step) => turn.host.setContextTokens(step.tokens),
  subagent: (turn, step) => {
    // The Task tool: the sub-agent's brief (a real user message with the parent id), its text, then the call's result.
    const id = `toolu_fake_${randomUUID().slice(0, 8)}`
    turn.assistant([{ type: 'tool_use', id, name: 'Task', input: { description: 'Sub-agent', prompt: step.prompt, subagent_type: 'general-purpose' } }])
    send({ type: 'user', ...turn.base, uuid: randomUUID(), parent_tool_use_id: id, timestamp: new Date().toISOString(), message: { role: 'user', content: [{ type: 'text', text: step.prompt }] } })
    turn.assistant([{ type: 'text', text: step.text }], { parent_tool_use_id: id })
    turn.toolResult(id, step.text, false)
  },
  elicitation: async (turn, step) => {
    const answered = await turn.host.elicit(step.server, step.message, step.schema ?? { type: 'object', properties: {} })
    turn.lastToolResult = `Elicitation ${String(answered.action ?? 'decline')}: ${JSON.stringify(answered.content ?? null)}`
  },
}

/** Plays one step; resolves with the turn's outcome when the step ends it. */
export function playStep(turn: TurnState, step: Step): Promise<TurnOutcome | void> | TurnOutcome | void {
  const handler = HANDLERS[step.type] as StepHandler<Step['type']> | undefined
  return handler ? handler(turn, step) : unsupported(turn, step)
}

type ToolRun = (input: Record<string, unknown>) => Promise<string | { text: string; isError: boolean }>

/** A tool call: announce, ask, run on the (possibly edited) input, answer. False when denied with interrupt. */
async function useTool(turn: TurnState, name: string, input: Record<string, unknown>, run: ToolRun): Promise<boolean> {
  const id = `toolu_fake_${randomUUID().slice(0, 8)}`
  turn.assistant([{ type: 'tool_use', id, name, input }])
  const decision = await turn.host.askPermission(name, input, id)
  if (turn.host.signal.aborted) throw new Interrupted()
  if (decision && decision.behavior !== 'allow') {
    turn.denials.push({ tool_name: name, tool_use_id: id, tool_input: input })
    turn.toolResult(id, String(decision.message ?? 'Permission denied'), true)
    return decision.interrupt !== true
  }
  // The real CLI's tools validate their input with Zod: an allow without updatedInput fails (engine-facts §1).
  if (decision && (typeof decision.updatedInput !== 'object' || decision.updatedInput === null)) {
    turn.toolResult(id, 'InputValidationError: an allow decision must carry updatedInput (the tool input)', true)
    return true
  }
  const finalInput = (decision?.updatedInput as Record<string, unknown> | undefined) ?? input
  const out = await run(finalInput)
  if (typeof out === 'string') turn.toolResult(id, out, false)
  else turn.toolResult(id, out.text, out.isError)
  return true
}

/** Steps that write no content block, so a text block open before them goes on after them. */
export const CONTINUES_TEXT = new Set<Step['type']>(['text', 'usage', 'cost', 'sleep', 'context_usage', 'rate_limit'])
