/**
 * `/readyz` asks what `gateway serve` depends on while
 * it runs — each CLI engine's programs, the database — and counts the codex profiles' logins from
 * the codex credential probe, which `gateway check` also runs (a warning: serve starts anyway).
 */
import { mkdir, mkdtemp, rename, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { runGateway, serveGateway, type ServingGateway } from './gateway-command.ts'
import { startTestGateway, until, type TestGateway } from './harness.ts'

const TSX = fileURLToPath(import.meta.resolve('tsx'))
const FAKE = {
  claude: fileURLToPath(new URL('../../fake-engines/claude-cli/main.ts', import.meta.url)),
  codex: fileURLToPath(new URL('../../fake-engines/codex-app-server/main.ts', import.meta.url)),
}

const serving: ServingGateway[] = []
const inProcess: TestGateway[] = []
afterEach(async () => {
  for (const gw of serving.splice(0)) {
    gw.child.kill('SIGTERM')
    await gw.exited
  }
  for (const g of inProcess.splice(0)) await g.close()
})

async function program(dir: string, name: string, fake: string): Promise<string> {
  const path = join(dir, name)
  await writeFile(path, `#!/bin/sh\nexec "${process.execPath}" --import "${TSX}" "${fake}" "$@"\n`, { mode: 0o755 })
  return path
}

async function readyz(origin: string): Promise<{ status: number; body: { status: string; checks: Record<string, any> } }> {
  const res = await fetch(`${origin}/readyz`)
  return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, any> } }
}

/** Two codex profiles: `in` whose CODEX_HOME holds a login (the fake's auth.json), `out` without one. */
async function codexLogins(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'readyz-codex-'))
  await program(dir, 'codex', FAKE.codex)
  for (const home of ['home-in', 'home-out']) await mkdir(join(dir, home))
  await writeFile(join(dir, 'home-in', 'auth.json'), '{}')
  const file = join(dir, 'gateway.yaml')
  await writeFile(file, [
    'auth: { allowUnauthenticated: true }',
    'engines: { cli_secondary: { codexPath: ./codex } }',
    'profiles:',
    '  - { name: in, engine: cli_secondary, codexHome: home-in }',
    '  - { name: out, engine: cli_secondary, codexHome: home-out }',
    'checkCredentials: true',
    'shutdown: { graceMs: 500 }',
  ].join('\n'))
  return file
}

/**
 * Codex profiles on the documented config.toml provider block (docs/configuration.md), no login
 * anywhere: `local` whose provider's `env_key` variable is set, `keyless` whose is not, and `out`
 * on codex's default (OpenAI) provider, which needs the login it lacks.
 */
async function codexProviderBlocks(): Promise<{ file: string; env: NodeJS.ProcessEnv }> {
  const dir = await mkdtemp(join(tmpdir(), 'readyz-codex-provider-'))
  await program(dir, 'codex', FAKE.codex)
  const block = (envKey: string) => [
    'model = "gpt-5-codex"', 'model_provider = "local"', '',
    '[model_providers.local]', 'name = "local"', 'base_url = "http://127.0.0.1:9/v1"   # a Responses API', 'wire_api = "responses"',
    `env_key = "${envKey}"`, 'requires_openai_auth = false', '', '[features]', 'plugins = false',
  ].join('\n')
  for (const home of ['home-local', 'home-keyless', 'home-out']) await mkdir(join(dir, home))
  await writeFile(join(dir, 'home-local', 'config.toml'), block('LOCAL_MODEL_KEY'))
  await writeFile(join(dir, 'home-keyless', 'config.toml'), block('NO_SUCH_MODEL_KEY'))
  const file = join(dir, 'gateway.yaml')
  await writeFile(file, [
    'auth: { allowUnauthenticated: true }',
    'engines: { cli_secondary: { codexPath: ./codex } }',
    'profiles:',
    '  - { name: local, engine: cli_secondary, codexHome: home-local }',
    '  - { name: keyless, engine: cli_secondary, codexHome: home-keyless }',
    '  - { name: out, engine: cli_secondary, codexHome: home-out }',
    'checkCredentials: true',
    'shutdown: { graceMs: 500 }',
  ].join('\n'))
  const env: NodeJS.ProcessEnv = { ...process.env, LOCAL_MODEL_KEY: 'sk-local' }
  delete env.NO_SUCH_MODEL_KEY
  return { file, env }
}

describe('codex on a config.toml provider block (checkCredentials)', { timeout: 60_000 }, () => {
  it('serve counts a provider block whose key is set as available, and every line it writes, the unavailable warnings included, is JSON', async () => {
    const { file, env } = await codexProviderBlocks()
    const gw = await serveGateway(file, env)
    serving.push(gw)
    const ready = await until(() => readyz(gw.origin), (r) => r.body.checks.profiles?.unknown === 0, 'the codex profiles probed')
    expect(ready.body.checks.profiles).toEqual({ available: 1, unavailable: 2, unknown: 0 })
    const warned = await until(async () => gw.lines.map((l) => JSON.parse(l) as { msg: string; level: number }).filter((l) => l.level === 40), (l) => l.length === 2, 'two warnings')
    expect(warned.map((l) => l.msg).sort()).toEqual([
      "profile keyless is unavailable: no credentials: the model provider 'local' in config.toml reads its key from NO_SUCH_MODEL_KEY, which is not set",
      'profile out is unavailable: not logged in: codex login status reports no login in this CODEX_HOME',
    ])
    expect(gw.stderr()).toBe('')
  })

  it('gateway check warns only about the profiles that cannot run a turn', async () => {
    const { file, env } = await codexProviderBlocks()
    const checked = await runGateway(['check', '--config', file], env)
    expect(checked.code).toBe(0)
    expect(checked.stderr.trim().split('\n')).toEqual([
      "warning: profiles[1]: profile 'keyless' is unavailable: no credentials: the model provider 'local' in config.toml reads its key from NO_SUCH_MODEL_KEY, which is not set",
      "warning: profiles[2]: profile 'out' is unavailable: not logged in: codex login status reports no login in this CODEX_HOME",
    ])
  })
})

describe('readyz asks what serve depends on at run time', { timeout: 60_000 }, () => {
  it('counts codex profiles by their login probe; a logged-out profile leaves the gateway ready', async () => {
    const gw = await serveGateway(await codexLogins())
    serving.push(gw)
    const ready = await until(() => readyz(gw.origin), (r) => r.body.checks.profiles?.unknown === 0, 'both codex logins probed')
    expect(ready.status).toBe(200)
    expect(ready.body.checks.profiles).toEqual({ available: 1, unavailable: 1, unknown: 0 })
    expect(ready.body.checks.engines).toEqual({ cli_secondary: 'ok' })
    // Counts only: no profile name reaches an unauthenticated caller.
    expect(JSON.stringify(ready.body)).not.toMatch(/home-out|"out"/)
  })

  it("answers 503 while an engine's program is gone, naming the engine, and 200 again once it is back", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'readyz-engines-'))
    const claude = await program(dir, 'claude', FAKE.claude)
    await program(dir, 'codex', FAKE.codex)
    await mkdir(join(dir, 'codex-home'))
    const file = join(dir, 'gateway.yaml')
    await writeFile(file, [
      'auth: { allowUnauthenticated: true }',
      'engines: { cli_secondary: { codexPath: ./codex } }',
      'profiles:',
      '  - { name: claude, engine: cli_primary, executable: ./claude }',
      '  - { name: codex, engine: cli_secondary, codexHome: codex-home }',
      'shutdown: { graceMs: 500 }',
    ].join('\n'))
    const gw = await serveGateway(file)
    serving.push(gw)
    const before = await readyz(gw.origin)
    expect(before).toMatchObject({ status: 200, body: { status: 'ready', checks: { engines: { cli_primary: 'ok', cli_secondary: 'ok' } } } })
    expect(before.body.checks).not.toHaveProperty('database')

    // An upgrade or a clean-up removing the binary under a running gateway.
    await rename(claude, `${claude}.moved`)
    const gone = await readyz(gw.origin)
    expect(gone).toMatchObject({ status: 503, body: { status: 'not_ready', checks: { engines: { cli_primary: 'failed', cli_secondary: 'ok' } } } })
    expect(JSON.stringify(gone.body)).not.toContain(dir)

    await rename(`${claude}.moved`, claude)
    expect((await readyz(gw.origin)).status).toBe(200)
  })

  it('gateway check warns about a codex profile that is not logged in (checkCredentials) and still passes, as serve would start', async () => {
    const checked = await runGateway(['check', '--config', await codexLogins()])
    expect(checked.code).toBe(0)
    expect(checked.stderr.trim().split('\n')).toEqual([
      "warning: profiles[1]: profile 'out' is unavailable: not logged in: codex login status reports no login in this CODEX_HOME",
    ])
  })
})

describe('readyz dependency checks (createGatewayServer health.dependencies)', () => {
  it('a failing or hanging dependency is failed and the gateway not ready; passing ones are ok', async () => {
    const g = await startTestGateway({
      health: {
        dependencyTimeoutMs: 50,
        dependencies: {
          database: () => Promise.reject(new Error('connection refused')),
          engines: { cli_primary: async () => true, cli_secondary: () => new Promise<boolean>(() => {}) },
        },
      },
    })
    inProcess.push(g)
    const answered = await readyz(g.origin)
    expect(answered).toEqual({ status: 503, body: { status: 'not_ready', checks: { accepting: 'ok', database: 'failed', engines: { cli_primary: 'ok', cli_secondary: 'failed' } } } })
  })

  it('all dependencies answering is ready', async () => {
    const g = await startTestGateway({ health: { dependencies: { database: async () => true, engines: { provider: async () => true } } } })
    inProcess.push(g)
    expect(await readyz(g.origin)).toEqual({ status: 200, body: { status: 'ready', checks: { accepting: 'ok', database: 'ok', engines: { provider: 'ok' } } } })
  })
})
