/**
 * A stateless MCP server on loopback (Streamable HTTP), standing in for the data services a host
 * wires to provider profiles. Its one tool, `lookup`, answers with a digest of the bearer token
 * the call arrived with, so tests can see that identity rides the transport (authentication.10)
 * and never a tool argument. GET answers 405, as a stateless endpoint must (engine-facts §3).
 *
 * It speaks the protocol's few JSON-RPC methods itself (initialize, ping, tools/list, tools/call;
 * every answer a plain JSON response, which Streamable HTTP allows) rather than through the MCP
 * SDK's server, whose HTTP stack (express, hono, ajv) would triple the conformance kit's install
 * size. The gateway's side stays the real MCP SDK client, so the fake is checked by it.
 */
import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface FakeMcpServer {
  url: string
  /** Authorization headers seen, in order (tests check identity and revocation). */
  readonly authorizations: string[]
  /** Tokens refused from now on: a revoked token gets 401. */
  revoke(token: string): void
  close(): Promise<void>
}

export function callerOf(authorization: string | undefined): string {
  return createHash('sha256').update(authorization ?? '').digest('hex').slice(0, 12)
}

interface JsonRpcRequest { jsonrpc: '2.0'; id?: string | number; method: string; params?: Record<string, unknown> }

const LOOKUP_TOOL = {
  name: 'lookup',
  description: 'Look a term up in the fake document store',
  inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'], additionalProperties: false },
}

/** The result of one request, or a JSON-RPC error. */
function answer(request: JsonRpcRequest, authorization: string): { result: unknown } | { error: { code: number; message: string } } {
  switch (request.method) {
    case 'initialize':
      // Any version the client asks for is fine for a fake with one tool.
      return { result: { protocolVersion: request.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'fake-docs', version: '1.0.0' } } }
    case 'ping':
      return { result: {} }
    case 'tools/list':
      return { result: { tools: [LOOKUP_TOOL] } }
    case 'tools/call': {
      const { name, arguments: args } = (request.params ?? {}) as { name?: string; arguments?: { query?: unknown } }
      if (name !== LOOKUP_TOOL.name) return { error: { code: -32602, message: `unknown tool ${String(name)}` } }
      if (typeof args?.query !== 'string') return { result: { content: [{ type: 'text', text: 'query must be a string' }], isError: true } }
      return { result: { content: [{ type: 'text', text: `result for ${args.query}; caller ${callerOf(authorization)}` }] } }
    }
    default:
      return { error: { code: -32601, message: `method not found: ${request.method}` } }
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  let text = ''
  for await (const chunk of req) text += chunk
  return text ? JSON.parse(text) : undefined
}

export async function startFakeMcpServer(options: { host?: string; port?: number } = {}): Promise<FakeMcpServer> {
  const authorizations: string[] = []
  const revoked = new Set<string>()
  const http = createServer(async (req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' }).end(JSON.stringify({ error: 'method not allowed' }))
      return
    }
    const authorization = req.headers.authorization
    authorizations.push(authorization ?? '')
    if (!authorization || revoked.has(authorization.replace(/^Bearer /, ''))) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized' }))
      return
    }
    let message: JsonRpcRequest
    try {
      message = (await readBody(req)) as JsonRpcRequest
    } catch (err) {
      json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: `parse error: ${(err as Error).message}` } })
      return
    }
    if (!message || typeof message.method !== 'string') {
      json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } })
      return
    }
    // A notification (no id) gets no JSON-RPC answer: 202 Accepted with an empty body.
    if (message.id === undefined) {
      res.writeHead(202).end()
      return
    }
    json(res, 200, { jsonrpc: '2.0', id: message.id, ...answer(message, authorization) })
  })
  await new Promise<void>((resolve) => http.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve))
  const { port } = http.address() as AddressInfo
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}/mcp`,
    authorizations,
    revoke: (token) => { revoked.add(token) },
    close: () => new Promise<void>((resolve) => { http.closeAllConnections(); http.close(() => resolve()) }),
  }
}
