/**
 * A configuration file gives each cli_primary and cli_secondary profile its own
 * engine program and environment (one `claude` per profile, one codex per profile), and the
 * provider engine's bridged tools. Built through the file's own path (validateConfig, then
 * buildServerOptions, as `gateway serve` does) and observed where it matters: which program each
 * profile's sessions start, with which environment, and a bridged call reaching the client.
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { startFakeModelServer } from '../../fake-engines/provider-model/server.ts'
import { validateConfig } from '../config/load.ts'
import { preflight } from '../config/preflight.ts'
import { buildServerOptions } from '../config/server-options.ts'
import { startTestGateway, until, type TestGateway } from './harness.ts'

const TSX = fileURLToPath(import.meta.resolve('tsx'))
const FAKE = {
  claude: fileURLToPath(new URL('../../fake-engines/claude-cli/main.ts', import.meta.url)),
  codex: fileURLToPath(new URL('../../fake-engines/codex-app-server/main.ts', import.meta.url)),
}

const closers: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

/**
 * An executable wrapper that logs its own name and `$WHO` (set through the profile's env), then
 * runs the fake engine: what a profile's sessions ran is read back from the log.
 */
async function wrapper(dir: string, name: string, fake: string, log: string): Promise<string> {
  const path = join(dir, name)
  await writeFile(path, `#!/bin/sh\necho "${name} \${WHO:-unset}" >> "${log}"\nexec "${process.execPath}" --import "${TSX}" "${fake}" "$@"\n`, { mode: 0o755 })
  return path
}

async function workDir(): Promise<{ dir: string; log: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'per-profile-'))
  return { dir, log: join(dir, 'ran.log') }
}

async function gatewayFor(raw: unknown, dir: string): Promise<TestGateway> {
  const loaded = validateConfig(raw, dir)
  expect(loaded.problems).toEqual([])
  const options = await buildServerOptions(loaded.config!, {})
  const g = await startTestGateway({ profiles: options.profiles, engines: options.engines, ...(options.createEngineRunner ? { createEngineRunner: options.createEngineRunner } : {}) })
  closers.push(() => g.close())
  return g
}

async function oneTurn(g: TestGateway, profile: string): Promise<void> {
  const session = await g.createSession({ profile, cwd: g.cwdRoot, prompt: `hello from ${profile}` })
  const ws = await g.attach(session.id)
  await ws.waitFor((f) => f.type === 'event' && ['turn_result', 'session_error'].includes(f.event.type))
  ws.close()
  // A session_error here would be the profile's program failing to start: say which and why.
  expect(ws.events().filter((e) => e.type === 'session_error')).toEqual([])
  expect(ws.events().filter((e) => e.type === 'turn_result')).toEqual([expect.objectContaining({ isError: false })])
}

async function logLines(log: string): Promise<string[]> {
  return (await readFile(log, 'utf8').catch(() => '')).trim().split('\n').filter(Boolean)
}

describe('per-profile engine programs and environment in the configuration file', () => {
  it('runs each cli_primary profile on its own executable with its own environment; no engine-wide executable or native package needed', async () => {
    const { dir, log } = await workDir()
    const red = await wrapper(dir, 'claude-red', FAKE.claude, log)
    const blue = await wrapper(dir, 'claude-blue', FAKE.claude, log)
    process.env.PER_PROFILE_RED_WHO = 'red-team'
    closers.push(async () => { delete process.env.PER_PROFILE_RED_WHO })
    const g = await gatewayFor({
      auth: { allowUnauthenticated: true },
      // No engines.cli_primary.executable: in this repository the SDK's native package is a stub, so
      // the engine-wide lookup would fail; every profile names its own program instead.
      profiles: [
        { name: 'red', engine: 'cli_primary', executable: red, env: { WHO: 'PER_PROFILE_RED_WHO' } },
        { name: 'blue', engine: 'cli_primary', executable: './claude-blue' },
      ],
    }, dir)
    expect(blue).toBe(join(dir, 'claude-blue')) // relative to the file's directory
    await oneTurn(g, 'red')
    await oneTurn(g, 'blue')
    const lines = await logLines(log)
    expect(new Set(lines)).toEqual(new Set(['claude-red red-team', 'claude-blue unset']))
  })

  it('runs each cli_secondary profile on its own codexPath with its own environment, others on the engine block\'s', async () => {
    const { dir, log } = await workDir()
    const shared = await wrapper(dir, 'codex-shared', FAKE.codex, log)
    await wrapper(dir, 'codex-green', FAKE.codex, log)
    for (const home of ['home-green', 'home-plain']) await mkdir(join(dir, home))
    process.env.PER_PROFILE_GREEN_WHO = 'green-team'
    closers.push(async () => { delete process.env.PER_PROFILE_GREEN_WHO })
    const g = await gatewayFor({
      auth: { allowUnauthenticated: true },
      engines: { cli_secondary: { codexPath: shared } },
      profiles: [
        { name: 'green', engine: 'cli_secondary', codexHome: 'home-green', codexPath: './codex-green', env: { WHO: 'PER_PROFILE_GREEN_WHO' } },
        { name: 'plain', engine: 'cli_secondary', codexHome: 'home-plain' },
      ],
    }, dir)
    await oneTurn(g, 'green')
    await oneTurn(g, 'plain')
    const lines = await until(() => logLines(log), (l) => l.length >= 2, 'both codex processes logged')
    expect(new Set(lines)).toEqual(new Set(['codex-green green-team', 'codex-shared unset']))
  })

  it('offers the bridged tools engines.provider.bridgedTools declares: a call reaches the attached client as tool_call_request', async () => {
    const model = await startFakeModelServer({ host: '127.0.0.1', port: 0 })
    closers.push(() => model.close())
    const { dir } = await workDir()
    const g = await gatewayFor({
      auth: { allowUnauthenticated: true },
      engines: { provider: { bridgedTools: { client_eval: { description: 'Runs JavaScript in the client', inputSchema: { type: 'object', properties: { code: { type: 'string' } } } } } } },
      profiles: [{ name: 'default', engine: 'provider', provider: { id: 'openai-compatible', baseURL: model.baseURL, model: 'fake-small' } }],
    }, dir)
    const session = await g.createSession({ profile: 'default' })
    const ws = await g.attach(session.id)
    ws.send({ type: 'user_message', text: 'scenario:bridge' })
    const request = await ws.waitFor((f) => f.type === 'tool_call_request')
    expect(request).toMatchObject({ toolName: 'client_eval', input: { code: '6 * 7' } })
    ws.send({ type: 'tool_call_result', executionId: request.executionId, output: { type: 'json', value: 42 } })
    const result = await ws.waitForEvent('turn_result')
    expect(result.isError).toBe(false)
    ws.close()
  })
})

describe('gateway check on per-profile programs', () => {
  async function check(raw: unknown, dir: string): Promise<string[]> {
    const file = join(dir, 'gateway.json')
    await writeFile(file, JSON.stringify(raw))
    return (await preflight(file, { connect: false })).problems
  }

  it('names a profile\'s missing executable, codexPath or interpreter by the profile\'s path', async () => {
    const { dir } = await workDir()
    const problems = await check({
      auth: { allowUnauthenticated: true },
      profiles: [
        { name: 'a', engine: 'cli_primary', executable: './no-such-claude' },
        { name: 'b', engine: 'cli_secondary', codexPath: '/no/such/codex', interpreter: '/no/such/node' },
      ],
    }, dir)
    expect(problems).toEqual([
      `profiles[0].executable: ${join(dir, 'no-such-claude')} does not exist or is not a file`,
      'profiles[1].codexPath: /no/such/codex does not exist or is not a file',
      'profiles[1].interpreter: /no/such/node does not exist or is not a file',
    ])
  })

  it('refuses an interpreter on a profile without its own program', async () => {
    const { dir } = await workDir()
    const problems = await check({ auth: { allowUnauthenticated: true }, profiles: [{ name: 'a', engine: 'cli_primary', interpreter: 'node' }] }, dir)
    expect(problems).toEqual(["profiles[0].interpreter: runs this profile's own executable: set executable too, or set interpreter in the engines block"])
  })

  it('passes a configuration whose every cli_primary profile has its own executable, without the SDK\'s native binary', async () => {
    const { dir, log } = await workDir()
    await wrapper(dir, 'claude-own', FAKE.claude, log)
    expect(await check({ auth: { allowUnauthenticated: true }, profiles: [{ name: 'a', engine: 'cli_primary', executable: './claude-own' }] }, dir)).toEqual([])
    // The same profile without its own program needs the engine-wide one, which the stubbed native package cannot give.
    expect(await check({ auth: { allowUnauthenticated: true }, profiles: [{ name: 'a', engine: 'cli_primary' }] }, dir)).toEqual([
      expect.stringMatching(/^engines\.cli_primary\.executable: not set, and the SDK's own binary/),
    ])
  })
})
