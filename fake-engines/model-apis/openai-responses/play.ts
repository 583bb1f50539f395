/**
 * One scenario leg as one Responses stream (§13): `response.created`, then per step either an
 * assistant `message` (with `response.output_text.delta`s; adjacent text steps are one message in
 * several deltas, as a model writes one answer and as the provider fake plays them, so `hello`
 * is "Hello, world!") or a `function_call` to codex's
 * `exec_command` (a `tool` with `input.command`, asking for escalation so codex requests
 * approval; a `produce_file` as an `apply_patch` heredoc, which codex turns into a fileChange),
 * then `response.completed` with usage.
 */
import { randomUUID } from 'node:crypto'
import { withModel, withToolResult, type Step } from '../../scenario/format.ts'

export interface SseWriter {
  event(type: string, data: Record<string, unknown>): void
  fail(status: number, message: string): void
  end(): void
  destroy(): void
}

/** The approval `reason` codex shows comes from the model's justification; the fake codex uses the same sentence. */
export const ESCALATION_REASON = 'The command needs to run outside the sandbox'

export async function playResponse(sse: SseWriter, steps: Step[], ctx: { toolResult: string; callPrefix: string; model?: string; signal?: AbortSignal }): Promise<void> {
  const id = `resp_${randomUUID().replaceAll('-', '')}`
  const output: Record<string, unknown>[] = []
  let usage = { input_tokens: 100, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 110 }
  let index = 0
  let started = false
  const start = () => {
    if (started) return
    started = true
    sse.event('response.created', { response: { id, object: 'response', status: 'in_progress', output: [] } })
  }
  // The assistant message being written: text steps add deltas to it until another item or the end.
  let message: { id: string; outputIndex: number; text: string } | undefined
  const endMessage = () => {
    if (!message) return
    const item = { type: 'message', id: message.id, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: message.text, annotations: [] }] }
    sse.event('response.output_item.done', { output_index: message.outputIndex, item })
    output.push(item)
    message = undefined
  }
  const writeText = (text: string, chunkSize = 16) => {
    if (!message) {
      message = { id: `msg_${randomUUID().slice(0, 8)}`, outputIndex: index++, text: '' }
      sse.event('response.output_item.added', { output_index: message.outputIndex, item: { type: 'message', id: message.id, role: 'assistant', status: 'in_progress', content: [] } })
    }
    for (const delta of chunks(text, chunkSize)) sse.event('response.output_text.delta', { item_id: message.id, output_index: message.outputIndex, content_index: 0, delta })
    message.text += text
  }
  const call = (name: string, args: Record<string, unknown>) => {
    endMessage()
    const item = { type: 'function_call', id: `fc_${randomUUID().slice(0, 8)}`, call_id: `${ctx.callPrefix}_${index}`, name, arguments: JSON.stringify(args), status: 'completed' }
    const outputIndex = index++
    sse.event('response.output_item.added', { output_index: outputIndex, item })
    sse.event('response.output_item.done', { output_index: outputIndex, item })
    output.push(item)
  }
  for (const step of steps) {
    switch (step.type) {
      case 'text':
        start()
        writeText(withModel(withToolResult(step.text, ctx.toolResult), ctx.model), step.chunkSize)
        break
      case 'usage':
        usage = { input_tokens: step.input + (step.cacheRead ?? 0), input_tokens_details: { cached_tokens: step.cacheRead ?? 0 }, output_tokens: step.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: step.input + (step.cacheRead ?? 0) + step.output }
        break
      case 'tool':
        start()
        if (typeof step.input.command === 'string') call('exec_command', { cmd: step.input.command, sandbox_permissions: 'require_escalated', justification: ESCALATION_REASON })
        else call(step.name, step.input)
        break
      case 'produce_file':
        start()
        call('exec_command', { cmd: `apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ${step.path}\n${step.content.split('\n').filter((l, i, all) => i < all.length - 1 || l !== '').map((l) => `+${l}`).join('\n')}\n*** End Patch\nEOF\n` })
        break
      case 'fail':
        return sse.fail(step.status ?? 500, step.message)
      case 'crash':
        return sse.destroy()
      case 'hang':
      case 'sleep':
        await new Promise<void>((resolve) => {
          const timer = step.type === 'sleep' ? setTimeout(resolve, step.ms) : undefined
          ctx.signal?.addEventListener('abort', () => { clearTimeout(timer); resolve() }, { once: true })
        })
        if (ctx.signal?.aborted) return sse.destroy()
        break
      default:
        // question, deferred, bridge, deliver_file, cost, rate_limit, context_usage: no Responses form.
        break
    }
  }
  start()
  endMessage()
  sse.event('response.completed', { response: { id, object: 'response', status: 'completed', output, usage } })
  sse.end()
}

function chunks(text: string, size: number): string[] {
  const out: string[] = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out.length ? out : ['']
}
