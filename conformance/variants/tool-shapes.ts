/**
 * Tool definitions as another gateway might write them (variations `tool-schemas-reshaped` and
 * `deliver-file-handover`): the spec names `eval_script` (embedding-rules.6) and the peer tools
 * (peers.1) but none of their arguments, and names no host-defined or MCP tool at all. Each tool
 * here gets other argument names (described in words, as a real schema would), host and MCP
 * tools another name, and `deliver_file` only hands over a file that already exists.
 * `toModel` rewrites a tool definition the gateway offers; `fromModel` maps a call back.
 */

interface Reshape {
  /** The tool's name as the other implementation offers it (default: the same). */
  name?: string
  /** Gateway argument → the other implementation's argument, with the words describing it. */
  args: Record<string, { to: string; description: string }>
  /** Gateway arguments the other implementation's tool does not take. */
  drop?: string[]
  description?: string
}

const RESHAPES: Record<string, Reshape> = {
  eval_script: { args: { code: { to: 'source', description: 'JavaScript source run in the sandbox (the code); its last expression is the result' }, input: { to: 'data', description: 'A JSON value handed to the script as input' } } },
  web_fetch: { args: { url: { to: 'address', description: 'The url of the page to fetch' } } },
  web_search: { args: { query: { to: 'terms', description: 'The search query' } } },
  download: { args: { url: { to: 'source_url', description: 'The url to download' }, path: { to: 'save_as', description: 'Scratch path to save the bytes at' } } },
  deliver_file: { args: { path: { to: 'file_path', description: 'Scratch path of the file to hand over' }, content: { to: 'body', description: 'Text written to the file first (the content)' } } },
  peers_peek: { args: { sessionId: { to: 'peer', description: 'The sessionId of the peer to look at' }, limit: { to: 'max_messages', description: 'How many recent messages (limit)' } } },
  peers_send: { args: { sessionId: { to: 'recipient', description: 'The sessionId of the receiving session' }, text: { to: 'message', description: 'The message text to deliver' } } },
  deferred_task: { name: 'ext_deferred_task', args: {} },
  deferred_short: { name: 'ext_deferred_short', args: {} },
  client_eval: { name: 'ext_client_eval', args: {} },
}

/** `deliver_file` as a hand-over of an existing scratch file: no content argument at all. */
const HANDOVER: Reshape = {
  description: 'Hand an existing scratch file over to the user (write it first, e.g. from eval_script)',
  args: { path: { to: 'file_path', description: 'Scratch path of the existing file to hand over' } },
  drop: ['content'],
}

export interface ToolShapeOptions { reshape: boolean; handover: boolean; wrapResults?: boolean }

function reshapeOf(name: string, o: ToolShapeOptions): Reshape | undefined {
  if (name === 'deliver_file' && o.handover) return HANDOVER
  if (!o.reshape) return undefined
  const mcp = /^mcp__(.+?)__(.+)$/.exec(name)
  // MCP tools under another prefix convention: `<server>-<tool>` instead of protocol 7's `mcp__<server>__<tool>`.
  if (mcp) return { name: `${mcp[1]}-${mcp[2]}`, args: {} }
  return RESHAPES[name]
}

/** The other implementation's name for a gateway tool name (events show it too). */
export function renamedTool(name: string, o: ToolShapeOptions): string {
  return reshapeOf(name, o)?.name ?? name
}

type Schema = { type?: unknown; properties?: Record<string, any>; required?: string[]; additionalProperties?: unknown; [k: string]: unknown }

/** An OpenAI `tools[]` entry as the other implementation defines it. */
export function toModel(tool: any, o: ToolShapeOptions): any {
  const fn = tool?.function
  const shape = typeof fn?.name === 'string' ? reshapeOf(fn.name, o) : undefined
  if (!shape) return tool
  const params: Schema = typeof fn.parameters === 'object' && fn.parameters ? fn.parameters : { type: 'object', properties: {} }
  const properties: Record<string, any> = {}
  for (const [key, schema] of Object.entries(params.properties ?? {})) {
    if (shape.drop?.includes(key)) continue
    const to = shape.args[key]
    properties[to?.to ?? key] = to ? { ...schema, description: to.description } : schema
  }
  const required = (params.required ?? []).filter((k) => !shape.drop?.includes(k)).map((k) => shape.args[k]?.to ?? k)
  return {
    ...tool,
    function: {
      ...fn, name: shape.name ?? fn.name, description: shape.description ?? fn.description,
      parameters: { ...params, properties, ...(required.length ? { required } : {}), additionalProperties: false },
    },
  }
}

/** Arguments of a gateway tool as the other implementation's tool takes them (a transcript's tool calls). */
export function argsToModel(name: string, args: Record<string, unknown>, o: ToolShapeOptions): Record<string, unknown> {
  const shape = reshapeOf(name, o)
  if (!shape) return args
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(args)) if (!shape.drop?.includes(k)) out[shape.args[k]?.to ?? k] = v
  return out
}

/** A call the model made to the other implementation's tool, as the gateway's tool takes it. */
export function fromModel(name: string, args: Record<string, unknown>, offered: string[], o: ToolShapeOptions): { name: string; args: Record<string, unknown> } {
  const original = offered.find((n) => renamedTool(n, o) === name) ?? name
  const shape = reshapeOf(original, o)
  if (!shape) return { name: original, args }
  const back = Object.fromEntries(Object.entries(shape.args).map(([k, v]) => [v.to, k]))
  const out: Record<string, unknown> = {}
  // An argument the other implementation's schema does not define is what its tool would ignore.
  for (const [k, v] of Object.entries(args)) {
    if (k in back) out[back[k]] = v
    else if (!(k in shape.args) && !shape.drop?.includes(k)) out[k] = v
  }
  return { name: original, args: out }
}
