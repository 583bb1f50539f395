/**
 * `metrics: {port}` in the configuration file serves
 * `/metrics` on a separate loopback listener (logged as "metrics listening"), not under basePath,
 * and the Claude Code CLI processes the gateway spawns are counted: spawned, alive, exited.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { createToken } from '../config/principals.ts'
import { serveGateway } from './gateway-command.ts'
import { openSocket, until } from './harness.ts'
import { parseExposition } from './prometheus-text.ts'
import { FAKE_CODEX_APP_SERVER_PATH } from '../../fake-engines/codex-app-server/index.ts'

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

describe('gateway serve with metrics: {port}', { timeout: 60_000 }, () => {
  it('serves /metrics on the loopback listener only, and counts engine processes spawned, alive and exited, and permission requests waiting', async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'gw-metrics-')))
    cleanups.push(() => rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }))
    const claudeConfig = join(dir, 'claude-config')
    await mkdir(claudeConfig, { recursive: true })
    await writeFile(join(claudeConfig, 'fake-account.json'), JSON.stringify({ apiKeySource: 'ANTHROPIC_API_KEY' }))
    await mkdir(join(dir, 'work'))
    await mkdir(join(dir, 'codex-home'))
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
        cli_secondary: {
          codexPath: FAKE_CODEX_APP_SERVER_PATH,
          interpreter: process.execPath,
          interpreterArgs: ['--import', fileURLToPath(import.meta.resolve('tsx'))],
        },
      },
      profiles: [{ name: 'claude', engine: 'cli_primary', configDir: 'claude-config' }, { name: 'codex', engine: 'cli_secondary', codexHome: 'codex-home' }],
      allowedCwdRoots: ['work'],
      metrics: { port: 0 },
      shutdown: { graceMs: 2000 },
    }))
    const gw = await serveGateway(config)
    cleanups.push(async () => {
      if (gw.child.exitCode === null) {
        gw.child.kill('SIGTERM')
        await gw.exited
      }
    })
    // Logged right after "gateway listening", which is where serveGateway returns.
    const logged = await until(async () => gw.lines.map((l): { msg?: string; url: string } => { try { return JSON.parse(l) } catch { return { url: '' } } }).find((l) => l.msg === 'metrics listening'), Boolean, 'metrics listening', 5000) as { url: string }
    expect(logged.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/)
    const scrape = async () => parseExposition(await (await fetch(logged.url)).text())

    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    expect((await fetch(`${gw.url}/metrics`, { headers })).status).toBe(404)
    const before = await scrape()
    expect(before.sum('gateway_engine_process_spawns_total')).toBe(0)

    const created = await fetch(`${gw.url}/sessions`, { method: 'POST', headers, body: JSON.stringify({ profile: 'claude', cwd: join(dir, 'work'), prompt: 'hello' }) })
    expect(created.status).toBe(201)
    const { session } = await created.json() as { session: { id: string } }
    await until(async () => (await (await fetch(`${gw.url}/sessions/${session.id}`, { headers })).json()) as any, (r) => r.session.status === 'idle', 'idle')
    const live = await scrape()
    expect(live.sum('gateway_engine_process_spawns_total', { engine: 'cli_primary' })).toBe(1)
    expect(live.sum('gateway_engine_processes', { engine: 'cli_primary' })).toBe(1)
    expect(live.sum('gateway_turns_total', { engine: 'cli_primary', outcome: 'completed' })).toBe(1)
    expect(live.sum('gateway_sessions', { engine: 'cli_primary', status: 'idle' })).toBe(1)

    expect((await fetch(`${gw.url}/sessions/${session.id}`, { method: 'DELETE', headers })).status).toBeLessThan(300)
    const ended = await until(scrape, (m) => m.sum('gateway_engine_process_exits_total', { engine: 'cli_primary' }) === 1, 'engine exit counted')
    expect(ended.sum('gateway_engine_processes', { engine: 'cli_primary' })).toBe(0)

    // A codex session's app-server is counted the same way, under its own engine.
    const codex = await fetch(`${gw.url}/sessions`, { method: 'POST', headers, body: JSON.stringify({ profile: 'codex', cwd: join(dir, 'work'), prompt: 'hello' }) })
    expect(codex.status).toBe(201)
    const codexSession = (await codex.json() as { session: { id: string } }).session
    await until(async () => (await (await fetch(`${gw.url}/sessions/${codexSession.id}`, { headers })).json()) as any, (r) => r.session.status === 'idle' && r.session.numTurns === 1, 'codex idle')
    const codexLive = await scrape()
    expect(codexLive.sum('gateway_engine_process_spawns_total', { engine: 'cli_secondary' })).toBe(1)
    expect(codexLive.sum('gateway_engine_processes', { engine: 'cli_secondary' })).toBe(1)
    expect((await fetch(`${gw.url}/sessions/${codexSession.id}`, { method: 'DELETE', headers })).status).toBeLessThan(300)
    const codexEnded = await until(scrape, (m) => m.sum('gateway_engine_process_exits_total', { engine: 'cli_secondary' }) === 1, 'codex exit counted')
    expect(codexEnded.sum('gateway_engine_processes', { engine: 'cli_secondary' })).toBe(0)


    // A permission request waiting: counted, pending, with an age; gone when the session closes.
    const asking = await fetch(`${gw.url}/sessions`, { method: 'POST', headers, body: JSON.stringify({ profile: 'claude', cwd: join(dir, 'work'), prompt: 'scenario:permission-write' }) })
    const waiting = (await asking.json() as { session: { id: string } }).session
    await until(async () => (await (await fetch(`${gw.url}/sessions/${waiting.id}`, { headers })).json()) as any, (r) => r.session.status === 'awaiting_approval', 'awaiting approval')
    const asked = await scrape()
    expect(asked.sum('gateway_permission_requests_total', { engine: 'cli_primary' })).toBe(1)
    expect(asked.sum('gateway_permission_requests_pending', { engine: 'cli_primary' })).toBe(1)
    expect(asked.samples.filter((x) => x.name === 'gateway_permission_request_oldest_age_seconds' && x.labels.engine === 'cli_primary' && x.value >= 0)).toHaveLength(1)
    expect((await fetch(`${gw.url}/sessions/${waiting.id}`, { method: 'DELETE', headers })).status).toBeLessThan(300)
    const answered = await until(scrape, (m) => m.sum('gateway_permission_requests_pending') === 0, 'no request pending')
    expect(answered.samples.filter((x) => x.name === 'gateway_permission_request_oldest_age_seconds')).toEqual([])

    gw.child.kill('SIGTERM')
    expect(await gw.exited).toEqual({ code: 0, signal: null })
    await expect(fetch(logged.url)).rejects.toThrow()
  })

  it('counts neither the login probe as an engine spawn nor a close the gateway asked for as a death, whatever the exit code', async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'gw-metrics-')))
    cleanups.push(() => rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }))
    await mkdir(join(dir, 'claude-config'), { recursive: true })
    await writeFile(join(dir, 'claude-config', 'fake-account.json'), JSON.stringify({ apiKeySource: 'ANTHROPIC_API_KEY' }))
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
      },
      profiles: [{ name: 'claude', engine: 'cli_primary', configDir: 'claude-config' }],
      allowedCwdRoots: ['work'],
      checkCredentials: true,
      metrics: { port: 0 },
      shutdown: { graceMs: 2000 },
    }))
    const gw = await serveGateway(config)
    cleanups.push(async () => {
      if (gw.child.exitCode === null) {
        gw.child.kill('SIGTERM')
        await gw.exited
      }
    })
    const logged = await until(async () => gw.lines.map((l): { msg?: string; url: string } => { try { return JSON.parse(l) } catch { return { url: '' } } }).find((l) => l.msg === 'metrics listening'), Boolean, 'metrics listening', 5000) as { url: string }
    const scrape = async () => parseExposition(await (await fetch(logged.url)).text())
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }

    // The login probe ran (the profile has a verdict) and started no engine the metrics count.
    await until(async () => (await (await fetch(`${gw.url}/profiles`, { headers })).json()) as any, (r) => r.profiles[0]?.available === true, 'probed')
    expect((await scrape()).sum('gateway_engine_process_spawns_total')).toBe(0)

    // Interrupted, then deleted: the CLI exits 1 (its last result was an error), and the gateway asked for it.
    const created = await fetch(`${gw.url}/sessions`, { method: 'POST', headers, body: JSON.stringify({ profile: 'claude', cwd: join(dir, 'work') }) })
    const { session } = await created.json() as { session: { id: string } }
    const ws = await openSocket(`${gw.url.replace(/^http/, 'ws')}/sessions/${session.id}/ws`, { authorization: `Bearer ${token}` })
    cleanups.push(() => ws.close())
    ws.send({ type: 'user_message', text: 'scenario:hang' })
    await ws.waitForEvent('status_changed', (e) => e.status === 'running')
    await ws.waitForEvent('system_init')
    ws.send({ type: 'interrupt' })
    await ws.waitForEvent('turn_result')
    expect((await fetch(`${gw.url}/sessions/${session.id}`, { method: 'DELETE', headers })).status).toBeLessThan(300)
    const ended = await until(scrape, (m) => m.sum('gateway_engine_process_exits_total', { engine: 'cli_primary' }) === 1, 'engine exit counted')
    expect(ended.sum('gateway_engine_process_exits_total', { engine: 'cli_primary', reason: 'requested' })).toBe(1)
    expect(ended.sum('gateway_engine_process_spawns_total', { engine: 'cli_primary' })).toBe(1)
    // The log reaches stdout through a buffered destination: wait for the line, not for a moment.
    const exitLine = () => gw.lines.map((l) => { try { return JSON.parse(l) } catch { return {} } }).find((l) => l.msg === 'engine process exited')
    const exited = await until(async () => exitLine(), Boolean, 'the engine exit logged')
    expect(exited).toMatchObject({ code: 1, requested: true })
  })
})
