/**
 * A fake of the OpenAI Responses API on loopback (`POST /v1/responses`, server-sent events), so
 * the real `codex app-server` runs with only its model faked (reference/codex-app-server-protocol.md
 * §13). The latest user message picks a scenario from scenarios/ (`scenario:<name>`, inline JSON,
 * else an echo); each tool output after it advances one leg. Codex's reviewer call under
 * `auto_review` (a request with a JSON `text.format`) is answered "allow".
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { echoScenario, selectScenario } from '../../scenario/select.ts'
import { legsOf, ScenarioError, type Scenario } from '../../scenario/format.ts'
import { playResponse, type SseWriter } from './play.ts'
import { answerIdentity, IDENTITY_PATH } from '../identity.ts'

export interface FakeResponsesServer {
  url: string
  /** The base URL for codex's `model_providers.<id>.base_url`, ending in `/v1`. */
  baseURL: string
  /** Every request body received, in order (tests read what the model was sent). */
  requests: Array<Record<string, unknown>>
  close(): Promise<void>
}

const MAX_BODY = 32 * 1024 * 1024

export async function startFakeResponsesServer(options: { host?: string; port?: number; scenariosDir?: string } = {}): Promise<FakeResponsesServer> {
  const requests: Array<Record<string, unknown>> = []
  const server = createServer((req, res) => {
    handle(req, res, requests, options.scenariosDir).catch(() => {
      if (!res.headersSent) sendError(res, 500, 'internal error')
      else res.destroy()
    })
  })
  const host = options.host ?? '127.0.0.1'
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve))
  const { port } = server.address() as AddressInfo
  const url = `http://${host}:${port}`
  return {
    url, baseURL: `${url}/v1`, requests,
    close: () => new Promise((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    }),
  }
}

async function handle(req: IncomingMessage, res: ServerResponse, requests: Array<Record<string, unknown>>, scenariosDir?: string): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://x').pathname
  if (req.method === 'GET' && path === IDENTITY_PATH) return answerIdentity(res, 'openai-responses')
  if (req.method === 'GET' && path === '/v1/models') return sendJson(res, 200, { object: 'list', data: [], models: [] })
  if (path !== '/v1/responses') return sendError(res, 404, `no route ${path}`)
  if (req.method !== 'POST') return sendError(res, 405, 'method not allowed')
  let body: Record<string, unknown>
  try {
    body = JSON.parse(await readBody(req)) as Record<string, unknown>
  } catch {
    return sendError(res, 400, 'the body is not JSON')
  }
  requests.push(body)
  const input = Array.isArray(body.input) ? (body.input as Array<Record<string, unknown>>) : []
  const sse = sseWriter(res)
  if (isReviewerCall(body)) {
    // Codex's auto_review sub-call asks for a JSON verdict (reference §8).
    return playResponse(sse, [{ type: 'text', text: JSON.stringify({ outcome: 'allow', risk_level: 'low', user_authorization: 'unknown', rationale: 'fake reviewer allows' }) }], { toolResult: '', callPrefix: 'review' })
  }
  const { text, after } = lastUserMessage(input)
  let scenario: Scenario
  try {
    scenario = selectScenario(text, scenariosDir) ?? echoScenario(text)
  } catch (err) {
    if (!(err instanceof ScenarioError)) throw err
    scenario = { name: 'bad', steps: [{ type: 'fail', message: err.message }] }
  }
  const outputs = after.filter((i) => i.type === 'function_call_output' || i.type === 'custom_tool_call_output')
  const legs = legsOf(scenario)
  const leg = legs[Math.min(outputs.length, legs.length - 1)]
  const last = outputs.at(-1)
  await playResponse(sse, outputs.length >= legs.length ? [{ type: 'text', text: 'done' }] : leg, { toolResult: last ? outputText(last.output) : '', callPrefix: `call_${outputs.length}`, ...(typeof body.model === 'string' ? { model: body.model } : {}), signal: abortOn(req, res) })
}

function isReviewerCall(body: Record<string, unknown>): boolean {
  const format = (body.text as { format?: { type?: string } } | undefined)?.format
  return format?.type === 'json_schema'
}

/** Codex's own user-role text: its context (environment, instructions) and the marker of an interrupted turn. */
const CODEX_OWN_TEXT = /^\s*<(environment_context|user_instructions|permissions|turn_aborted)/

/**
 * The latest prompt, and the items after its message (this turn's tool calls and outputs). A
 * prompt is the last `input_text` of a user message that is not codex's own, so neither a context
 * message nor an interrupted turn's marker, alone or in the prompt's message, hides or selects it.
 */
function lastUserMessage(input: Array<Record<string, unknown>>): { text: string; after: Array<Record<string, unknown>> } {
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i]
    if (item.type === 'message' && item.role === 'user') {
      const content = Array.isArray(item.content) ? (item.content as Array<Record<string, unknown>>) : []
      const prompt = content.filter((c) => c.type === 'input_text' && !CODEX_OWN_TEXT.test(String(c.text))).at(-1)
      if (prompt) return { text: String(prompt.text), after: input.slice(i + 1) }
    }
  }
  return { text: '', after: [] }
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output
  if (Array.isArray(output)) return output.map((o) => (typeof o?.text === 'string' ? o.text : '')).join('')
  return JSON.stringify(output ?? '')
}

function abortOn(req: IncomingMessage, res: ServerResponse): AbortSignal {
  const controller = new AbortController()
  res.on('close', () => controller.abort())
  req.on('aborted', () => controller.abort())
  return controller.signal
}

function sseWriter(res: ServerResponse): SseWriter {
  let started = false
  return {
    event(type, data) {
      if (!started) {
        started = true
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      }
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
    },
    fail(status, message) {
      if (started) {
        res.write(`event: response.failed\ndata: ${JSON.stringify({ type: 'response.failed', response: { status: 'failed', error: { code: 'server_error', message } } })}\n\n`)
        res.end()
      } else sendError(res, status, message)
    },
    end() {
      res.end()
    },
    destroy() {
      res.destroy()
    },
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size > MAX_BODY) reject(new Error('too large'))
      else chunks.push(c)
    })
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

function sendError(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, { error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', code: null } })
}
