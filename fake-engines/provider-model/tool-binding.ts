/**
 * Binds a scenario's tool intent to the tools the gateway under test actually offers. A scenario
 * says what it means (`eval_script` with `{code, input}`); the target's own tool definitions, sent
 * in the chat request's `tools` array, decide the name and the argument shape the model uses, so
 * the kit never demands our gateway's tool names, MCP prefix or argument layout.
 */
import type { ToolCall } from './play.ts'
import type { WireTool } from './wire.ts'

interface JsonSchema {
  type?: string | string[]
  description?: string
  properties?: Record<string, JsonSchema>
  required?: string[]
  additionalProperties?: boolean | JsonSchema
}

export interface ToolDefinition {
  name: string
  description?: string
  parameters?: JsonSchema
}

/** The function tools of a chat request; anything malformed is ignored, never an error. */
export function toolsOf(tools: WireTool[] | undefined): ToolDefinition[] {
  if (!Array.isArray(tools)) return []
  const out: ToolDefinition[] = []
  for (const tool of tools) {
    const fn = tool?.function
    if (!fn || typeof fn.name !== 'string') continue
    const parameters = typeof fn.parameters === 'object' && fn.parameters !== null ? fn.parameters as JsonSchema : undefined
    out.push({ name: fn.name, description: typeof fn.description === 'string' ? fn.description : undefined, parameters })
  }
  return out
}

/**
 * The call the model makes for an intent. Without tool definitions the intent goes out as written.
 * A tool is picked by `names` (an explicit intent → tool-name mapping), then an exact name, then a
 * name ending in the intent's base name after a separator (`mcp__srv__lookup` ≈ `srv.lookup`,
 * `srv_lookup`, `lookup`). No match keeps the intent's name, so an unknown tool stays unknown.
 */
export function bindCall(intent: ToolCall, tools: ToolDefinition[], names: Record<string, string> = {}): ToolCall {
  if (tools.length === 0) return names[intent.name] ? { ...intent, name: names[intent.name] } : intent
  const tool = pickTool(intent.name, tools, names)
  if (!tool) return intent
  return { name: tool.name, input: fillArguments(intent.input, tool.parameters) }
}

function pickTool(intent: string, tools: ToolDefinition[], names: Record<string, string>): ToolDefinition | undefined {
  const named = names[intent]
  if (named) {
    const hit = tools.find((t) => t.name === named)
    if (hit) return hit
  }
  const exact = tools.find((t) => t.name === intent)
  if (exact) return exact
  const { base, server } = splitMcpName(intent)
  const candidates = tools.filter((t) => t.name === base || endsWithSegment(t.name, base))
  if (candidates.length <= 1) return candidates[0]
  return candidates.find((t) => server !== undefined && t.name.includes(server)) ?? candidates[0]
}

/** `mcp__<server>__<tool>` (protocol 7's prefix) → its parts; any other name is its own base. */
function splitMcpName(name: string): { base: string; server?: string } {
  const match = /^mcp__(.+?)__(.+)$/.exec(name)
  return match ? { base: match[2], server: match[1] } : { base: name }
}

function endsWithSegment(name: string, suffix: string): boolean {
  if (suffix.length === 0 || name.length <= suffix.length || !name.endsWith(suffix)) return false
  return /[^A-Za-z0-9]/.test(name[name.length - suffix.length - 1])
}

/**
 * Places each intent value in the tool's schema: a property of the same name (in any case style);
 * else an unfilled property whose name or description mentions the intent key; else, for a string
 * value, the schema's single unfilled required string property. What finds no place is kept under its own
 * name unless the schema forbids extra properties.
 */
export function fillArguments(input: Record<string, unknown>, schema: JsonSchema | undefined): Record<string, unknown> {
  const props = schema?.properties
  if (!props || Object.keys(props).length === 0) return input
  const out: Record<string, unknown> = {}
  const leftovers: Array<[string, unknown]> = []
  for (const [key, value] of Object.entries(input)) {
    // Same name, or the same name in another case style (`sessionId` ≈ `session_id`).
    const same = key in props ? key : Object.keys(props).find((p) => !(p in out) && normalName(p) === normalName(key))
    if (same) out[same] = value
    else leftovers.push([key, value])
  }
  const unfilled = () => Object.keys(props).filter((p) => !(p in out))
  const rest: Array<[string, unknown]> = []
  for (const [key, value] of leftovers) {
    const word = new RegExp(`\\b${escapeRegExp(key)}\\b`, 'i')
    const target = unfilled().find((p) => word.test(p.replaceAll('_', ' ')) || word.test(props[p].description ?? ''))
    if (target) out[target] = value
    else rest.push([key, value])
  }
  const required = new Set(schema?.required ?? [])
  for (const [key, value] of rest) {
    const strings = unfilled().filter((p) => required.has(p) && isStringSchema(props[p]))
    if (typeof value === 'string' && strings.length === 1) out[strings[0]] = value
    else if (schema?.additionalProperties !== false) out[key] = value
  }
  return out
}

function normalName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '')
}

function isStringSchema(schema: JsonSchema | undefined): boolean {
  const type = schema?.type
  return type === 'string' || (Array.isArray(type) && type.includes('string'))
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
