/**
 * The access log of `gateway serve` as a real child process: its lines are buffered and written
 * off the request's path (config/logger.ts), and none is lost when the gateway stops on SIGTERM
 * right after answering: every request's line is on stdout, valid JSON, with the documented fields
 * (docs/operating.md §5), followed by the shutdown's own lines.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startFakeModelServer } from '../../fake-engines/provider-model/server.ts'
import { createToken } from '../config/principals.ts'
import { serveGateway } from './gateway-command.ts'

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const REQUESTS = 400
const ACCESS_FIELDS = ['bytes', 'durationMs', 'kind', 'level', 'method', 'msg', 'pid', 'principal', 'requestId', 'route', 'sessionId', 'status', 'time']

async function servedGateway() {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'gw-access-log-')))
  cleanups.push(() => rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }))
  const model = await startFakeModelServer({ host: '127.0.0.1', port: 0 })
  cleanups.push(() => model.close())
  await mkdir(join(dir, 'work'))
  const token = await createToken(join(dir, 'principals.json'), { id: 'ops', operator: true })
  const config = join(dir, 'gateway.json')
  await writeFile(config, JSON.stringify({
    auth: { principalsFile: 'principals.json' },
    profiles: [{ name: 'default', engine: 'provider', provider: { id: 'openai-compatible', baseURL: model.baseURL, model: 'fake-small' } }],
    allowedCwdRoots: ['work'],
    shutdown: { graceMs: 2000 },
  }))
  const gw = await serveGateway(config, { ...process.env, GATEWAY_LOG_LEVEL: 'info' })
  cleanups.push(() => void gw.child.kill('SIGKILL'))
  return { gw, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }
}

describe('gateway serve: the access log', { timeout: 90_000 }, () => {
  it('has every request\'s line, whole and with the same fields, on stdout after a SIGTERM that follows the last answer', async () => {
    const { gw, headers } = await servedGateway()
    const created = await fetch(`${gw.url}/sessions`, { method: 'POST', headers, body: JSON.stringify({ profile: 'default' }) })
    expect(created.status).toBe(201)
    const sessionId = ((await created.json()) as { session: { id: string } }).session.id
    let next = 0
    await Promise.all(Array.from({ length: 8 }, async () => {
      for (let i = next++; i < REQUESTS; i = next++) {
        const res = await fetch(`${gw.url}/sessions/${sessionId}`, { headers: { ...headers, 'x-request-id': `read-${i}` } })
        expect(res.status).toBe(200)
        await res.arrayBuffer()
      }
    }))
    gw.child.kill('SIGTERM')
    // Settles when stdout is read to its end too, not only at the process's exit.
    expect(await gw.exited).toEqual({ code: 0, signal: null })

    const lines = gw.lines.map((line) => JSON.parse(line) as Record<string, unknown>)
    const reads = lines.filter((l) => l.kind === 'http' && typeof l.requestId === 'string' && l.requestId.startsWith('read-'))
    expect(reads.map((l) => l.requestId).sort()).toEqual(Array.from({ length: REQUESTS }, (_, i) => `read-${i}`).sort())
    for (const line of reads) {
      expect(Object.keys(line).sort()).toEqual(ACCESS_FIELDS)
      expect(line).toMatchObject({ level: 30, pid: gw.child.pid, kind: 'http', method: 'GET', route: '/v1/sessions/:id', status: 200, principal: 'ops', sessionId, msg: 'request' })
    }
    // The shutdown's lines too, the last one written just before the process exits.
    expect(lines.filter((l) => l.kind === 'lifecycle').map((l) => l.msg)).toEqual(expect.arrayContaining(['signal received', 'shutting down', 'stopped']))
    expect(lines.at(-1)?.msg).toBe('stopped')
  })
})
