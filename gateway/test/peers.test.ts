/** Session-to-session messaging (Peers, limits.4-6) on provider sessions. */
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { createCliPrimaryAdapter } from '../engines/cli-primary/index.ts'
import { startTestGateway, type TestGateway } from './harness.ts'

const gateways: TestGateway[] = []
afterEach(async () => {
  for (const g of gateways.splice(0)) await g.close()
})

async function start(peers: Record<string, unknown> = {}) {
  const g = await startTestGateway({ peers: { maxMessageChars: 400, perMinute: 5, maxHops: 2, ...peers } })
  gateways.push(g)
  return g
}

/** A user message that makes the session call one tool and repeat its result. */
const calling = (name: string, input: Record<string, unknown>) => `scenario:${JSON.stringify({ name: 'peer-call', steps: [{ type: 'tool', name, input }, { type: 'text', text: '{{toolResult}}' }] })}`

async function session(g: TestGateway, who: 'operator' | 'tenantA' | 'tenantB' = 'operator') {
  const s = await g.createSession({}, who)
  const ws = await g.attach(s.id, { who })
  await ws.waitForEvent('status_changed', (e) => e.status === 'idle')
  return { id: s.id as string, ws }
}

describe('peers', () => {
  it('delivers a message as a user_message with a peer origin, listed and peekable within the sender scope', async () => {
    const g = await start()
    const a = await session(g)
    const b = await session(g)
    a.ws.send({ type: 'user_message', text: calling('peers_list', {}) })
    expect(JSON.parse((await a.ws.waitForEvent('turn_result')).result).peers).toEqual(expect.arrayContaining([expect.objectContaining({ sessionId: b.id, engine: 'provider' })]))
    a.ws.send({ type: 'user_message', text: calling('peers_send', { sessionId: b.id, text: 'hello from a' }) })
    const arrived = await b.ws.waitForEvent('user_message', (e) => e.origin?.kind === 'peer')
    expect(arrived).toMatchObject({ message: { content: 'hello from a' }, origin: { kind: 'peer', sessionId: a.id, engine: 'provider', hops: 1 } })
    expect((await b.ws.waitForEvent('turn_result')).result).toBe('echo: hello from a')
    a.ws.send({ type: 'user_message', text: calling('peers_peek', { sessionId: b.id }) })
    const peeked = JSON.parse((await a.ws.waitForEvent('turn_result', (e) => e.numTurns === 3)).result)
    expect(peeked.messages).toEqual(expect.arrayContaining([expect.objectContaining({ role: 'assistant', text: 'echo: hello from a' })]))
  })

  it('keeps scopes apart: a tenant session neither sees nor reaches another tenant\'s', async () => {
    const g = await start()
    const a = await session(g, 'tenantA')
    const b = await session(g, 'tenantB')
    a.ws.send({ type: 'user_message', text: calling('peers_list', {}) })
    expect(JSON.parse((await a.ws.waitForEvent('turn_result')).result).peers.map((p: any) => p.sessionId)).not.toContain(b.id)
    a.ws.send({ type: 'user_message', text: calling('peers_send', { sessionId: b.id, text: 'psst' }) })
    expect((await a.ws.waitForEvent('turn_result', (e) => e.numTurns === 2)).result).toBe(`no such peer: ${b.id}`)
    expect(b.ws.events().some((e) => e.origin)).toBe(false)
  })

  it('never interrupts a running turn: the peer message waits for it', async () => {
    const g = await start()
    const a = await session(g)
    const b = await session(g)
    b.ws.send({ type: 'user_message', text: 'scenario:slow' })
    await b.ws.waitForEvent('status_changed', (e) => e.status === 'running')
    a.ws.send({ type: 'user_message', text: calling('peers_send', { sessionId: b.id, text: 'while you work' }) })
    const first = await b.ws.waitForEvent('turn_result')
    expect(first.isError).toBe(false)
    expect((await b.ws.waitForEvent('turn_result', (e) => e.numTurns === 2)).result).toBe('echo: while you work')
  })

  it('enforces maxMessageChars, perMinute and maxHops as tool errors', async () => {
    const g = await start({ maxMessageChars: 2000, perMinute: 3, maxHops: 2 })
    const a = await session(g)
    const b = await session(g)
    a.ws.send({ type: 'user_message', text: calling('peers_send', { sessionId: b.id, text: 'x'.repeat(2001) }) })
    expect((await a.ws.waitForEvent('turn_result')).result).toBe('message is longer than 2000 characters')
    // a → b (hop 1), b relays → a (hop 2), a relays → b would be hop 3: refused. One message counted so far.
    const third = calling('peers_send', { sessionId: b.id, text: 'three' })
    const second = calling('peers_send', { sessionId: a.id, text: third })
    a.ws.send({ type: 'user_message', text: calling('peers_send', { sessionId: b.id, text: second }) })
    const refused = await a.ws.waitForEvent('turn_result', (e) => e.result === 'relay depth would exceed 2 hops')
    expect(refused.isError).toBe(false)
    for (let i = 0; i < 3; i++) a.ws.send({ type: 'user_message', text: calling('peers_send', { sessionId: b.id, text: `n${i}` }) })
    expect((await a.ws.waitForEvent('turn_result', (e) => /rate limit/.test(e.result))).result).toBe('rate limit: at most 3 peer messages per minute')
  })

  it('offers no peer tools when disabled', async () => {
    const g = await start({ enabled: false })
    const s = await g.createSession({})
    const ws = await g.attach(s.id)
    expect((await ws.waitForEvent('system_init')).tools.filter((t: string) => t.startsWith('peers_'))).toEqual([])
  })

  it('gives cli_primary sessions the same tools through an in-process MCP server', async () => {
    const g = await startTestGateway({ peers: { maxHops: 3 }, engines: { cli_primary: createCliPrimaryAdapter({
      pathToClaudeCodeExecutable: fileURLToPath(new URL('../../fake-engines/claude-cli/main.ts', import.meta.url)),
      executable: process.execPath, executableArgs: ['--import', fileURLToPath(import.meta.resolve('tsx'))],
    }) } })
    gateways.push(g)
    const provider = await session(g)
    const cli = await g.createSession({ profile: 'primary', cwd: g.cwdRoot })
    const ws = await g.attach(cli.id)
    ws.send({ type: 'user_message', text: calling('mcp__peers__peers_send', { sessionId: provider.id, text: 'hello from the cli' }) })
    const init = await ws.waitForEvent('system_init')
    expect(init.tools).toEqual(expect.arrayContaining(['mcp__peers__peers_list', 'mcp__peers__peers_peek', 'mcp__peers__peers_send']))
    const arrived = await provider.ws.waitForEvent('user_message', (e) => e.origin?.kind === 'peer')
    expect(arrived).toMatchObject({ message: { content: 'hello from the cli' }, origin: { sessionId: cli.id, engine: 'cli_primary', hops: 1 } })
    expect((await ws.waitForEvent('turn_result')).result).toBe('{"sent":true}')
    expect(ws.events().some((e) => e.type === 'permission_requested')).toBe(false) // peer tools are pre-allowed
  })
})
