/**
 * The Agent SDK's shapes as the Claude runner maps them (no state): tool titles, MCP server rows
 * without secrets, attachments as content blocks, permission requests and results.
 */
import type { CanUseTool, PermissionResult } from '@anthropic-ai/claude-agent-sdk'
import type { PermissionRequest } from '../../protocol/index.ts'
import type { OutgoingAttachment } from '../../sessions/attachments.ts'
import type { PermissionDecision } from '../../sessions/runner.ts'
import { DEFAULT_DENY_MESSAGE } from './approvals.ts'

const TOOL_TITLES: Record<string, string> = {
  Bash: 'Run a command', Read: 'Read a file', Write: 'Write a file', Edit: 'Edit a file', MultiEdit: 'Edit a file',
  Glob: 'Find files', Grep: 'Search files', WebFetch: 'Fetch a page', WebSearch: 'Search the web', AskUserQuestion: 'Ask a question',
  Task: 'Run a sub-agent', TodoWrite: 'Update the plan', NotebookEdit: 'Edit a notebook',
}

/** Human labels keyed by wire tool name; MCP tools read as "server: tool". */
export function toolTitles(tools: string[]): Record<string, string> {
  return Object.fromEntries(tools.map((name) => {
    const mcp = /^mcp__(.+?)__(.+)$/.exec(name)
    return [name, TOOL_TITLES[name] ?? (mcp ? `${mcp[1]}: ${mcp[2]}` : name)]
  }))
}

/** MCP server entries leave without environment values or HTTP headers (other-shapes.7). */
export function stripSecrets(server: unknown): unknown {
  if (typeof server !== 'object' || server === null) return server
  const { config, ...rest } = server as { config?: Record<string, unknown> }
  if (!config || typeof config !== 'object') return rest
  const { env: _env, headers: _headers, ...safe } = config
  return { ...rest, config: safe }
}

/** Anthropic content blocks: images and PDFs as base64 sources, text attachments inlined. */
export function blockOf(a: OutgoingAttachment): Record<string, unknown> {
  const data = Buffer.from(a.data).toString('base64')
  if (a.mediaType.startsWith('image/')) return { type: 'image', source: { type: 'base64', media_type: a.mediaType, data } }
  if (a.mediaType === 'application/pdf') return { type: 'document', source: { type: 'base64', media_type: a.mediaType, data }, title: a.name }
  return { type: 'text', text: `<attachment name="${a.name}">\n${Buffer.from(a.data).toString('utf8')}\n</attachment>\n` }
}

export function isToolResult(message: unknown): boolean {
  const content = (message as { content?: unknown } | undefined)?.content
  return Array.isArray(content) && content.some((b) => b?.type === 'tool_result')
}

/** The SDK message's own uuid, which protocol 7 carries on messages. */
export function uuidOf(raw: Record<string, unknown>): { uuid?: string } {
  return typeof raw.uuid === 'string' ? { uuid: raw.uuid } : {}
}

/**
 * Protocol 7's PermissionRequest from the SDK's canUseTool call: the SDK's own wording (title,
 * display name, description, decision reason) and the sub-agent id travel with it.
 */
export function permissionRequest(id: string, toolName: string, input: Record<string, unknown>, options: Parameters<CanUseTool>[2]): PermissionRequest {
  const o = options as Parameters<CanUseTool>[2] & { title?: unknown; displayName?: unknown; description?: unknown; decisionReason?: unknown; agentID?: unknown }
  const request: PermissionRequest = { id, requestId: id, toolName, input, toolUseId: o.toolUseID }
  for (const [key, value] of [['title', o.title], ['displayName', o.displayName], ['description', o.description], ['decisionReason', o.decisionReason], ['agentId', o.agentID]] as const) {
    if (typeof value === 'string' && value) request[key] = value
  }
  return request
}

export function toPermissionResult(settled: PermissionDecision, input: Record<string, unknown>, toolUseID: string): PermissionResult {
  if (settled.behavior === 'allow') {
    // The CLI's tools reject an allow without the input (engine-facts §1): an unedited allow passes it back as is.
    const updatedInput = typeof settled.updatedInput === 'object' && settled.updatedInput !== null ? settled.updatedInput as Record<string, unknown> : input
    return { behavior: 'allow', updatedInput, toolUseID }
  }
  return { behavior: 'deny', message: settled.message || DEFAULT_DENY_MESSAGE, ...(settled.interrupt ? { interrupt: true } : {}), toolUseID }
}
