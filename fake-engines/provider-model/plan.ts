/**
 * Where in a scenario a request is. The server is stateless: the scenario comes from the last
 * user message, and the leg is the number of assistant turns the conversation holds after it.
 */
import { echoScenario, selectScenario } from '../scenario/select.ts'
import { legsOf, withToolResult, type Step } from '../scenario/format.ts'
import { textOf, type WireMessage } from './wire.ts'

export interface LegPlan {
  scenario: string
  steps: Step[]
  /** A later leg follows (this one ends by handing a tool call over). */
  more: boolean
}

export function planLeg(messages: WireMessage[], scenariosDir?: string): LegPlan {
  let userIndex = -1
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === 'user') {
      userIndex = i
      break
    }
  }
  const userText = userIndex >= 0 ? textOf(messages[userIndex]) : ''
  const scenario = selectScenario(userText, scenariosDir) ?? echoScenario(userText)
  const legs = legsOf(scenario)
  const after = messages.slice(userIndex + 1)
  const done = after.filter((m) => m.role === 'assistant').length
  if (done >= legs.length) return { scenario: scenario.name, steps: [{ type: 'text', text: '' }], more: false }
  const toolResult = textOf([...after].reverse().find((m) => m.role === 'tool') ?? { role: 'tool' })
  const steps = legs[done].map((step) => (step.type === 'text' ? { ...step, text: withToolResult(step.text, toolResult) } : step))
  return { scenario: scenario.name, steps, more: done < legs.length - 1 }
}

export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4))
}
