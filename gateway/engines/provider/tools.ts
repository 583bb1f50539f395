/**
 * The provider engine's tool set (embedding-rules.6-8). `eval_script` is always there; the grant
 * tools exist only when the host wired a backend AND the profile (and request) grant them; deferred
 * and bridged tools are declared by the host. Trust is structural: local tools run here,
 * deferred ones are answered by an outside system, bridged ones by the attached client.
 */
import { dynamicTool, jsonSchema, type ToolSet } from 'ai'
import type { JSONSchema7 } from '@ai-sdk/provider'
import type { SessionEventBody, ToolExecutionOutput } from '../../protocol/index.ts'
import type { PeerPort } from '../../sessions/peers.ts'
import type { ScratchFs } from './scratch-fs.ts'
import { deliverFileTool, downloadTool, evalScriptTool, webFetchTool, webSearchTool } from './grant-tools.ts'
import { peerTools } from './peer-tools.ts'

/**
 * A tool call's answer. `value` is what the model receives; `output` is the typed form the answer
 * came in (protocol 7's `{type, value}`), shown on `execution_result`. A failure's `error` is the
 * bare error and `reason` its machine-readable cause, both shown on `execution_failed`;
 * `modelText`, when set, is what the model reads instead of `error` (`<reason>: <error>` for an
 * answer from outside the gateway).
 */
export type ToolOutput =
  | { ok: true; value: unknown; output?: ToolExecutionOutput; logs?: string[] }
  | { ok: false; error: string; reason?: string; modelText?: string; logs?: string[] }

export interface ToolEnv {
  fs: ScratchFs
  emit(body: SessionEventBody): void
  signal: AbortSignal
  /** This session's peer messaging, when the server enables peers. */
  peers?: PeerPort
  /** Relays that brought the message this turn answers (0 for a human's). */
  hops: number
}

interface ToolBase {
  name: string
  description: string
  inputSchema: JSONSchema7
}
export interface LocalTool extends ToolBase {
  kind: 'local'
  run(input: Record<string, unknown>, env: ToolEnv): Promise<ToolOutput>
}
export interface RemoteTool extends ToolBase {
  kind: 'deferred' | 'bridged'
  /** Watchdog: the call fails (as tool output) when no result came by then. */
  expiresInMs: number
}
export type ToolSpec = LocalTool | RemoteTool

export interface SearchHit { title: string; url: string; snippet?: string }

/** What the host wires; a wired backend is only offerable (embedding-rules.8). */
export interface ToolBackends {
  /** Wires `web_fetch` (and `download`); `true` uses the global fetch. */
  fetch?: boolean | typeof fetch
  download?: boolean
  search?: (query: string, signal: AbortSignal) => Promise<SearchHit[]>
  /** `deliver_file` needs no backend; hosts may still withhold it. Default true. */
  deliverFile?: boolean
}

export interface RemoteToolDeclaration {
  description?: string
  inputSchema?: JSONSchema7
  expiresInMs?: number
}

export interface ToolAssembly {
  backends?: ToolBackends
  /** Tools nothing local can answer: dispatched with `deferred: true`; the session may park on them. */
  deferredTools?: Record<string, RemoteToolDeclaration>
  /** Sandbox-benefiting tools the first attached client runs (tool_call_request). */
  bridgedTools?: Record<string, RemoteToolDeclaration>
  evalLimits?: { memoryLimitBytes?: number; timeoutMs?: number }
}

const OBJECT: JSONSchema7 = { type: 'object', additionalProperties: true }
const DEFAULT_DEFERRED_MS = 24 * 60 * 60 * 1000
const DEFAULT_BRIDGED_MS = 60_000

/** The grants a wiring can offer; the profile and the request may only narrow them. */
export function wiredGrants(backends: ToolBackends = {}): string[] {
  const wired: string[] = []
  if (backends.fetch) wired.push('web_fetch')
  if (backends.search) wired.push('web_search')
  if (backends.fetch && backends.download !== false) wired.push('download')
  if (backends.deliverFile !== false) wired.push('deliver_file')
  return wired
}

/** Absent means "whatever the host wired"; `[]` means none; the two are never conflated (embedding-rules.7). */
export function offeredGrants(wired: string[], profileGrants: readonly string[] | undefined, requested: readonly string[] | undefined): string[] {
  return wired.filter((g) => (profileGrants === undefined || profileGrants.includes(g)) && (requested === undefined || requested.includes(g)))
}

export function assembleTools(assembly: ToolAssembly, grants: string[], peers = false): Map<string, ToolSpec> {
  const tools = new Map<string, ToolSpec>()
  const add = (tool: ToolSpec) => {
    if (tools.has(tool.name)) throw new Error(`tool name '${tool.name}' is declared twice`)
    tools.set(tool.name, tool)
  }
  add(evalScriptTool(assembly.evalLimits))
  const fetcher = assembly.backends?.fetch === true ? fetch : assembly.backends?.fetch || undefined
  if (grants.includes('web_fetch') && fetcher) add(webFetchTool(fetcher))
  if (grants.includes('web_search') && assembly.backends?.search) add(webSearchTool(assembly.backends.search))
  if (grants.includes('download') && fetcher) add(downloadTool(fetcher))
  if (grants.includes('deliver_file')) add(deliverFileTool())
  if (peers) for (const tool of peerTools()) add(tool)
  for (const [name, decl] of Object.entries(assembly.deferredTools ?? {})) add(remote('deferred', name, decl, DEFAULT_DEFERRED_MS))
  for (const [name, decl] of Object.entries(assembly.bridgedTools ?? {})) add(remote('bridged', name, decl, DEFAULT_BRIDGED_MS))
  return tools
}

/**
 * Tool specs are stateless (a call gets its session through `ToolEnv`), so sessions wired the same
 * way share one assembly: per-session cost is what limits scale (DESIGN.md §7). Keyed by the
 * identity of the host's wiring objects; bounded, so a host building fresh objects per session
 * costs a rebuild, never a leak.
 */
const shared = new Map<string, Map<string, ToolSpec>>()
const identities = new WeakMap<object, number>()
let nextIdentity = 1
const SHARED_MAX = 64

function identity(value: object | undefined): number {
  if (!value) return 0
  let id = identities.get(value)
  if (id === undefined) identities.set(value, (id = nextIdentity++))
  return id
}

export function sharedTools(assembly: ToolAssembly, grants: string[], peers = false): Map<string, ToolSpec> {
  const key = [grants.join(','), peers ? 'peers' : '', identity(assembly.backends), identity(assembly.deferredTools), identity(assembly.bridgedTools), identity(assembly.evalLimits)].join('|')
  let tools = shared.get(key)
  if (!tools) {
    tools = assembleTools(assembly, grants, peers)
    if (shared.size >= SHARED_MAX) shared.delete(shared.keys().next().value!)
    shared.set(key, tools)
  }
  return tools
}

/** The AI SDK view: every tool without `execute`, so a call ends the leg and the runner answers it. */
const toolSets = new WeakMap<Map<string, ToolSpec>, ToolSet>()

export function toolSetOf(tools: Map<string, ToolSpec>): ToolSet {
  const cached = toolSets.get(tools)
  if (cached) return cached
  const set: ToolSet = {}
  for (const tool of tools.values()) {
    set[tool.name] = dynamicTool({ description: tool.description, inputSchema: jsonSchema(tool.inputSchema) })
  }
  toolSets.set(tools, set)
  return set
}

function remote(kind: 'deferred' | 'bridged', name: string, decl: RemoteToolDeclaration, fallbackMs: number): RemoteTool {
  return { kind, name, description: decl.description ?? name, inputSchema: decl.inputSchema ?? OBJECT, expiresInMs: decl.expiresInMs ?? fallbackMs }
}
