/**
 * Plays one scenario as one CLI turn (reference/claude-cli-protocol.md §4.3, §7): `system/init`,
 * one `assistant` frame per content block (with `stream_event`s under --include-partial-messages),
 * tool calls through `can_use_tool`, then exactly one `result`. Adjacent text steps are one text
 * block, as a model writes one answer in several deltas (and as the fake model APIs and the
 * provider fake play them): `hello` is one block "Hello, world!", which is the result.
 */
import { randomUUID } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import { isAbsolute, join } from 'node:path'
import { withToolResult, type Step } from '../scenario/format.ts'
import { send, type Frame } from './wire.ts'

export interface TurnHost {
  sessionId: string
  model: string
  cwd: string
  partial: boolean
  /** Resolves with the SDK's `can_use_tool` answer, or undefined when tools run without asking. */
  askPermission(toolName: string, input: unknown, toolUseId: string): Promise<Record<string, unknown> | undefined>
  /** Runs a tool the SDK hosts (`mcp__<server>__<tool>` of an SDK MCP server); undefined for any other tool. */
  callSdkTool(toolName: string, input: Record<string, unknown>): Promise<{ text: string; isError: boolean }> | undefined
  /** An MCP server's elicitation; resolves with the SDK's answer (`{action, content?}`). */
  elicit(serverName: string, message: string, schema: Record<string, unknown>): Promise<Record<string, unknown>>
  signal: AbortSignal
  setContextTokens(tokens: number): void
}

export interface TurnOutcome {
  result: Frame
}

class Interrupted extends Error {}

export async function playTurn(steps: Step[], host: TurnHost, turnIndex: number, costSoFar: number): Promise<TurnOutcome> {
  const started = Date.now()
  // One API message per model call, as the real CLI reports it: a tool result starts a new one.
  let messageId = `msg_fake_${randomUUID().slice(0, 8)}`
  let usage = { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }
  let cost = 0
  let lastText = ''
  let lastToolResult = ''
  const denials: unknown[] = []
  const base = { session_id: host.sessionId }
  const assistant = (content: unknown[], extra: Record<string, unknown> = {}) => send({
    type: 'assistant', ...base, uuid: randomUUID(), parent_tool_use_id: null, timestamp: new Date().toISOString(),
    message: { id: messageId, type: 'message', role: 'assistant', model: host.model, content, stop_reason: null, stop_sequence: null, usage }, ...extra,
  })
  const toolResult = (toolUseId: string, content: string, isError: boolean) => (lastToolResult = content, messageId = `msg_fake_${randomUUID().slice(0, 8)}`, send({
    type: 'user', ...base, uuid: randomUUID(), parent_tool_use_id: null, timestamp: new Date().toISOString(),
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content, is_error: isError }] },
  }))
  const result = (fields: Record<string, unknown>): TurnOutcome['result'] => ({
    type: 'result', ...base, uuid: randomUUID(), duration_ms: Date.now() - started, duration_api_ms: Date.now() - started,
    num_turns: turnIndex, total_cost_usd: costSoFar + cost, usage, permission_denials: denials,
    modelUsage: { [host.model]: { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens, cacheReadInputTokens: usage.cache_read_input_tokens, cacheCreationInputTokens: usage.cache_creation_input_tokens, costUSD: cost } },
    ...fields,
  })
  const pause = (ms: number) => new Promise<void>((resolve, reject) => {
    if (host.signal.aborted) return reject(new Interrupted())
    const timer = setTimeout(resolve, ms)
    host.signal.addEventListener('abort', () => { clearTimeout(timer); reject(new Interrupted()) }, { once: true })
  })

  /** A tool call: announce, ask, run on the (possibly edited) input, answer. False when denied with interrupt. */
  const useTool = async (name: string, input: Record<string, unknown>, run: (input: Record<string, unknown>) => Promise<string | { text: string; isError: boolean }>) => {
    const id = `toolu_fake_${randomUUID().slice(0, 8)}`
    assistant([{ type: 'tool_use', id, name, input }])
    const decision = await host.askPermission(name, input, id)
    if (host.signal.aborted) throw new Interrupted()
    if (decision && decision.behavior !== 'allow') {
      denials.push({ tool_name: name, tool_use_id: id, tool_input: input })
      toolResult(id, String(decision.message ?? 'Permission denied'), true)
      return decision.interrupt !== true
    }
    // The real CLI's tools validate their input with Zod: an allow without updatedInput fails (engine-facts §1).
    if (decision && (typeof decision.updatedInput !== 'object' || decision.updatedInput === null)) {
      toolResult(id, 'InputValidationError: an allow decision must carry updatedInput (the tool input)', true)
      return true
    }
    const finalInput = (decision?.updatedInput as Record<string, unknown> | undefined) ?? input
    const out = await run(finalInput)
    if (typeof out === 'string') toolResult(id, out, false)
    else toolResult(id, out.text, out.isError)
    return true
  }

  const text = textBlock(host.partial, base, pause, (written) => {
    assistant([{ type: 'text', text: written }])
    lastText = written
  })
  try {
    for (const step of steps) {
      if (host.signal.aborted) throw new Interrupted()
      if (!CONTINUES_TEXT.has(step.type)) text.end()
      switch (step.type) {
        case 'text':
          await text.write(withToolResult(step.text, lastToolResult), step.chunkSize ?? 16)
          break
        case 'usage':
          usage = { input_tokens: step.input, output_tokens: step.output, cache_creation_input_tokens: step.cacheCreation ?? 0, cache_read_input_tokens: step.cacheRead ?? 0 }
          break
        case 'cost':
          cost += step.usd
          break
        case 'sleep':
          await pause(step.ms)
          break
        case 'hang':
          await pause(2 ** 30)
          break
        case 'crash':
          // The process dies mid-turn, as a CLI killed by the OOM killer would.
          process.exit(137)
          break
        case 'fail': {
          assistant([{ type: 'text', text: `API Error: ${step.status ?? 500} ${step.message}` }], { error: 'unknown' })
          const text = `API Error: ${step.status ?? 500} ${JSON.stringify({ type: 'error', error: { message: step.message } })}`
          return { result: result({ subtype: 'success', is_error: true, result: text, api_error_status: step.status ?? 500, terminal_reason: 'api_error' }) }
        }
        case 'tool': {
          const goOn = await useTool(step.name, step.input, async (input) => (await host.callSdkTool(step.name, input)) ?? `ran ${step.name} with ${JSON.stringify(input)}`)
          if (!goOn) throw new Interrupted()
          break
        }
        case 'question': {
          const input = { questions: [{ question: step.question, header: 'Question', multiSelect: false, options: (step.options ?? []).map((label) => ({ label, description: '' })) }] }
          await useTool('AskUserQuestion', input, async (answered) => `User answered: ${JSON.stringify(answered.answers ?? {})}`)
          break
        }
        case 'produce_file': {
          const path = isAbsolute(step.path) ? step.path : join(host.cwd, step.path)
          await useTool('Write', { file_path: path, content: step.content }, async (input) => {
            await writeFile(String(input.file_path), String(input.content ?? ''))
            return `File created successfully at: ${String(input.file_path)}`
          })
          break
        }
        case 'rate_limit':
          send({ type: 'rate_limit_event', ...base, uuid: randomUUID(), rate_limit_info: { status: step.status, rateLimitType: 'five_hour', ...(step.utilization === undefined ? {} : { utilization: step.utilization }), resetsAt: Math.floor(Date.now() / 1000) + 3600 } })
          break
        case 'context_usage':
          host.setContextTokens(step.tokens)
          break
        case 'subagent': {
          // The Task tool: the sub-agent's brief (a real user message with the parent id), its text, then the call's result.
          const id = `toolu_fake_${randomUUID().slice(0, 8)}`
          assistant([{ type: 'tool_use', id, name: 'Task', input: { description: 'Sub-agent', prompt: step.prompt, subagent_type: 'general-purpose' } }])
          send({ type: 'user', ...base, uuid: randomUUID(), parent_tool_use_id: id, timestamp: new Date().toISOString(), message: { role: 'user', content: [{ type: 'text', text: step.prompt }] } })
          assistant([{ type: 'text', text: step.text }], { parent_tool_use_id: id })
          toolResult(id, step.text, false)
          break
        }
        case 'elicitation': {
          const answered = await host.elicit(step.server, step.message, step.schema ?? { type: 'object', properties: {} })
          lastToolResult = `Elicitation ${String(answered.action ?? 'decline')}: ${JSON.stringify(answered.content ?? null)}`
          break
        }
        default:
          // deferred, bridge, deliver_file: provider-engine steps with no CLI form.
          assistant([{ type: 'text', text: `(step ${step.type} has no Claude CLI form)` }])
      }
    }
    text.end()
  } catch (err) {
    if (!(err instanceof Interrupted)) throw err
    // The answer written so far is the interrupted turn's partial message.
    text.end()
    send({ type: 'user', ...base, uuid: randomUUID(), parent_tool_use_id: null, message: { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user]' }] } })
    return { result: result({ subtype: 'error_during_execution', is_error: true, errors: ['Request was aborted.'], terminal_reason: 'aborted_streaming' }) }
  }
  return { result: result({ subtype: 'success', is_error: false, result: lastText, stop_reason: 'end_turn', terminal_reason: 'completed' }) }
}

/** Steps that write no content block, so a text block open before them goes on after them. */
const CONTINUES_TEXT = new Set<Step['type']>(['text', 'usage', 'cost', 'sleep', 'context_usage', 'rate_limit'])

/**
 * The text block being written: its deltas as `stream_event`s (with partial messages), and one
 * `assistant` frame with the whole text when it ends (`finished` is told the text).
 */
function textBlock(partial: boolean, base: Record<string, unknown>, pause: (ms: number) => Promise<void>, finished: (text: string) => void) {
  const event = (e: unknown) => send({ type: 'stream_event', ...base, uuid: randomUUID(), parent_tool_use_id: null, event: e })
  let open: string | undefined
  return {
    async write(text: string, size: number): Promise<void> {
      if (!partial) return void (open = (open ?? '') + text)
      if (open === undefined) event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })
      open ??= ''
      for (let i = 0; i < text.length; i += size) {
        const delta = text.slice(i, i + size)
        event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: delta } })
        open += delta
        await pause(0)
      }
    },
    end(): void {
      if (open === undefined) return
      if (partial) event({ type: 'content_block_stop', index: 0 })
      const text = open
      open = undefined
      finished(text)
    },
  }
}
