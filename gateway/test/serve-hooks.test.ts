/**
 * `gateway serve` with a hooks module (functions stay out of the file) and notifications
 * whose webhook header comes from an environment variable: the hook authenticates and serves the
 * host's own routes; on SIGTERM the pending `session_closed` deliveries get the grace; webhook
 * attempts are logged by origin only, never with the header's value.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startFakeModelServer } from '../../fake-engines/provider-model/server.ts'
import { serveGateway, type ServingGateway } from './gateway-command.ts'
import { until } from './harness.ts'

const cleanups: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function webhookReceiver() {
  const received: Array<{ headers: IncomingHttpHeaders; body: any }> = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(body) })
      res.end('ok')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  cleanups.push(() => new Promise((r) => server.close(r)))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook/path-secret`, received }
}

describe('gateway serve with a hooks module and a webhook', { timeout: 60_000 }, () => {
  it('authenticates through the hook, serves its fallback, and delivers notifications through shutdown', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gw-hooks-'))
    cleanups.push(() => rm(dir, { recursive: true, force: true }))
    const model = await startFakeModelServer()
    cleanups.push(() => model.close())
    const hook = await webhookReceiver()
    await mkdir(join(dir, 'work'))
    await writeFile(join(dir, 'hooks.mjs'), [
      "export function authenticate(req) { return req.headers.authorization === 'Bearer hook-token' ? { id: 'hooked' } : null }",
      "export function fallback(req, res) { res.setHeader('content-type', 'text/plain'); res.end('host route ' + req.url) }",
    ].join('\n'))
    await writeFile(join(dir, 'gateway.yaml'), [
      'hooks: hooks.mjs',
      'profiles:',
      `  - { name: default, engine: provider, provider: { id: openai-compatible, baseURL: "${model.baseURL}", model: fake-small } }`,
      'allowedCwdRoots: [work]',
      `notifications: { webhook: { url: "${hook.url}", headersFromEnv: { authorization: HOOK_AUTH } } }`,
      'shutdown: { graceMs: 5000 }',
    ].join('\n'))
    const gw: ServingGateway = await serveGateway(join(dir, 'gateway.yaml'), { ...process.env, HOOK_AUTH: 'Bearer webhook-secret-value' })
    cleanups.push(() => gw.child.kill('SIGKILL'))

    expect(await (await fetch(`${gw.origin}/app/page`)).text()).toBe('host route /app/page')
    expect((await fetch(`${gw.url}/sessions`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401)
    const auth = { authorization: 'Bearer hook-token', 'content-type': 'application/json' }
    const created = await fetch(`${gw.url}/sessions`, { method: 'POST', headers: auth, body: JSON.stringify({ cwd: join(dir, 'work'), prompt: 'hello' }) })
    expect(created.status).toBe(201)
    const { session } = (await created.json()) as { session: { id: string } }
    await until(async () => hook.received, (r) => r.some((d) => d.body.type === 'turn_completed'), 'turn_completed delivered')

    gw.child.kill('SIGTERM')
    expect((await gw.exited).code).toBe(0)
    // session_closed is queued by the shutdown itself and still delivered within the grace.
    expect(hook.received.map((d) => d.body.type)).toEqual(expect.arrayContaining(['turn_completed', 'session_closed']))
    expect(hook.received.every((d) => d.headers.authorization === 'Bearer webhook-secret-value' && d.body.sessionId === session.id)).toBe(true)
    const lines = gw.lines.map((l) => JSON.parse(l))
    expect(lines.filter((l) => l.kind === 'webhook')).toEqual(expect.arrayContaining([
      expect.objectContaining({ msg: 'webhook delivered', origin: new URL(hook.url).origin, attempt: 1, status: 200 }),
    ]))
    expect(lines.find((l) => l.kind === 'http' && l.status === 201)).toMatchObject({ principal: 'hooked', route: '/v1/sessions' })
    const all = gw.lines.join('\n')
    expect(all).not.toContain('webhook-secret-value')
    expect(all).not.toContain('path-secret')
  })
})
