/**
 * MCP servers on provider sessions (embedding-rules.10, authentication.10, errors.14), against a
 * real MCP server on loopback: a per-session bearer token on the transport, connect-or-refuse at
 * build, tokens revoked when the session closes.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { callerOf, startFakeMcpServer, type FakeMcpServer } from '../../fake-engines/mcp-server/server.ts'
import type { ProfileConfig } from '../protocol/index.ts'
import { startTestGateway, type TestGateway } from './harness.ts'

const opened: Array<TestGateway | FakeMcpServer> = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const PROFILES: ProfileConfig[] = [
  { name: 'default', engine: 'provider', provider: { id: 'fake', model: 'fake-small' }, session: { mcpServers: [] } },
  { name: 'docs', engine: 'provider', provider: { id: 'fake', model: 'fake-small' }, session: { mcpServers: ['docs'] } },
  { name: 'broken', engine: 'provider', provider: { id: 'fake', model: 'fake-small' }, session: { mcpServers: ['docs', 'offline'] } },
  { name: 'unwired', engine: 'provider', provider: { id: 'fake', model: 'fake-small' }, session: { mcpServers: ['nobody-wired-this'] } },
]

async function start() {
  const mcp = await startFakeMcpServer()
  opened.push(mcp)
  const revoked: string[] = []
  const g = await startTestGateway({ profiles: PROFILES }, {
    mcpServers: {
      docs: { url: mcp.url, revokeToken: (token) => { revoked.push(token); mcp.revoke(token) } },
      offline: { url: 'http://127.0.0.1:9/mcp' },
    },
  })
  opened.push(g)
  return { g, mcp, revoked }
}

const call = (query: string) => `scenario:${JSON.stringify({ name: 'mcp-call', steps: [{ type: 'tool', name: 'mcp__docs__lookup', input: { query } }, { type: 'text', text: '{{toolResult}}' }] })}`

describe('MCP servers on provider sessions', () => {
  it('connects granted servers with a per-session bearer token on the transport, never a tool argument', async () => {
    const { g, mcp } = await start()
    const results: string[] = []
    for (const query of ['alpha', 'beta']) {
      const session = await g.createSession({ profile: 'docs' })
      const ws = await g.attach(session.id)
      expect((await ws.waitForEvent('system_init')).tools).toContain('mcp__docs__lookup')
      ws.send({ type: 'user_message', text: call(query) })
      const result = await ws.waitForEvent('turn_result')
      results.push(result.result)
      const transcript = JSON.stringify(ws.events())
      expect(transcript).not.toMatch(/Bearer/)
      const servers = await g.request('GET', `/sessions/${session.id}/mcp`)
      expect(servers.body.servers).toEqual([expect.objectContaining({ name: 'docs', status: 'connected', tools: [expect.objectContaining({ name: 'lookup' })] })])
      expect(servers.text).not.toMatch(/Bearer|authorization/i)
      ws.close()
    }
    const callers = results.map((r) => /caller (\w+)/.exec(r)?.[1])
    expect(results[0]).toMatch(/^"?result for alpha; caller /)
    expect(callers[0]).not.toBe(callers[1]) // one identity per session
    expect(mcp.authorizations.every((a) => /^Bearer [\w-]{20,}$/.test(a))).toBe(true)
    expect(callers).toEqual(expect.arrayContaining([callerOf(mcp.authorizations[0])]))
  })

  it('refuses to build a session whose profile names a server that does not connect, or that nobody wired', async () => {
    const { g, revoked } = await start()
    const broken = await g.request('POST', '/sessions', { body: { profile: 'broken' } })
    expect(broken.status).toBe(502)
    expect(broken.body.error).toMatch(/MCP server 'offline' did not connect/)
    expect(revoked).toHaveLength(1) // the connection that did open was closed and its token revoked
    const unwired = await g.request('POST', '/sessions', { body: { profile: 'unwired' } })
    expect(unwired.status).toBe(502)
    expect(unwired.body.error).toMatch(/not wired by the host/)
    expect((await g.request('POST', '/sessions', { body: { profile: 'default' } })).status).toBe(201)
  })

  it('revokes the session token on close, and the MCP server then refuses it', async () => {
    const { g, mcp, revoked } = await start()
    const session = await g.createSession({ profile: 'docs' })
    await g.request('DELETE', `/sessions/${session.id}`)
    for (const deadline = Date.now() + 5000; !revoked.length && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 10))
    expect(revoked).toHaveLength(1)
    expect(mcp.authorizations.at(-1)).toBe(`Bearer ${revoked[0]}`)
    const replay = await fetch(mcp.url, { method: 'POST', headers: { authorization: `Bearer ${revoked[0]}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) })
    expect(replay.status).toBe(401)
    expect((await fetch(mcp.url)).status).toBe(405) // a stateless endpoint answers GET with 405
  })
})
