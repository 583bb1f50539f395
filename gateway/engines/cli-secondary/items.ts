/**
 * Codex thread items as the gateway's events (reference §6, §12.7): a completed agentMessage is
 * an assistant text block; commandExecution and fileChange are a tool_use when they start and a
 * synthetic tool_result when they complete (declined, failed or a non-zero exit is an error).
 * Item ids restart per turn and per process, so every id is prefixed with a per-turn nonce.
 */
import type { ApiMessage } from '../../protocol/index.ts'

export type Item = Record<string, unknown> & { type: string; id: string }

export const COMMAND_TOOL = 'Bash'
export const PATCH_TOOL = 'apply_patch'
/** A root-thread item that spawns or messages a sub-agent thread (engine-facts §Codex, sub-agents). */
export const AGENT_TOOL = 'spawn_agent'

export function toolUseOf(item: Item, toolUseId: string): ApiMessage | undefined {
  const input = toolInputOf(item)
  if (!input) return undefined
  return { role: 'assistant', content: [{ type: 'tool_use', id: toolUseId, name: input.name, input: input.input }] } as ApiMessage
}

export function toolInputOf(item: Item): { name: string; input: Record<string, unknown> } | undefined {
  if (item.type === 'commandExecution') return { name: COMMAND_TOOL, input: { command: item.command, cwd: item.cwd } }
  if (item.type === 'fileChange') return { name: PATCH_TOOL, input: { changes: item.changes } }
  if (item.type === 'collabAgentToolCall') {
    const { type: _t, id: _i, status: _s, ...input } = item
    return { name: AGENT_TOOL, input }
  }
  return undefined
}

export function toolResultOf(item: Item, toolUseId: string): ApiMessage | undefined {
  if (item.type !== 'commandExecution' && item.type !== 'fileChange' && item.type !== 'collabAgentToolCall') return undefined
  const status = String(item.status)
  const failed = status !== 'completed' || (typeof item.exitCode === 'number' && item.exitCode !== 0)
  let content: string
  if (status === 'declined') content = 'declined by the user'
  else if (item.type === 'commandExecution') content = typeof item.aggregatedOutput === 'string' ? item.aggregatedOutput : ''
  else if (item.type === 'collabAgentToolCall') content = `agent ${status}`
  else content = changedPaths(item).map((p) => `${p.kind} ${p.path}`).join('\n')
  return { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content, is_error: failed }] } as ApiMessage
}

export function textOf(item: Item): ApiMessage | undefined {
  if (item.type === 'agentMessage' && typeof item.text === 'string' && item.text) return { role: 'assistant', content: [{ type: 'text', text: item.text }] } as ApiMessage
  if (item.type === 'reasoning') {
    const summary = Array.isArray(item.summary) ? item.summary.join('\n') : ''
    if (summary) return { role: 'assistant', content: [{ type: 'thinking', thinking: summary }] } as ApiMessage
  }
  return undefined
}

export function userTextOf(item: Item): string {
  const content = Array.isArray(item.content) ? (item.content as Array<Record<string, unknown>>) : []
  return content.filter((c) => c.type === 'text').map((c) => String(c.text)).join('\n')
}

/** Added or updated files of a completed fileChange (for file_produced). */
export function changedPaths(item: Item): Array<{ path: string; kind: string }> {
  const changes = Array.isArray(item.changes) ? (item.changes as Array<{ path?: unknown; kind?: { type?: unknown } }>) : []
  return changes.filter((c) => typeof c.path === 'string').map((c) => ({ path: c.path as string, kind: String(c.kind?.type ?? 'update') }))
}

/** Codex's `last` usage (input includes the cached share) in the Anthropic convention (engine-facts §2). */
export function addUsage(sum: Usage, last: Record<string, unknown>): void {
  const n = (k: string) => (typeof last[k] === 'number' ? (last[k] as number) : 0)
  sum.input_tokens += Math.max(0, n('inputTokens') - n('cachedInputTokens'))
  sum.cache_read_input_tokens += n('cachedInputTokens')
  sum.cache_creation_input_tokens += n('cacheWriteInputTokens')
  sum.output_tokens += n('outputTokens') + n('reasoningOutputTokens')
}

export interface Usage {
  input_tokens: number
  output_tokens: number
  cache_read_input_tokens: number
  cache_creation_input_tokens: number
}

export const zeroUsage = (): Usage => ({ input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 })
