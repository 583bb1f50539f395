/**
 * A stateless MCP server on loopback (Streamable HTTP), standing in for the data services a host
 * wires to provider profiles. Its one tool, `lookup`, answers with a digest of the bearer token
 * the call arrived with, so tests can see that identity rides the transport (authentication.10)
 * and never a tool argument. GET answers 405, as a stateless endpoint must (engine-facts §3).
 */
import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { z } from 'zod'

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

function buildServer(authorization: string | undefined): McpServer {
  const server = new McpServer({ name: 'fake-docs', version: '1.0.0' })
  server.registerTool('lookup', {
    description: 'Look a term up in the fake document store',
    inputSchema: { query: z.string() },
  }, async ({ query }) => ({ content: [{ type: 'text', text: `result for ${query}; caller ${callerOf(authorization)}` }] }))
  return server
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
    try {
      const server = buildServer(authorization)
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
      res.on('close', () => { void transport.close(); void server.close() })
      await server.connect(transport)
      await transport.handleRequest(req, res, await readBody(req))
    } catch (err) {
      if (!res.headersSent) res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: (err as Error).message }))
    }
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
