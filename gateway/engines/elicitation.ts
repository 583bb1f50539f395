/**
 * MCP elicitations (an MCP server asking the user for input through the engine: the Agent SDK's
 * `onElicitation`, codex's `mcpServer/elicitation/request`) on the gateway's permission flow. The
 * spec has no event of their own, so each is a `permission_requested` named like a tool of its
 * server (`mcp__<server>__elicitation`); an allow's edited input is the content the server asked
 * for (engine-facts §Codex), a deny declines, a deny with interrupt cancels.
 */
import type { Settled } from './cli-primary/approvals.ts'

export interface ElicitationFields {
  serverName?: unknown
  message?: unknown
  mode?: unknown
  url?: unknown
  requestedSchema?: unknown
}

const OWN_FIELDS = ['serverName', 'message', 'mode', 'url', 'requestedSchema'] as const

export function elicitationToolName(serverName: unknown): string {
  return `mcp__${typeof serverName === 'string' && serverName ? serverName : 'unknown'}__elicitation`
}

/** The permission request's name, input and sentence for one elicitation. */
export function elicitationAsk(fields: ElicitationFields): { toolName: string; input: Record<string, unknown>; title: string } {
  const input: Record<string, unknown> = {}
  for (const key of OWN_FIELDS) if (fields[key] !== undefined) input[key] = fields[key]
  return { toolName: elicitationToolName(fields.serverName), input, title: typeof fields.message === 'string' && fields.message ? fields.message : 'An MCP server asks for input' }
}

/** MCP's form values: primitives and string lists only. */
export type ElicitationValue = string | number | boolean | string[]
export type ElicitationAnswer = { action: 'accept'; content: Record<string, ElicitationValue> } | { action: 'decline' | 'cancel' }

export function elicitationAnswer(settled: Settled): ElicitationAnswer {
  if (settled.behavior !== 'allow') return { action: settled.interrupt ? 'cancel' : 'decline' }
  return { action: 'accept', content: contentOf(settled.updatedInput) }
}

/** `updatedInput.content` when the client sent one, else the edited input minus the request's own fields. */
function contentOf(updated: unknown): Record<string, ElicitationValue> {
  if (!updated || typeof updated !== 'object') return {}
  const u = updated as Record<string, unknown>
  const given = u.content && typeof u.content === 'object' && !Array.isArray(u.content)
    ? Object.entries(u.content as Record<string, unknown>)
    : Object.entries(u).filter(([key]) => !(OWN_FIELDS as readonly string[]).includes(key))
  // A value MCP cannot carry is left out rather than sent malformed to the server.
  return Object.fromEntries(given.filter(([, v]) => isValue(v))) as Record<string, ElicitationValue>
}

function isValue(v: unknown): boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || (Array.isArray(v) && v.every((x) => typeof x === 'string'))
}
