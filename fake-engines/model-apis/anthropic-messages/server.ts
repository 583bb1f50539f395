/**
 * A fake of the Anthropic Messages API on loopback, for the REAL Claude Code CLI
 * (`ANTHROPIC_BASE_URL`). `POST /v1/messages` (the CLI adds `?beta=true`) plays the scenario the
 * last *user* message selects, as server-sent events the way the real API streams them:
 * `message_start`, `content_block_start` / `_delta` / `_stop`, `message_delta`, `message_stop`.
 * `count_tokens` and `HEAD /api/hello` answer 404, which the CLI tolerates.
 *
 * Which leg of the scenario to play is derived from the conversation (stateless, like the
 * provider-model fake): assistant turns after the selecting user message. The CLI appends its own
 * `system`-role and `<system-reminder>` text, and records an interrupted turn with a
 * `[Request interrupted by user…]` text; none of them selects anything.
 *
 * Adjacent text steps are one text block streamed in several deltas (each step's `chunkSize`), as
 * a model writes one answer and as the provider fake plays them: `hello` is "Hello, world!".
 */
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { isAbsolute, join } from 'node:path'
import { ScenarioError, type Step } from '../../scenario/format.ts'
import { planLeg } from '../../provider-model/plan.ts'
import { answerIdentity, IDENTITY_PATH } from '../identity.ts'
import type { WireMessage } from '../../provider-model/wire.ts'

export interface FakeAnthropicOptions {
  port?: number
  host?: string
  scenariosDir?: string
}

export interface FakeAnthropicServer {
  /** The value for `ANTHROPIC_BASE_URL`. */
  url: string
  /** Every request's method and path, in order (what the CLI called). */
  requests: Array<{ method: string; path: string }>
  close(): Promise<void>
}

interface Block { type: string; text?: string; content?: unknown; name?: string; input?: unknown; id?: string }
/** A content block as sent, and for text the deltas it streams in. */
interface Part { block: Block; deltas?: string[] }
interface ApiMessage { role: string; content: string | Block[] }
interface MessagesRequest { model?: string; messages?: ApiMessage[]; system?: string | Block[]; tools?: unknown[]; stream?: boolean }

const CHUNK = 16

export async function startFakeAnthropicServer(options: FakeAnthropicOptions = {}): Promise<FakeAnthropicServer> {
  const requests: FakeAnthropicServer['requests'] = []
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '' })
    handle(req, res, options.scenariosDir).catch((err) => {
      if (!res.headersSent) sendError(res, 500, 'api_error', err instanceof Error ? err.message : 'internal error')
      else res.destroy()
    })
  })
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    requests,
    close: () => new Promise((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    }),
  }
}

async function handle(req: IncomingMessage, res: ServerResponse, scenariosDir?: string): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://x').pathname
  if (req.method === 'GET' && path === IDENTITY_PATH) return answerIdentity(res, 'anthropic-messages')
  if (path !== '/v1/messages') return sendError(res, 404, 'not_found_error', `no route ${path}`)
  if (req.method !== 'POST') return sendError(res, 405, 'invalid_request_error', 'method not allowed')
  let body: MessagesRequest
  try {
    body = JSON.parse(await readBody(req)) as MessagesRequest
  } catch {
    return sendError(res, 400, 'invalid_request_error', 'body is not JSON')
  }
  if (!Array.isArray(body.messages) || !body.messages.length) return sendError(res, 400, 'invalid_request_error', 'messages: required')
  // Side calls without tools (titles, summaries) get a short answer; only agent turns play scenarios.
  if (!Array.isArray(body.tools) || body.tools.length === 0) return respond(res, body, [textPart('ok')], 'end_turn')
  let plan
  try {
    plan = planLeg(toWire(body.messages), scenariosDir)
  } catch (err) {
    if (err instanceof ScenarioError) return respond(res, body, [textPart(`scenario error: ${err.message}`)], 'end_turn')
    throw err
  }
  const cwd = workingDirectory(body)
  const parts: Part[] = []
  for (const step of plan.steps) {
    const mapped = blockOf(step, cwd)
    if (mapped === 'hang') return // the connection stays open: the turn ends only by interrupt
    if (mapped && 'fail' in mapped) return sendError(res, mapped.status, mapped.status === 429 ? 'rate_limit_error' : 'api_error', mapped.fail)
    if (mapped) addPart(parts, mapped, step.type === 'text' ? step.chunkSize : undefined)
  }
  const usage = plan.steps.find((s) => s.type === 'usage') as Extract<Step, { type: 'usage' }> | undefined
  return respond(res, body, parts, parts.some((p) => p.block.type === 'tool_use') ? 'tool_use' : 'end_turn', usage)
}

function textPart(text: string): Part {
  return { block: { type: 'text', text }, deltas: chunks(text, CHUNK) }
}

/** A text block right after another text block continues it (one answer, more deltas). */
function addPart(parts: Part[], block: Block, chunkSize = CHUNK): void {
  if (block.type !== 'text') return void parts.push({ block })
  const last = parts.at(-1)
  const deltas = chunks(block.text ?? '', chunkSize)
  if (last?.block.type !== 'text') return void parts.push({ block, deltas })
  last.block.text = `${last.block.text ?? ''}${block.text ?? ''}`
  last.deltas!.push(...deltas)
}

function chunks(text: string, size: number): string[] {
  const out: string[] = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}

/** Text the CLI adds to a user message itself: reminders, and the marker of an interrupted turn. */
const CLI_OWN_TEXT = /^\s*(<system-reminder>|\[Request interrupted by user)/

/**
 * The CLI's conversation in the provider fake's terms: user text, tool results, assistant turns.
 * A user message's prompt is its last text of the user's own: after an interrupt the CLI sends
 * the interrupted prompt, its marker and the next prompt as one user message (after an interrupt
 * during a permission prompt, behind the refused call's tool result too).
 */
function toWire(messages: ApiMessage[]): WireMessage[] {
  return messages.map((message): WireMessage => {
    if (message.role === 'assistant') return { role: 'assistant', content: '' }
    if (message.role !== 'user') return { role: 'system', content: '' }
    const blocks: Block[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content
    const prompt = blocks.filter((b) => b.type === 'text' && !CLI_OWN_TEXT.test(b.text ?? '')).at(-1)
    if (prompt) return { role: 'user', content: prompt.text ?? '' }
    const result = blocks.find((b) => b.type === 'tool_result')
    if (result) return { role: 'tool', content: textOfContent(result.content) }
    return { role: 'user', content: '' }
  })
}

function textOfContent(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map((c) => (typeof c === 'object' && c && 'text' in c ? String((c as Block).text) : '')).join('')
  return ''
}

/**
 * The CLI names its working directory in the environment section it sends (Claude Code 2.1.330:
 * a `system`-role message, "Primary working directory: …"); relative scenario paths land there,
 * as the fake CLI resolves them against its cwd.
 */
function workingDirectory(body: MessagesRequest): string | undefined {
  const texts = [body.system, ...(body.messages ?? []).filter((m) => m.role !== 'assistant').map((m) => m.content)]
  for (const part of texts) {
    const text = typeof part === 'string' ? part : (part ?? []).map((b) => b.text ?? '').join('\n')
    const found = /working directory: (\S+)/i.exec(text)?.[1]
    if (found) return found
  }
  return undefined
}

type Mapped = Block | { fail: string; status: number } | 'hang' | undefined

/** One scenario step as a content block; `{{toolResult}}` was already filled in by planLeg. */
function blockOf(step: Step, cwd: string | undefined): Mapped {
  switch (step.type) {
    case 'text':
      return { type: 'text', text: step.text }
    case 'tool':
      return { type: 'tool_use', id: toolId(), name: step.name, input: step.input }
    case 'produce_file':
      return { type: 'tool_use', id: toolId(), name: 'Write', input: { file_path: isAbsolute(step.path) || !cwd ? step.path : join(cwd, step.path), content: step.content } }
    case 'question':
      return { type: 'tool_use', id: toolId(), name: 'AskUserQuestion', input: { questions: [{ question: step.question, header: 'Question', multiSelect: false, options: (step.options ?? []).map((label) => ({ label, description: label })) }] } }
    case 'fail':
      return { fail: step.message, status: step.status ?? 500 }
    case 'hang':
      return 'hang'
    default:
      return undefined // usage is read separately; the other steps have no Messages API form
  }
}

function toolId(): string {
  return `toolu_${randomUUID().replaceAll('-', '').slice(0, 24)}`
}

function respond(res: ServerResponse, body: MessagesRequest, parts: Part[], stopReason: string, usage?: { input: number; output: number; cacheRead?: number }): void {
  const blocks = parts.map((p) => p.block)
  const id = `msg_${randomUUID().replaceAll('-', '').slice(0, 24)}`
  const model = body.model ?? 'claude-fake'
  const outputTokens = usage?.output ?? Math.max(1, Math.ceil(JSON.stringify(blocks).length / 4))
  const inputTokens = usage?.input ?? Math.max(1, Math.ceil(JSON.stringify(body.messages).length / 4))
  const usageBlock = { input_tokens: inputTokens, output_tokens: outputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: usage?.cacheRead ?? 0 }
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': id })
    res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model, content: blocks, stop_reason: stopReason, stop_sequence: null, usage: usageBlock }))
    return
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': id })
  const event = (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
  event('message_start', { message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usageBlock, output_tokens: 1 } } })
  parts.forEach(({ block, deltas }, index) => {
    if (block.type === 'text') {
      event('content_block_start', { index, content_block: { type: 'text', text: '' } })
      for (const text of deltas ?? []) event('content_block_delta', { index, delta: { type: 'text_delta', text } })
    } else {
      event('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } })
      event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } })
    }
    event('content_block_stop', { index })
  })
  event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: outputTokens } })
  event('message_stop', {})
  res.end()
}

function sendError(res: ServerResponse, status: number, type: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ type: 'error', error: { type, message } }))
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}
