/**
 * The engine-neutral scenario format (DESIGN.md §5). A scenario is a list of steps; each fake
 * engine maps the steps onto its own real wire protocol, so one script drives every engine.
 */
import { z } from 'zod'

const text = z.object({ type: z.literal('text'), text: z.string(), chunkSize: z.number().int().positive().optional() })
const tool = z.object({ type: z.literal('tool'), name: z.string().min(1), input: z.record(z.string(), z.unknown()).default({}) })
const usage = z.object({
  type: z.literal('usage'), input: z.number().int().nonnegative(), output: z.number().int().nonnegative(),
  cacheCreation: z.number().int().nonnegative().optional(), cacheRead: z.number().int().nonnegative().optional(),
})
const cost = z.object({ type: z.literal('cost'), usd: z.number().nonnegative() })
const fail = z.object({ type: z.literal('fail'), message: z.string(), status: z.number().int().min(400).max(599).optional() })
const sleep = z.object({ type: z.literal('sleep'), ms: z.number().int().nonnegative().max(60_000) })
const bare = <T extends string>(name: T) => z.object({ type: z.literal(name) })
const question = z.object({ type: z.literal('question'), question: z.string(), options: z.array(z.string()).optional() })
const deferred = z.object({ type: z.literal('deferred'), name: z.string().min(1), input: z.record(z.string(), z.unknown()).default({}), expiresInMs: z.number().int().positive().optional() })
const bridge = z.object({ type: z.literal('bridge'), name: z.string().min(1), input: z.record(z.string(), z.unknown()).default({}) })
const file = <T extends string>(name: T) => z.object({ type: z.literal(name), path: z.string().min(1), content: z.string().default('') })
const rateLimit = z.object({ type: z.literal('rate_limit'), status: z.string().default('allowed'), utilization: z.number().optional() })
// An MCP server asking the user for input through the engine (codex's mcpServer/elicitation/request, the Claude CLI's elicitation control request).
const elicitation = z.object({ type: z.literal('elicitation'), server: z.string().min(1), message: z.string(), schema: z.record(z.string(), z.unknown()).optional() })
// A sub-agent the model spawns: it gets `prompt` as its brief and answers `text` (the Claude CLI's Task tool, a codex sub-agent thread).
const subagent = z.object({ type: z.literal('subagent'), prompt: z.string(), text: z.string() })
const contextUsage = z.object({ type: z.literal('context_usage'), tokens: z.number().int().nonnegative(), max: z.number().int().positive().optional() })

export const stepSchema = z.discriminatedUnion('type', [
  text, tool, usage, cost, fail, sleep, bare('crash'), bare('hang'), question, deferred, bridge,
  file('produce_file'), file('deliver_file'), rateLimit, contextUsage, elicitation, subagent,
  // The engine refuses to start the turn at all (codex answers turn/start with an error); only the codex fake has this form.
  bare('refuse_turn'),
])

export const scenarioSchema = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  steps: z.array(stepSchema).min(1),
})

export type Step = z.infer<typeof stepSchema>
export type Scenario = z.infer<typeof scenarioSchema>

export class ScenarioError extends Error {}

/** Parses and validates; the error names the scenario and the first bad step index. */
export function parseScenario(value: unknown, source = 'scenario'): Scenario {
  const parsed = scenarioSchema.safeParse(value)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const where = issue.path[0] === 'steps' && typeof issue.path[1] === 'number' ? `step ${issue.path[1]}` : issue.path.join('.') || 'body'
  throw new ScenarioError(`${source}: ${where}: ${issue.message}`)
}

/** Steps that end a model leg: the model hands a tool call over and waits for its result. */
export function endsLeg(step: Step): boolean {
  return step.type === 'tool' || step.type === 'question' || step.type === 'deferred' || step.type === 'bridge' || step.type === 'deliver_file' || step.type === 'produce_file'
}

/** Splits a scenario into legs, each ending at (and including) a step that hands a call over. */
export function legsOf(scenario: Scenario): Step[][] {
  const legs: Step[][] = [[]]
  for (const step of scenario.steps) {
    legs[legs.length - 1].push(step)
    if (endsLeg(step)) legs.push([])
  }
  if (legs.length > 1 && legs[legs.length - 1].length === 0) legs.pop()
  return legs
}

/** `{{toolResult}}` in a text step stands for the latest tool result, so a scenario can show what came back (every fake). */
export function withToolResult(text: string, toolResult: string): string {
  return text.replaceAll('{{toolResult}}', toolResult)
}

/**
 * `{{model}}` in a text step stands for the model the engine was asked to run this turn on, so a
 * scenario can show that a model choice reached the engine (the codex fakes: the app-server and
 * the Responses API; empty when the engine was asked for none).
 */
export function withModel(text: string, model: string | undefined): string {
  return text.replaceAll('{{model}}', model ?? '')
}
