import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createGatewayServer } from '../server/create-server.ts'

const authenticate = () => ({})

describe('createGatewayServer refuses every misconfiguration the spec names (errors.13)', () => {
  it('throws without authenticate unless allowUnauthenticated is set', () => {
    expect(() => createGatewayServer({ profiles: [] })).toThrow(/authenticate hook is required/)
    expect(() => createGatewayServer({ profiles: [], allowUnauthenticated: true })).not.toThrow()
  })

  it('throws for a provider profile without createEngineRunner', () => {
    expect(() => createGatewayServer({
      authenticate, profiles: [{ name: 'p', engine: 'provider', provider: { id: 'x', model: 'm' } }],
    })).toThrow(/needs the createEngineRunner option/)
  })

  it('throws for a configDir that does not exist', () => {
    expect(() => createGatewayServer({
      authenticate, profiles: [{ name: 'c', engine: 'cli_primary', configDir: '/definitely/not/here' }],
    })).toThrow(/configDir '\/definitely\/not\/here' does not exist/)
  })

  it('accepts a configDir that exists', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cfg-'))
    expect(() => createGatewayServer({ authenticate, profiles: [{ name: 'c', configDir: dir }] })).not.toThrow()
  })

  it('throws for a default permissionMode outside the engine record', () => {
    expect(() => createGatewayServer({
      authenticate, createEngineRunner: () => { throw new Error('unused') },
      profiles: [{ name: 'p', engine: 'provider', provider: { id: 'x', model: 'm' }, defaults: { permissionMode: 'acceptEdits' } }],
    })).toThrow(/default permissionMode 'acceptEdits' is not supported by engine provider/)
  })

  it('throws for duplicate profile names and unknown engines', () => {
    expect(() => createGatewayServer({ authenticate, profiles: [{ name: 'a' }, { name: 'a' }] })).toThrow(/duplicate profile name 'a'/)
    expect(() => createGatewayServer({ authenticate, profiles: [{ name: 'a', engine: 'nope' as never }] })).toThrow(/unknown engine 'nope'/)
  })

  it('throws for a wildcard CORS origin and a bad maxBodyBytes', () => {
    expect(() => createGatewayServer({ authenticate, profiles: [], cors: { origins: ['*'] } })).toThrow(/wildcard/)
    expect(() => createGatewayServer({ authenticate, profiles: [], maxBodyBytes: 0 })).toThrow(/maxBodyBytes/)
  })

  it('throws for webSockets limits that are not positive integers, a bound under 64 KiB, or an unknown key', () => {
    expect(() => createGatewayServer({ authenticate, profiles: [], webSockets: { maxPerSession: 0 } })).toThrow(/webSockets\.maxPerSession must be a positive integer/)
    expect(() => createGatewayServer({ authenticate, profiles: [], webSockets: { slowReaderTimeoutMs: 1.5 } })).toThrow(/webSockets\.slowReaderTimeoutMs/)
    expect(() => createGatewayServer({ authenticate, profiles: [], webSockets: { maxBufferedBytes: 1000 } })).toThrow(/at least 65536/)
    expect(() => createGatewayServer({ authenticate, profiles: [], webSockets: { maxBuffered: 1 } as never })).toThrow(/webSockets\.maxBuffered is not an option/)
    expect(() => createGatewayServer({ authenticate, profiles: [], webSockets: { maxBufferedBytes: 65536, maxPerPrincipal: 1 } })).not.toThrow()
  })

  it('listens on an ephemeral port and closes cleanly', async () => {
    const gateway = createGatewayServer({ authenticate, profiles: [] })
    const { port, url } = await gateway.listen(0, '127.0.0.1')
    expect(port).toBeGreaterThan(0)
    expect(url).toBe(`http://127.0.0.1:${port}/v1`)
    const res = await fetch(`${url}/sessions`)
    expect(res.status).toBe(200)
    await gateway.close()
  })
})
