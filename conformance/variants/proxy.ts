/**
 * The variation proxy: a gateway as another implementation might legally write it, made by
 * standing in front of a real one (HTTP REST, the session and queue WebSockets, and job and
 * notification webhook deliveries, which it relays) and taking each choice the spec leaves open
 * the other way (variations.ts). The kit run through it must pass as the gateway itself does;
 * a real deviation behind it must still fail.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocketServer } from 'ws'
import { EventNumbering } from './event-numbering.ts'
import { jobEvent, notification, protocolStatus, restBody, restStatus, scopedRefusal, type ShapeContext } from './shapes.ts'
import { ALL_VARIATIONS, type VariationName } from './variations.ts'
import { relayUpgrade } from './ws-relay.ts'

export interface VariantProxyOptions {
  /** The gateway's base URL including its basePath (e.g. http://127.0.0.1:8787/v1); settable later. */
  upstream?: string
  variations?: Iterable<VariationName>
  /** Bearer tokens of the principals carrying a scope (variation `scoped-refusal-403`). */
  scopedTokens?: Iterable<string>
  host?: string
  port?: number
}

export interface VariantProxy {
  /** The proxy's base URL: the upstream's basePath on the proxy's origin. */
  readonly baseUrl: string
  /** Where a webhook meant for `target` is sent so that it passes through the proxy. */
  hookUrl(target: string): string
  setUpstream(upstream: string): void
  setScopedTokens(tokens: Iterable<string>): void
  close(): Promise<void>
}

const HOOK_PATH = '/__variants/hook'
const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade'])

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

function parseJson(body: Buffer): unknown {
  try { return body.length ? JSON.parse(body.toString('utf8')) : undefined } catch { return undefined }
}

interface Answer { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }

/** One request upstream; an early answer (a refused oversized body) wins over a write error. */
function forward(url: URL, method: string, headers: Record<string, string | string[] | undefined>, body: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const out: Record<string, string | string[]> = {}
    for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v
    if (body.length || !['GET', 'HEAD'].includes(method)) out['content-length'] = String(body.length)
    let answered = false
    const req = httpRequest(url, { method, headers: out }, (res) => {
      answered = true
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', (err) => { if (!answered) reject(err) })
    req.end(body)
  })
}

export async function startVariantProxy(options: VariantProxyOptions = {}): Promise<VariantProxy> {
  const c: ShapeContext = { on: new Set(options.variations ?? ALL_VARIATIONS), numbering: new EventNumbering(), scopedTokens: new Set(options.scopedTokens ?? []) }
  let upstream = options.upstream ? new URL(options.upstream) : undefined
  const basePath = () => (upstream?.pathname ?? '/v1').replace(/\/$/, '')
  let origin = ''
  const hookUrl = (target: string) => `${origin}${HOOK_PATH}?to=${encodeURIComponent(target)}`

  /** A webhook delivery relayed to its real receiver, rewritten like every other shape. */
  async function relayHook(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
    const to = new URL(req.url ?? '/', 'http://proxy.invalid').searchParams.get('to')
    if (!to) return void res.writeHead(400).end()
    const json = parseJson(body) as any
    const rewritten = typeof json?.type === 'string' && json.type.startsWith('job_') ? jobEvent(json, c) : notification(json, c)
    const answer = await forward(new URL(to), 'POST', req.headers, json === undefined ? body : Buffer.from(JSON.stringify(rewritten)))
    res.writeHead(answer.status).end(answer.body)
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET'
    const url = new URL(req.url ?? '/', 'http://proxy.invalid')
    let body = await readBody(req)
    if (url.pathname === HOOK_PATH) return relayHook(req, res, body)
    if (!upstream) return void res.writeHead(503).end('no upstream yet')
    const route = url.pathname.startsWith(`${basePath()}/`) ? url.pathname.slice(basePath().length) : url.pathname
    const json = parseJson(body) as any
    // Job webhooks pass through the proxy too, so JobEvent variations reach them.
    if (method === 'POST' && route === '/jobs' && typeof json?.webhook?.url === 'string') {
      body = Buffer.from(JSON.stringify({ ...json, webhook: { ...json.webhook, url: hookUrl(json.webhook.url) } }))
    }
    const answer = await forward(new URL(`${url.pathname}${url.search}`, upstream.origin), method, req.headers, body)
    let status = restStatus(method, route, answer.status, c)
    if (scopedRefusal(route, req.headers.authorization, status, c)) status = 403
    status = protocolStatus(method, req.headers['access-control-request-method'] !== undefined, status, c)
    if (status === 413 && c.on.has('body-overflow-400') && ['POST', 'PUT', 'PATCH'].includes(method) && !/\/attachments$/.test(route)) status = 400
    const headers = { ...answer.headers }
    for (const h of HOP_BY_HOP) delete headers[h]
    let out = answer.body
    if (status === 204) out = Buffer.alloc(0)
    else if (String(answer.headers['content-type'] ?? '').includes('json')) {
      const parsed = parseJson(answer.body)
      if (parsed !== undefined) out = Buffer.from(JSON.stringify(restBody(status, parsed, c)))
    }
    if (status === 204) delete headers['content-type']
    else headers['content-length'] = String(out.length)
    res.writeHead(status, headers as Record<string, string | string[]>).end(out)
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' })
      res.end(`variation proxy: ${(err as Error).message}`)
    })
  })
  const wss = new WebSocketServer({ noServer: true })
  server.on('upgrade', (req, socket, head) => {
    if (!upstream) return socket.destroy()
    relayUpgrade(c, wss, upstream, basePath(), req, socket, head)
  })
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve))
  origin = `http://${options.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`
  return {
    get baseUrl() { return `${origin}${basePath()}` },
    hookUrl,
    setUpstream(next: string) { upstream = new URL(next) },
    setScopedTokens(tokens: Iterable<string>) { c.scopedTokens = new Set(tokens) },
    close: () => new Promise<void>((resolve) => {
      for (const ws of wss.clients) ws.terminate()
      server.close(() => resolve())
      server.closeAllConnections()
    }),
  }
}
