/**
 * Plays one leg of a scenario as a sequence of model outputs. Streaming and non-streaming
 * responses are both rendered from this one sequence, so they cannot drift apart.
 */
import type { Step } from '../scenario/format.ts'
import { estimateTokens } from './plan.ts'

export type Output =
  | { kind: 'text'; text: string }
  | { kind: 'tool'; id: string; name: string; args: string }
  | { kind: 'fail'; status: number; message: string }
  | { kind: 'crash' }
  | { kind: 'hang' }

export interface Usage { input: number; output: number; cacheRead: number }

/** A tool call as the scenario means it, before the target's tool definitions shape it. */
export interface ToolCall { name: string; input: Record<string, unknown> }

const DEFAULT_CHUNK = 16

/** Tool names the model uses for the scenario steps that hand a call over. */
export function toolCallOf(step: Step): ToolCall | undefined {
  switch (step.type) {
    case 'tool':
    case 'deferred':
    case 'bridge':
      return { name: step.name, input: step.input }
    case 'question':
      return { name: 'AskUserQuestion', input: { question: step.question, options: step.options ?? [] } }
    case 'deliver_file':
      return { name: 'deliver_file', input: { path: step.path, content: step.content } }
    case 'produce_file':
      return { name: 'write_file', input: { path: step.path, content: step.content } }
    default:
      return undefined
  }
}

/** `bind` turns a scenario's tool intent into the call the target's tools accept (tool-binding.ts). */
export async function* playLeg(steps: Step[], promptChars: number, signal: AbortSignal, callIdBase: string, bind: (call: ToolCall) => ToolCall = (call) => call): AsyncGenerator<Output, Usage> {
  let usage: Usage | undefined
  let produced = 0
  let calls = 0
  for (const step of steps) {
    if (signal.aborted) break
    switch (step.type) {
      case 'text': {
        const size = step.chunkSize ?? DEFAULT_CHUNK
        for (let i = 0; i < step.text.length; i += size) {
          const text = step.text.slice(i, i + size)
          produced += text.length
          yield { kind: 'text', text }
        }
        break
      }
      case 'usage':
        usage = { input: step.input, output: step.output, cacheRead: step.cacheRead ?? 0 }
        break
      case 'sleep':
        await delay(step.ms, signal)
        break
      case 'fail':
        yield { kind: 'fail', status: step.status ?? 500, message: step.message }
        return usage ?? { input: 0, output: 0, cacheRead: 0 }
      case 'crash':
        yield { kind: 'crash' }
        return { input: 0, output: 0, cacheRead: 0 }
      case 'hang':
        yield { kind: 'hang' }
        return { input: 0, output: 0, cacheRead: 0 }
      default: {
        const intent = toolCallOf(step)
        if (intent) {
          const call = bind(intent)
          const args = JSON.stringify(call.input)
          produced += args.length
          yield { kind: 'tool', id: `call_${callIdBase}_${calls++}`, name: call.name, args }
        }
        // cost, rate_limit and context_usage have no OpenAI wire form; CLI fakes map them.
      }
    }
  }
  return usage ?? { input: estimateTokens('x'.repeat(promptChars)), output: produced ? estimateTokens('x'.repeat(produced)) : 0, cacheRead: 0 }
}

/** Resolves after `ms` or at the abort, whichever is first; the listener goes with the timer, so a paced stream's thousands of delays leave none behind on the request's signal. */
function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const onAbort = () => { clearTimeout(timer); resolve() }
    const timer = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve() }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
