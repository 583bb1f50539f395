/**
 * MCP servers for provider sessions (embedding-rules.10, authentication.10, errors.14). The host
 * wires servers by name; the profile's `session.mcpServers` grants them (absent: all wired, `[]`:
 * none). Each session mints its own bearer token, sent as the transport's `authorization` header
 * (never a tool argument); every granted server must connect or the build fails; the close hook,
 * which also runs on park, closes the connections and revokes the tokens.
 */
import { randomBytes } from 'node:crypto'
import type { JSONSchema7 } from '@ai-sdk/provider'
import type { LocalTool } from './tools.ts'

export interface McpServerWiring {
  /** Streamable HTTP endpoint. stdio servers are not offered to embedded agents. */
  url: string
  /** Mints the per-session credential; the default is a random bearer token the server must accept. */
  mintToken?(session: { sessionId: string; profile: string }): Promise<string> | string
  /** Called on close and park with the token minted for that session. */
  revokeToken?(token: string): Promise<void> | void
}

export interface McpConnection {
  name: string
  url: string
  tools: LocalTool[]
  /** For `/sessions/:id/mcp`: no headers, no token. */
  describe(): { name: string; status: 'connected'; transport: 'http'; url: string; tools: Array<{ name: string; description?: string; inputSchema?: unknown }> }
  dispose(): Promise<void>
}

export async function connectMcpServers(
  wiring: Record<string, McpServerWiring>, granted: readonly string[] | undefined, session: { sessionId: string; profile: string },
): Promise<McpConnection[]> {
  const names = granted ?? Object.keys(wiring)
  const connections: McpConnection[] = []
  try {
    for (const name of names) {
      const server = wiring[name]
      if (!server) throw new Error(`MCP server '${name}' named by profile ${session.profile} is not wired by the host`)
      connections.push(await connectOne(name, server, session))
    }
    return connections
  } catch (err) {
    await Promise.all(connections.map((c) => c.dispose()))
    throw err
  }
}

async function connectOne(name: string, server: McpServerWiring, session: { sessionId: string; profile: string }): Promise<McpConnection> {
  const token = server.mintToken ? await server.mintToken(session) : randomBytes(24).toString('base64url')
  // Loaded on the first connection, not at start: the SDK (with its zod and ajv) was the largest
  // single import of `gateway serve` in a start-up profile, and most profiles wire no MCP.
  const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'), import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ])
  const client = new Client({ name: 'agent-session-gateway', version: '1' })
  const transport = new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } })
  let listed
  try {
    await client.connect(transport)
    listed = await client.listTools()
  } catch (err) {
    await client.close().catch(() => undefined)
    await server.revokeToken?.(token)
    throw new Error(`MCP server '${name}' did not connect: ${(err as Error).message}`)
  }
  const tools: LocalTool[] = listed.tools.map((tool) => ({
    kind: 'local',
    name: `mcp__${name}__${tool.name}`,
    description: tool.description ?? tool.name,
    inputSchema: (tool.inputSchema ?? { type: 'object' }) as JSONSchema7,
    async run(input) {
      try {
        const result = await client.callTool({ name: tool.name, arguments: input })
        const text = Array.isArray(result.content) ? result.content.map((c) => (c.type === 'text' ? c.text : JSON.stringify(c))).join('\n') : JSON.stringify(result)
        return result.isError ? { ok: false, error: text } : { ok: true, value: text }
      } catch (err) {
        return { ok: false, error: `MCP call failed: ${(err as Error).message}` }
      }
    },
  }))
  let disposed = false
  return {
    name, url: server.url, tools,
    describe: () => ({ name, status: 'connected', transport: 'http', url: server.url, tools: listed.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })) }),
    async dispose() {
      if (disposed) return
      disposed = true
      await client.close().catch(() => undefined)
      await server.revokeToken?.(token)
    },
  }
}
