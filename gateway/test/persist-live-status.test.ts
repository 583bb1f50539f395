/**
 * A `persistLive` provider session whose turn had ended comes back from a restart `idle`
 * (session-status-values.1, session-status-values.8), not `running`, and a later SIGTERM does
 * not wait out the grace for it: the drain ends with no busy session (the lifecycle log says so).
 */
import { mkdtemp, readFile, realpath, rm, writeFile, mkdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startFakeModelServer } from '../../fake-engines/provider-model/server.ts'
import { createToken } from '../config/principals.ts'
import { serveGateway, type ServingGateway } from './gateway-command.ts'
import { until } from './harness.ts'

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function setUp() {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'gw-live-status-')))
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
    parking: { store: { kind: 'file', dir: 'state' }, persistLive: true },
    // Long enough that a drain waiting it out shows in the log as a lapsed grace, not as a drain.
    shutdown: { graceMs: 5000 },
  }))
  return { dir, config, token }
}

function api(gw: ServingGateway, token: string) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  return async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${gw.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    return { status: res.status, body: await res.json().catch(() => undefined) as any }
  }
}

const drainLine = (gw: ServingGateway) => gw.lines.map((l) => JSON.parse(l)).find((l) => l.kind === 'lifecycle' && (l.msg === 'turns drained' || l.msg === 'grace ended with turns running'))

describe('persistLive provider sessions across a restart (session-status-values.8)', { timeout: 90_000 }, () => {
  it.each([
    { signal: 'SIGTERM' as const, earlierBuild: false },
    { signal: 'SIGKILL' as const, earlierBuild: false },
    // A record an earlier build wrote: its row said `running` although its transcript ends idle.
    { signal: 'SIGTERM' as const, earlierBuild: true },
  ])('after $signal (record of an earlier build: $earlierBuild), a session whose turn ended is listed idle and the next SIGTERM does not wait for it', async ({ signal, earlierBuild }) => {
    const { dir, config, token } = await setUp()
    const first = await serveGateway(config)
    cleanups.push(() => void first.child.kill('SIGKILL'))
    const call = api(first, token)
    const session = (await call('POST', '/sessions', { profile: 'default', cwd: join(dir, 'work'), prompt: 'hello' })).body.session
    const idle = await until(() => call('GET', `/sessions/${session.id}`), (r) => r.body.session.status === 'idle', 'idle')
    const file = join(dir, 'state', `${encodeURIComponent(session.id)}.json`)
    await until(() => readFile(file, 'utf8').then(JSON.parse).catch(() => undefined), (r) => r?.snapshot.seq >= idle.body.session.lastSeq - 1, 'the live record on disk')
    first.child.kill(signal)
    await first.exited
    if (earlierBuild) {
      const record = JSON.parse(await readFile(file, 'utf8'))
      await writeFile(file, JSON.stringify({ ...record, info: { ...record.info, status: 'running' } }))
    }

    const second = await serveGateway(config)
    cleanups.push(() => void second.child.kill('SIGKILL'))
    const again = api(second, token)
    const listed = (await again('GET', '/sessions')).body.sessions.find((s: any) => s.id === session.id)
    expect(listed).toMatchObject({ id: session.id, status: 'idle' })
    expect((await again('GET', `/sessions/${session.id}`)).body.session.status).toBe('idle')

    second.child.kill('SIGTERM')
    expect((await second.exited).code).toBe(0)
    expect(drainLine(second)).toMatchObject({ msg: 'turns drained', busy: [] })
  })
})
