#!/usr/bin/env node
/**
 * A scripted fake of the Claude Code CLI speaking its real stdio protocol (stream-json in and out,
 * control requests both ways), so the Agent SDK and our adapter run exactly as with the real
 * binary. A user message picks a scenario (`scenario:<name>` / inline JSON), anything else echoes.
 * See reference/claude-cli-protocol.md; every control request it does not support gets an error.
 */
import { randomUUID } from 'node:crypto'
import { isAbsolute, relative, resolve } from 'node:path'
import { echoScenario, selectScenario } from '../scenario/select.ts'
import { ScenarioError } from '../scenario/format.ts'
import { accountOf, CLI_VERSION, COMMANDS, MODELS, resolveModel, TOOLS } from './catalog.ts'
import { Transcript } from './transcript.ts'
import { playTurn } from './turn.ts'
import { onSend, parseArgv, readFrames, send, type Frame } from './wire.ts'
import { exitWithUsageOnHelp } from '../usage.ts'
import { dieIfAskedAt } from '../startup-death.ts'

exitWithUsageOnHelp(process.argv.slice(2), `usage: fake-claude-cli --output-format stream-json --input-format stream-json [options]

A scripted stand-in for the Claude Code CLI, speaking its stdio protocol (stream-json frames and
control requests) so that the Claude Agent SDK drives it as it drives the real CLI. Point
engines.cli_primary.executable (the library: pathToClaudeCodeExecutable) at this command; the SDK
starts it with the options it needs. A user message picks a scenario (scenario:<name>, or inline
JSON); any other text is echoed. Transcripts go under CLAUDE_CONFIG_DIR, so --resume works in a
new process. Ends at the end of its input.

  --resume <session id>     continue a stored conversation (--fork-session: under a new id)
  --model <model>           the model it reports
  --permission-mode <mode>  the initial permission mode
  --mcp-config <json>       MCP servers (the SDK sends them in initialize by default)
  --help                    this text`)

const flags = parseArgv(process.argv.slice(2))
if (flags.get('output-format') !== 'stream-json' || flags.get('input-format') !== 'stream-json') {
  process.stderr.write('fake claude: only --output-format=stream-json --input-format=stream-json is supported\n')
  process.exit(2)
}
const env = process.env
const resumed = typeof flags.get('resume') === 'string' ? String(flags.get('resume')) : undefined
const state = {
  sessionId: flags.has('fork-session') || !resumed ? randomUUID() : resumed,
  model: typeof flags.get('model') === 'string' ? String(flags.get('model')) : undefined,
  permissionMode: typeof flags.get('permission-mode') === 'string' ? String(flags.get('permission-mode')) : 'default',
  askTools: flags.get('permission-prompt-tool') === 'stdio',
  allowedTools: typeof flags.get('allowedTools') === 'string' ? String(flags.get('allowedTools')).split(',').map((t) => t.trim()) : [],
  partial: flags.has('include-partial-messages'),
  turns: 0,
  cost: 0,
  contextTokens: 0,
  /** The last result had `is_error: true` (an API error, an interrupted turn): the CLI then exits 1 at end of input. */
  lastResultError: false,
}
const reportsState = env.CLAUDE_CODE_SDK_READS_SESSION_STATE === '1'
let transcript = flags.has('no-session-persistence') ? undefined : new Transcript(env, process.cwd(), state.sessionId, resumed)
onSend((frame) => {
  if ((frame.type === 'assistant' || frame.type === 'user') && transcript) transcript.add(frame.type, frame.message, String(frame.uuid))
})
/** MCP servers from `--mcp-config` or the initialize request (the SDK passes session servers one of those ways); all report connected. */
const mcpServers = new Map<string, { config: Record<string, unknown>; enabled: boolean }>()
try {
  const raw = flags.get('mcp-config')
  const parsed = typeof raw === 'string' ? (JSON.parse(raw) as { mcpServers?: Record<string, Record<string, unknown>> }) : {}
  for (const [name, config] of Object.entries(parsed.mcpServers ?? {})) mcpServers.set(name, { config, enabled: true })
} catch { /* a malformed config connects nothing, as a server that failed */ }
const mcpStatus = () => [...mcpServers].map(([name, s]) => ({
  name, status: s.enabled ? 'connected' : 'disabled', scope: 'session', config: s.config,
  tools: s.enabled ? [{ name: 'ping', description: 'Answers pong', inputSchema: { type: 'object', properties: {} } }] : [],
}))
/** MCP servers the SDK hosts in-process (from initialize): their tools are called over the control channel. */
const sdkServers = new Map<string, string[]>()
const queue: Frame[] = []
const pendingAsks = new Map<string, (answer: Record<string, unknown>) => void>()
let turnAbort: AbortController | undefined
let running = false
/** Turns this process ran (the FAKE_ENGINE_DIE_AT knob's `first-turn`). */
let turnsHere = 0
let inputClosed = false

function reply(requestId: unknown, response: Record<string, unknown>): void {
  send({ type: 'control_response', response: { subtype: 'success', request_id: requestId, response } })
}

function replyError(requestId: unknown, error: string): void {
  send({ type: 'control_response', response: { subtype: 'error', request_id: requestId, error } })
}

function onControlRequest(frame: Frame): void {
  const id = frame.request_id
  const request = (frame.request ?? {}) as Record<string, unknown>
  switch (request.subtype) {
    case 'initialize':
      dieIfAskedAt('initialize')
      // `mcpServersDelivery: 'initialize'`: the session's servers come here instead of `--mcp-config`.
      for (const [name, config] of Object.entries((request.mcpServers as Record<string, Record<string, unknown>> | undefined) ?? {})) mcpServers.set(name, { config, enabled: true })
      for (const name of (request.sdkMcpServers as string[] | undefined) ?? []) {
        const manifest = (request.sdkMcpServerManifests as Record<string, { toolsListResult?: { tools?: Array<{ name: string }> } }> | undefined)?.[name]
        sdkServers.set(name, (manifest?.toolsListResult?.tools ?? []).map((t) => t.name))
      }
      reply(id, {
        commands: COMMANDS, agents: [], output_style: 'default', available_output_styles: ['default'], models: MODELS,
        account: accountOf(env), pid: process.pid, claude_code_version: CLI_VERSION, current_permission_mode: state.permissionMode,
        session_state: 'idle', capabilities: [], hook_on_failure_supported: true,
        ...(request.settings ? { settings_applied: true } : {}), ...(request.disallowedTools ? { disallowed_tools_applied: true } : {}),
        ...(request.managedSettings ? { managed_settings_applied: true } : {}), ...(request.mcpServers ? { mcp_servers_applied: true } : {}),
      })
      return dieIfAskedAt('initialized')
    case 'interrupt': {
      turnAbort?.abort()
      for (const [askId, answer] of pendingAsks) {
        send({ type: 'control_cancel_request', request_id: askId })
        answer({ behavior: 'deny', message: 'interrupted' })
      }
      // The receipt (interrupt_receipt_v1): uuid-stamped messages still queued survive a plain
      // interrupt and run later; `cancel_queued` withdraws them (interrupt_cancel_queued_v1).
      const queued = queue.flatMap((f) => (typeof f.uuid === 'string' ? [f.uuid] : []))
      if (request.cancel_queued !== true) return reply(id, { still_queued: queued })
      queue.splice(0, queue.length, ...queue.filter((f) => typeof f.uuid !== 'string'))
      return reply(id, { still_queued: [], cancelled: queued })
    }
    case 'set_permission_mode':
      state.permissionMode = String(request.mode)
      send({ type: 'system', subtype: 'status', status: null, permissionMode: state.permissionMode, session_id: state.sessionId, uuid: randomUUID() })
      return reply(id, { mode: state.permissionMode })
    case 'set_model':
      state.model = typeof request.model === 'string' ? request.model : undefined
      return reply(id, { model: state.model })
    case 'mcp_status':
      return reply(id, { mcpServers: mcpStatus() })
    case 'mcp_reconnect':
    case 'mcp_toggle': {
      const server = mcpServers.get(String(request.serverName))
      if (!server) return replyError(id, `MCP server not found: ${String(request.serverName)}`)
      if (request.subtype === 'mcp_toggle') server.enabled = request.enabled === true
      return reply(id, {})
    }
    case 'get_context_usage':
      return reply(id, {
        categories: [{ id: 'messages', name: 'Messages', tokens: state.contextTokens, color: 'claude', kind: 'messages' }],
        totalTokens: state.contextTokens, maxTokens: 200_000, rawMaxTokens: 200_000, percentage: (state.contextTokens / 200_000) * 100, model: resolveModel(state.model),
      })
    default:
      return replyError(id, `Unsupported control request subtype: ${String(request.subtype)}`)
  }
}

function onControlResponse(frame: Frame): void {
  const response = (frame.response ?? {}) as Record<string, unknown>
  const answer = pendingAsks.get(String(response.request_id))
  if (!answer) return
  pendingAsks.delete(String(response.request_id))
  answer(response.subtype === 'success' ? (response.response as Record<string, unknown>) ?? {} : { behavior: 'deny', message: String(response.error ?? 'error') })
}

/** The real CLI describes an ask: a Bash command by its `description`, a file tool by its path relative to the cwd. */
function askDescription(input: unknown): { description?: string } {
  const fields = (input ?? {}) as { description?: unknown; file_path?: unknown }
  if (typeof fields.description === 'string') return { description: fields.description }
  if (typeof fields.file_path === 'string') return { description: relative(process.cwd(), resolve(process.cwd(), fields.file_path)) }
  return {}
}

/** `acceptEdits`, as the real CLI plays it: a file tool's edit inside the working directory is taken unasked (other tools still ask). */
function acceptedEdit(toolName: string, input: unknown): boolean {
  const path = (input as { file_path?: unknown } | undefined)?.file_path
  if (state.permissionMode !== 'acceptEdits' || !FILE_EDIT_TOOLS.has(toolName) || typeof path !== 'string') return false
  const inside = relative(process.cwd(), resolve(process.cwd(), path))
  return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside)
}
const FILE_EDIT_TOOLS = new Set(['Write', 'Edit'])

function askPermission(toolName: string, input: unknown, toolUseId: string): Promise<Record<string, unknown> | undefined> {
  if (!state.askTools || state.permissionMode === 'bypassPermissions' || state.allowedTools.includes(toolName) || acceptedEdit(toolName, input)) return Promise.resolve(undefined)
  const requestId = `ask_${randomUUID().slice(0, 8)}`
  if (reportsState) send({ type: 'system', subtype: 'session_state_changed', state: 'requires_action', sdk_host_only: true, session_id: state.sessionId, uuid: randomUUID() })
  send({ type: 'control_request', request_id: requestId, request: { subtype: 'can_use_tool', tool_name: toolName, input, tool_use_id: toolUseId, display_name: toolName, ...askDescription(input) } })
  return new Promise((resolve) => pendingAsks.set(requestId, (answer) => {
    if (reportsState) send({ type: 'system', subtype: 'session_state_changed', state: 'running', sdk_host_only: true, session_id: state.sessionId, uuid: randomUUID() })
    resolve(answer)
  }))
}

/** An MCP server's elicitation through the SDK (reference §5.2): the SDK answers with `onElicitation`'s result, or a decline. */
function elicit(serverName: string, message: string, schema: Record<string, unknown>): Promise<Record<string, unknown>> {
  const requestId = `elicit_${randomUUID().slice(0, 8)}`
  send({ type: 'control_request', request_id: requestId, request: { subtype: 'elicitation', mcp_server_name: serverName, message, mode: 'form', requested_schema: schema, elicitation_id: requestId } })
  return new Promise((resolve) => pendingAsks.set(requestId, resolve))
}

/** `tools/call` on an SDK-hosted MCP server, through an `mcp_message` control request (reference §5.2). */
function callSdkTool(toolName: string, input: Record<string, unknown>): Promise<{ text: string; isError: boolean }> | undefined {
  const match = /^mcp__(.+?)__(.+)$/.exec(toolName)
  if (!match || !sdkServers.has(match[1])) return undefined
  const requestId = `mcp_${randomUUID().slice(0, 8)}`
  send({ type: 'control_request', request_id: requestId, request: { subtype: 'mcp_message', server_name: match[1], message: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: match[2], arguments: input } } } })
  return new Promise((resolve) => pendingAsks.set(requestId, (answer) => {
    const result = (answer.mcp_response as { result?: { content?: Array<{ text?: string }>; isError?: boolean }; error?: { message?: string } } | undefined)
    if (!result?.result) return resolve({ text: result?.error?.message ?? String(answer.message ?? 'MCP call failed'), isError: true })
    resolve({ text: (result.result.content ?? []).map((c) => c.text ?? '').join('\n'), isError: result.result.isError === true })
  }))
}

function textOf(frame: Frame): string {
  const content = (frame.message as { content?: unknown } | undefined)?.content
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map((b) => (b?.type === 'text' ? String(b.text ?? '') : '')).join('')
  return ''
}

async function runQueue(): Promise<void> {
  if (running) return
  running = true
  // FAKE_CLAUDE_PREWAIT_MS: the real CLI reads control requests ahead of a message it has queued
  // but not started (its prewait window); this holds each queued message that long.
  const prewaitMs = Number(env.FAKE_CLAUDE_PREWAIT_MS ?? 0)
  for (;;) {
    if (prewaitMs > 0 && queue.length) await new Promise((resolve) => setTimeout(resolve, prewaitMs))
    const frame = queue.shift()
    if (!frame) break
    const text = textOf(frame)
    if (text.trim() === '/clear') {
      clearConversation(typeof frame.uuid === 'string' ? frame.uuid : undefined)
      continue
    }
    transcript?.add('user', { role: 'user', content: text })
    state.turns++
    if (reportsState) send({ type: 'system', subtype: 'session_state_changed', state: 'running', sdk_host_only: true, session_id: state.sessionId, uuid: randomUUID() })
    send({
      type: 'system', subtype: 'init', cwd: process.cwd(), session_id: state.sessionId, model: resolveModel(state.model),
      tools: [...TOOLS, ...[...sdkServers].flatMap(([server, tools]) => tools.map((t) => `mcp__${server}__${t}`))],
      permissionMode: state.permissionMode, slash_commands: COMMANDS.map((c) => c.name), apiKeySource: accountOf(env).apiKeySource ?? 'none',
      claude_code_version: CLI_VERSION, output_style: 'default', agents: [], skills: ['review-helper'], plugins: [], capabilities: [], uuid: randomUUID(),
      mcp_servers: mcpStatus().map((s) => ({ name: s.name, status: s.status, source: 'session' })),
    })
    if (turnsHere++ === 0) dieIfAskedAt('first-turn')
    let steps
    try {
      steps = (selectScenario(text) ?? echoScenario(text)).steps
    } catch (err) {
      steps = [{ type: 'fail' as const, message: err instanceof ScenarioError ? err.message : String(err), status: 400 }]
    }
    turnAbort = new AbortController()
    const outcome = await playTurn(steps, {
      sessionId: state.sessionId, model: resolveModel(state.model), cwd: process.cwd(), partial: state.partial, askPermission, callSdkTool, elicit,
      signal: turnAbort.signal, setContextTokens: (n) => { state.contextTokens = n },
    }, state.turns, state.cost)
    state.cost = Number(outcome.result.total_cost_usd)
    state.lastResultError = outcome.result.is_error === true
    state.contextTokens ||= 1000 * state.turns
    send(outcome.result)
    transcript?.lastPrompt(text)
    if (reportsState) send({ type: 'system', subtype: 'session_state_changed', state: 'idle', sdk_host_only: true, session_id: state.sessionId, uuid: randomUUID() })
    turnAbort = undefined
  }
  running = false
  if (inputClosed) finish()
}

/**
 * `/clear` is the CLI's own command: same process, a fresh conversation under a new id, announced
 * as the real CLI does with a `conversation_reset` message (the SDK's SDKConversationResetMessage).
 */
function clearConversation(userMessageUuid: string | undefined): void {
  const previous = state.sessionId
  state.sessionId = randomUUID()
  transcript = flags.has('no-session-persistence') ? undefined : new Transcript(env, process.cwd(), state.sessionId)
  state.contextTokens = 0
  state.lastResultError = false
  send({
    type: 'conversation_reset', new_conversation_id: state.sessionId, trigger: 'clear', session_id: previous, uuid: randomUUID(),
    ...(userMessageUuid ? { user_message_uuid: userMessageUuid } : {}), timestamp: new Date().toISOString(),
  })
  send({ type: 'result', subtype: 'success', is_error: false, result: '', num_turns: state.turns, total_cost_usd: state.cost, duration_ms: 0, duration_api_ms: 0,
    usage: { input_tokens: 0, output_tokens: 0 }, permission_denials: [], session_id: state.sessionId, uuid: randomUUID() })
}

/** stdin EOF is the shutdown signal (§3); the real CLI exits 1 when the last result was an error (API error, interrupt). */
function finish(): void {
  process.exit(state.lastResultError && env.FAKE_CLAUDE_EXIT_ZERO !== '1' ? 1 : 0)
}

dieIfAskedAt('start')
readFrames((frame) => {
  if (frame.type === 'control_request') return onControlRequest(frame)
  if (frame.type === 'control_response') return onControlResponse(frame)
  if (frame.type === 'user') {
    queue.push(frame)
    void runQueue()
  }
}, () => {
  inputClosed = true
  if (!running) finish()
})
