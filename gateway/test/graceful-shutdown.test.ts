/**
 * Graceful shutdown of `gateway serve` as a real child process. SIGTERM closes every
 * WebSocket with 1001, refuses new work, lets the gateway write its parks, ends the engine
 * processes it spawned (checked by PID) and exits 0; the next start adopts the parks.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { startFakeModelServer } from '../../fake-engines/provider-model/server.ts'
import { createToken } from '../config/principals.ts'
import { serveGateway, type ServingGateway } from './gateway-command.ts'
import { until } from './harness.ts'

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** Every process whose parent chain leads to `root` (Linux /proc). */
function descendants(root: number): number[] {
  const parents = new Map<number, number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]))
    } catch {
      // The process ended while we looked.
    }
  }
  const found: number[] = []
  const walk = (pid: number) => {
    for (const [child, parent] of parents) if (parent === pid) { found.push(child); walk(child) }
  }
  walk(root)
  return found
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function setUp() {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'gw-shutdown-')))
  cleanups.push(() => rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }))
  const model = await startFakeModelServer({ host: '127.0.0.1', port: 0 })
  cleanups.push(() => model.close())
  const claudeConfig = join(dir, 'claude-config')
  await mkdir(claudeConfig, { recursive: true })
  await writeFile(join(claudeConfig, 'fake-account.json'), JSON.stringify({ apiKeySource: 'ANTHROPIC_API_KEY' }))
  await mkdir(join(dir, 'work'))
  const token = await createToken(join(dir, 'principals.json'), { id: 'ops', operator: true })
  const config = join(dir, 'gateway.json')
  await writeFile(config, JSON.stringify({
    auth: { principalsFile: 'principals.json' },
    engines: {
      cli_primary: {
        executable: fileURLToPath(new URL('../../fake-engines/claude-cli/main.ts', import.meta.url)),
        interpreter: process.execPath,
        interpreterArgs: ['--import', fileURLToPath(import.meta.resolve('tsx'))],
      },
      provider: { deferredTools: { deferred_task: { description: 'A task an outside system completes' } } },
    },
    profiles: [
      { name: 'default', engine: 'provider', provider: { id: 'openai-compatible', baseURL: model.baseURL, model: 'fake-small' } },
      { name: 'claude', engine: 'cli_primary', configDir: 'claude-config' },
    ],
    allowedCwdRoots: ['work'],
    parking: { store: { kind: 'file', dir: 'state' }, parkDelayMs: 50 },
    shutdown: { graceMs: 2000 },
  }))
  return { dir, config, token }
}

function client(gw: ServingGateway, token: string) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  return {
    async call(method: string, path: string, body?: unknown) {
      const res = await fetch(`${gw.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
      return { status: res.status, body: await res.json().catch(() => undefined) as any }
    },
    attach(id: string): Promise<{ ws: WebSocket; frames: any[]; closed: Promise<number> }> {
      const ws = new WebSocket(`${gw.url.replace(/^http/, 'ws')}/sessions/${id}/ws`, { headers })
      const frames: any[] = []
      ws.on('message', (data) => frames.push(JSON.parse(data.toString())))
      const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)))
      return new Promise((resolve, reject) => {
        ws.once('open', () => resolve({ ws, frames, closed }))
        ws.once('error', reject)
      })
    },
  }
}

describe('gateway serve: graceful shutdown on SIGTERM', { timeout: 90_000 }, () => {
  it('closes sockets with 1001, exits 0, leaves no engine process, and the next start adopts the parks', async () => {
    const { dir, config, token } = await setUp()
    const first = await serveGateway(config)
    cleanups.push(() => void first.child.kill('SIGKILL'))
    const api = client(first, token)
    const cwd = join(dir, 'work')

    // A provider session resting on a deferred execution parks once its client leaves.
    const parked = (await api.call('POST', '/sessions', { profile: 'default', cwd, prompt: 'scenario:deferred' })).body.session
    const parkedSocket = await api.attach(parked.id)
    await until(async () => parkedSocket.frames, (f) => f.some((x) => x.type === 'event' && x.event.type === 'execution_dispatched'), 'dispatch')
    parkedSocket.ws.close()
    await until(() => api.call('GET', `/sessions/${parked.id}`), (r) => r.body.session.status === 'parked', 'parked')

    // A Claude Code session (the fake CLI) with its engine process running and a client attached.
    const live = (await api.call('POST', '/sessions', { profile: 'claude', cwd, prompt: 'hello' })).body.session
    await until(() => api.call('GET', `/sessions/${live.id}`), (r) => r.body.session.status === 'idle', 'idle')
    const attached = await api.attach(live.id)
    const engines = descendants(first.child.pid!)
    expect(engines.length).toBeGreaterThan(0)

    first.child.kill('SIGTERM')
    expect(await attached.closed).toBe(1001)
    expect(await first.exited).toEqual({ code: 0, signal: null })
    await until(async () => engines.filter(alive), (left) => left.length === 0, 'engine processes ended', 5000)
    const lines = first.lines.map((l) => JSON.parse(l))
    expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['signal received', 'shutting down', 'stopped']))
    // Lifecycle lines name each engine process by PID, from spawn to exit.
    const spawned = lines.filter((l) => l.msg === 'engine process spawned').map((l) => l.enginePid)
    const ended = lines.filter((l) => l.msg === 'engine process exited').map((l) => l.enginePid)
    // The gateway's own pid stays on every line: one `pid` key per object.
    const engineLines = first.lines.filter((l) => l.includes('"kind":"engine"'))
    expect(engineLines.every((l) => l.match(/"pid":/g)?.length === 1)).toBe(true)
    expect(lines.filter((l) => l.kind === 'engine').every((l) => l.pid === first.child.pid)).toBe(true)
    expect(spawned.length).toBeGreaterThan(0)
    expect(spawned.every((pid) => engines.includes(pid))).toBe(true)
    expect([...ended].sort()).toEqual([...spawned].sort())

    const second = await serveGateway(config)
    cleanups.push(() => void second.child.kill('SIGKILL'))
    const again = client(second, token)
    expect((await again.call('GET', `/sessions/${parked.id}`)).body.session.status).toBe('parked')
    second.child.kill('SIGTERM')
    expect((await second.exited).code).toBe(0)
  })

  it('refuses new sessions and attaches with 503 while draining, and a second signal exits at once', async () => {
    const { dir, config, token } = await setUp()
    // A long grace, so the gateway is still draining when the second request arrives.
    await writeFile(config, JSON.stringify({ ...JSON.parse(readFileSync(config, 'utf8')), shutdown: { graceMs: 60_000 } }))
    const gw = await serveGateway(config)
    cleanups.push(() => void gw.child.kill('SIGKILL'))
    const api = client(gw, token)
    const cwd = join(dir, 'work')
    // A turn that never finishes holds the drain open for the whole grace.
    const busy = (await api.call('POST', '/sessions', { profile: 'default', cwd, prompt: 'scenario:hang' })).body.session
    await until(() => api.call('GET', `/sessions/${busy.id}`), (r) => r.body.session.status === 'running', 'running')

    gw.child.kill('SIGTERM')
    await until(async () => gw.lines.map((l) => JSON.parse(l).msg), (m) => m.includes('shutting down'), 'draining')
    const refused = await api.call('POST', '/sessions', { profile: 'default', cwd, prompt: 'hi' })
    expect(refused).toEqual({ status: 503, body: { error: 'the gateway is shutting down', code: 'shutting_down' } })
    await expect(api.attach(busy.id)).rejects.toThrow(/503/)
    expect((await fetch(`${gw.origin}/readyz`)).status).toBe(503)

    gw.child.kill('SIGINT')
    const exited = await gw.exited
    expect(exited.code).toBe(1)
    expect(gw.lines.map((l) => JSON.parse(l).msg)).toContain('second signal: exiting now')
  })
})
