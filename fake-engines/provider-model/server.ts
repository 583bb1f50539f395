/**
 * A fake OpenAI-compatible model server on loopback: `POST /v1/chat/completions` (streaming and
 * not), `GET /v1/models`. It plays scenarios picked by the last user message, so the gateway's
 * real provider engine (the AI SDK) is what gets tested.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { randomUUID } from 'node:crypto'
import { ScenarioError } from '../scenario/format.ts'
import { planLeg } from './plan.ts'
import { playLeg, type Output, type ToolCall, type Usage } from './play.ts'
import { bindCall, toolsOf } from './tool-binding.ts'
import { checkChatRequest, textOf, type ChatRequest, type WireUsage } from './wire.ts'

export interface FakeModelServerOptions {
  port?: number
  host?: string
  scenariosDir?: string
  /**
   * Scenario tool name → the target's tool name, for a target whose tools match neither by name
   * nor by suffix (e.g. `{eval_script: 'run_js'}`); arguments still follow the target's schema.
   */
  toolNames?: Record<string, string>
}

export interface FakeModelServer {
  url: string
  /** The OpenAI-compatible base URL, ending in `/v1`. */
  baseURL: string
  close(): Promise<void>
}

const MAX_BODY = 16 * 1024 * 1024
export const FAKE_MODELS = ['fake-small', 'fake-large']

export async function startFakeModelServer(options: FakeModelServerOptions = {}): Promise<FakeModelServer> {
  const server = createServer((req, res) => {
    handle(req, res, options).catch(() => {
      if (!res.headersSent) sendError(res, 500, 'internal error')
      else res.destroy()
    })
  })
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const url = `http://${options.host ?? '127.0.0.1'}:${port}`
  return {
    url,
    baseURL: `${url}/v1`,
    close: () => new Promise((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    }),
  }
}

async function handle(req: IncomingMessage, res: ServerResponse, options: FakeModelServerOptions): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://x').pathname
  if (req.method === 'GET' && path === '/v1/models') {
    return sendJson(res, 200, { object: 'list', data: FAKE_MODELS.map((id) => ({ id, object: 'model', owned_by: 'fake' })) })
  }
  if (path !== '/v1/chat/completions') return sendError(res, 404, `no route ${path}`)
  if (req.method !== 'POST') return sendError(res, 405, 'method not allowed')
  let body: unknown
  try {
    body = JSON.parse(await readBody(req))
  } catch (err) {
    return sendError(res, 400, `invalid JSON body: ${(err as Error).message}`)
  }
  const problem = checkChatRequest(body)
  if (problem) return sendError(res, 400, problem)
  const request = body as ChatRequest
  let plan
  try {
    plan = planLeg(request.messages, options.scenariosDir)
  } catch (err) {
    if (err instanceof ScenarioError) return sendError(res, 400, err.message)
    throw err
  }
  const abort = new AbortController()
  res.on('close', () => abort.abort())
  const promptChars = request.messages.reduce((n, m) => n + textOf(m).length, 0)
  const tools = toolsOf(request.tools)
  const bind = (call: ToolCall) => bindCall(call, tools, options.toolNames)
  const outputs = playLeg(plan.steps, promptChars, abort.signal, randomUUID().slice(0, 8), bind)
  if (request.stream) return streamResponse(res, request, outputs)
  return plainResponse(res, request, outputs)
}

async function plainResponse(res: ServerResponse, request: ChatRequest, outputs: AsyncGenerator<Output, Usage>): Promise<void> {
  let text = ''
  const calls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> = []
  for (;;) {
    const next = await outputs.next()
    if (next.done) {
      const message = { role: 'assistant', content: text || null, ...(calls.length ? { tool_calls: calls } : {}) }
      return sendJson(res, 200, {
        id: `chatcmpl-${randomUUID()}`, object: 'chat.completion', created: now(), model: request.model,
        choices: [{ index: 0, message, finish_reason: calls.length ? 'tool_calls' : 'stop' }],
        usage: wireUsage(next.value),
      })
    }
    const out = next.value
    if (out.kind === 'text') text += out.text
    else if (out.kind === 'tool') calls.push({ id: out.id, type: 'function', function: { name: out.name, arguments: out.args } })
    else if (out.kind === 'fail') return sendError(res, out.status, out.message)
    else if (out.kind === 'crash') return void res.socket?.destroy()
    else if (out.kind === 'hang') return // never answers; the client aborts
  }
}

async function streamResponse(res: ServerResponse, request: ChatRequest, outputs: AsyncGenerator<Output, Usage>): Promise<void> {
  const id = `chatcmpl-${randomUUID()}`
  const base = { id, object: 'chat.completion.chunk', created: now(), model: request.model }
  let started = false
  let toolIndex = 0
  const chunk = (delta: object, finish: string | null = null) => {
    if (!started) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
      started = true
    }
    res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`)
  }
  chunk({ role: 'assistant', content: '' })
  for (;;) {
    const next = await outputs.next()
    if (next.done) {
      chunk({}, toolIndex ? 'tool_calls' : 'stop')
      if (request.stream_options?.include_usage) res.write(`data: ${JSON.stringify({ ...base, choices: [], usage: wireUsage(next.value) })}\n\n`)
      res.end('data: [DONE]\n\n')
      return
    }
    const out = next.value
    if (out.kind === 'text') chunk({ content: out.text })
    else if (out.kind === 'tool') chunk({ tool_calls: [{ index: toolIndex++, id: out.id, type: 'function', function: { name: out.name, arguments: out.args } }] })
    else if (out.kind === 'fail') {
      // Mid-stream failures arrive as an error event, the way OpenAI-compatible servers send them.
      res.end(`data: ${JSON.stringify({ error: { message: out.message, type: 'server_error', code: out.status } })}\n\n`)
      return
    } else if (out.kind === 'crash') return void res.socket?.destroy()
    else if (out.kind === 'hang') return
  }
}

function wireUsage(usage: Usage): WireUsage {
  const wire: WireUsage = { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output }
  if (usage.cacheRead) wire.prompt_tokens_details = { cached_tokens: usage.cacheRead }
  return wire
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size > MAX_BODY) {
        reject(new Error('body too large'))
        req.destroy()
        return
      }
      chunks.push(c)
    })
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) })
  res.end(json)
}

function sendError(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, { error: { message, type: status < 500 ? 'invalid_request_error' : 'server_error', code: null } })
}

function now(): number {
  return Math.floor(Date.now() / 1000)
}
