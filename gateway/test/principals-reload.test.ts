/**
 * Revocation without a restart: `gateway serve` re-reads its principals file
 * when it changes and on SIGHUP. A revoked token is refused without a restart and its live
 * WebSockets are closed (1008); a malformed new file keeps the previous principals and says why.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeModelServer } from '../../fake-engines/provider-model/server.ts'
import { runGateway, serveGateway, type ServingGateway } from './gateway-command.ts'
import { until } from './harness.ts'

let model: Awaited<ReturnType<typeof startFakeModelServer>>
let dir: string
let gw: ServingGateway | undefined
beforeAll(async () => {
  model = await startFakeModelServer()
  dir = await mkdtemp(join(tmpdir(), 'gw-principals-'))
})
afterAll(async () => {
  gw?.child.kill('SIGKILL')
  await model?.close()
  await rm(dir, { recursive: true, force: true })
})

async function token(principals: string, id: string, ...more: string[]): Promise<string> {
  const result = await runGateway(['token', 'create', '--principals', principals, '--id', id, ...more])
  expect(result.code, result.stderr).toBe(0)
  return result.stdout.trim()
}

describe('principals reload', { timeout: 120_000 }, () => {
  it('refuses a revoked token without a restart, closes its WebSockets, keeps the old set on a bad file, and reloads on SIGHUP', async () => {
    const principals = join(dir, 'principals.json')
    const ops = await token(principals, 'ops', '--operator')
    const app = await token(principals, 'app', '--scope', 'tenant=a')
    const config = join(dir, 'gateway.json')
    await writeFile(config, JSON.stringify({
      auth: { principalsFile: 'principals.json' },
      profiles: [{ name: 'default', engine: 'provider', provider: { id: 'openai-compatible', baseURL: model.baseURL, model: 'fake-small' } }],
    }))
    gw = await serveGateway(config)
    const call = (who: string, method = 'GET', path = '/sessions', body?: unknown) =>
      fetch(`${gw!.url}${path}`, { method, headers: { authorization: `Bearer ${who}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
    const created = await call(app, 'POST', '/sessions', {})
    expect(created.status).toBe(201)
    const { session } = (await created.json()) as { session: { id: string } }
    const ws = new WebSocket(`${gw.url.replace(/^http/, 'ws')}/sessions/${session.id}/ws`, { headers: { authorization: `Bearer ${app}` } })
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)))
    await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject) })
    const opsSocket = new WebSocket(`${gw.url.replace(/^http/, 'ws')}/sessions/${session.id}/ws`, { headers: { authorization: `Bearer ${ops}` } })
    await new Promise((resolve, reject) => { opsSocket.once('open', resolve); opsSocket.once('error', reject) })

    // Revoke: a new token for the same id replaces the old one in the file.
    const appAgain = await token(principals, 'app', '--scope', 'tenant=a', '--replace')
    await until(async () => (await call(app)).status, (status) => status === 401, 'the revoked token refused', 10_000)
    expect(await closed).toBe(1008)
    expect((await call(appAgain)).status).toBe(200)
    expect((await call(ops)).status).toBe(200)
    expect(opsSocket.readyState).toBe(WebSocket.OPEN) // the operator's socket stays
    const lines = () => gw!.lines.map((l) => JSON.parse(l))
    await until(async () => lines(), (l) => l.some((x) => x.msg === 'principals reloaded' && x.socketsClosed === 1), 'reload logged')

    // A malformed file: logged, and the principals in force stay.
    await writeFile(principals, '{ "version": 1, "principals": ')
    await until(async () => lines(), (l) => l.some((x) => x.msg === 'principals file not reloaded; the previous principals stay in force'), 'bad file logged')
    expect((await call(ops)).status).toBe(200)
    expect((await call(appAgain)).status).toBe(200)
    expect(JSON.stringify(lines())).not.toContain(ops)

    // SIGHUP reads the file again (here: still malformed), and never stops the gateway.
    const before = lines().filter((x) => x.why === 'SIGHUP').length
    gw.child.kill('SIGHUP')
    await until(async () => lines().filter((x) => x.why === 'SIGHUP').length, (n) => n > before, 'SIGHUP reload')
    expect((await call(ops)).status).toBe(200)
    opsSocket.close()
    gw.child.kill('SIGTERM')
    expect(await gw.exited).toEqual({ code: 0, signal: null })
  })
})
