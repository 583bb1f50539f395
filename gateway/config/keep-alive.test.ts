/**
 * listen.keepAliveTimeoutMs: an idle keep-alive connection stays open that long (by default
 * above a load balancer's idle timeout, so the balancer never reuses a connection the gateway is
 * closing), then the gateway closes it; the headers timeout stays above it.
 */
import { connect } from 'node:net'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { configSchema, KEEP_ALIVE_TIMEOUT_MS } from './schema.ts'
import { serveConfigFile } from './serve.ts'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gw-keep-alive-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const quiet = new Writable({ write(_chunk, _encoding, done) { done() } })

async function serve(listen: Record<string, unknown>) {
  const file = join(dir, `gateway-${Math.random().toString(36).slice(2)}.json`)
  await writeFile(file, JSON.stringify({ auth: { allowUnauthenticated: true }, profiles: [], listen }))
  return serveConfigFile(file, { port: 0, host: '127.0.0.1', logDestination: quiet })
}

describe('listen.keepAliveTimeoutMs', () => {
  it('defaults to 65 s, above an AWS ALB\'s 60 s idle timeout, with the headers timeout above it', async () => {
    expect(configSchema.parse({ auth: { allowUnauthenticated: true }, profiles: [] }).listen.keepAliveTimeoutMs).toBe(65_000)
    const running = await serve({})
    try {
      expect(running.gateway.server.keepAliveTimeout).toBe(KEEP_ALIVE_TIMEOUT_MS)
      expect(running.gateway.server.headersTimeout).toBeGreaterThan(KEEP_ALIVE_TIMEOUT_MS)
    } finally {
      await running.shutdown()
    }
  })

  it('keeps an idle keep-alive connection open for the configured time, then closes it', async () => {
    const running = await serve({ keepAliveTimeoutMs: 300 })
    try {
      const socket = connect(running.port, '127.0.0.1')
      let answer = ''
      socket.on('data', (chunk: Buffer) => { answer += chunk.toString() })
      const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now())))
      socket.write('GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: keep-alive\r\n\r\n')
      await expect.poll(() => answer.includes('\r\n\r\n')).toBe(true)
      const answeredAt = performance.now()
      expect(answer).toMatch(/^HTTP\/1\.1 200/)
      // The server, not the client, ends the idle connection, no sooner than the configured time.
      expect(await closed - answeredAt).toBeGreaterThanOrEqual(200)
    } finally {
      await running.shutdown()
    }
  })
})
