/**
 * The operator's `gateway` command. The documented example configuration
 * (docs/examples/gateway.yaml) starts and answers; `gateway check` lists every problem with its
 * path and exits 2; `gateway token create` prints a token once and stores only its hash.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { hashToken } from '../config/principals.ts'
import { until } from './harness.ts'
import { ROOT, runGateway, serveGateway, type ServingGateway } from './gateway-command.ts'

const running: ServingGateway[] = []
const dirs: string[] = []
afterEach(async () => {
  for (const gw of running.splice(0)) gw.child.kill('SIGKILL')
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 })
})

async function workDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-serve-'))
  dirs.push(dir)
  return dir
}

async function installProgram(path: string, fake: string): Promise<void> {
  await writeFile(path, `#!/bin/sh\nexec "${process.execPath}" --import tsx "${join(ROOT, fake)}" "$@"\n`, { mode: 0o755 })
}

/** The example as documented, with its `/srv/gateway` prefix moved into a temporary directory. */
async function installExample(dir: string): Promise<string> {
  const text = (await readFile(join(ROOT, 'docs/examples/gateway.yaml'), 'utf8')).replaceAll('/srv/gateway', dir)
  for (const sub of ['claude-config', 'codex-home', 'work', 'state', 'claude', 'codex/bin']) await mkdir(join(dir, sub), { recursive: true })
  // The engines' executables where the example names them (serve and check refuse a missing one): the fakes.
  await installProgram(join(dir, 'claude/claude'), 'fake-engines/claude-cli/main.ts')
  await installProgram(join(dir, 'codex/bin/codex'), 'fake-engines/codex-app-server/main.ts')
  // The codex home signed in, as operating.md §1 says (`codex login`; the fake reads auth.json):
  // with the example's checkCredentials, gateway check warns about a codex profile without a login.
  await writeFile(join(dir, 'codex-home/auth.json'), '{}')
  const file = join(dir, 'gateway.yaml')
  await writeFile(file, text)
  // Where the example's first line points editors, as docs/operating.md §2 writes it (`gateway schema > …`).
  await writeFile(join(dir, 'gateway-config.schema.json'), await readFile(join(ROOT, 'gateway/config/gateway-config.schema.json'), 'utf8'))
  return file
}

describe('gateway serve --config with the documented example', { timeout: 60_000 }, () => {
  it('starts, answers health and authenticated routes, and stops on SIGTERM with exit 0', async () => {
    const dir = await workDir()
    const config = await installExample(dir)
    const created = await runGateway(['token', 'create', '--principals', join(dir, 'principals.json'), '--id', 'ops', '--operator'])
    expect(created.code).toBe(0)
    const token = created.stdout.trim()
    const env = { ...process.env, ANTHROPIC_API_KEY: 'example-anthropic-key', LOCAL_LLM_API_KEY: 'example-llm-key', DOCS_MCP_TOKEN: 'example-mcp', NOTIFY_WEBHOOK_AUTH: 'Bearer example' }
    const gw = await serveGateway(config, env)
    running.push(gw)

    const health = await fetch(`${gw.origin}/healthz`)
    expect(health.status).toBe(200)
    expect(await health.json()).toEqual({ status: 'ok' })
    const ready = await fetch(`${gw.origin}/readyz`)
    expect(ready.status).toBe(200)
    expect(((await ready.json()) as { status: string }).status).toBe('ready')

    const anonymous = await fetch(`${gw.url}/profiles`)
    expect(anonymous.status).toBe(401)
    const profiles = await fetch(`${gw.url}/profiles`, { headers: { authorization: `Bearer ${token}` } })
    expect(profiles.status).toBe(200)
    expect(profiles.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    const body = (await profiles.json()) as { profiles: Array<{ name: string }> }
    expect(body.profiles.map((p: { name: string }) => p.name).sort()).toEqual(['codex', 'default', 'local-llm'])
    expect(JSON.stringify(body)).not.toContain('example-llm-key')

    // An access line per request, naming the principal by id and never its token.
    // The line is written when the response finishes, which may be just after the client read it.
    const access = await until(async () => gw.lines.map((l) => JSON.parse(l)).filter((l) => l.kind === 'http' && l.route === '/v1/profiles'), (a) => a.length === 2, 'two access lines')
    expect(access).toEqual(expect.arrayContaining([
      expect.objectContaining({ method: 'GET', status: 401 }),
      expect.objectContaining({ method: 'GET', status: 200, principal: 'ops', requestId: profiles.headers.get('x-request-id') }),
    ]))
    expect(gw.lines.join('\n')).not.toContain(token)

    gw.child.kill('SIGTERM')
    expect(await gw.exited).toEqual({ code: 0, signal: null })
  })

  it('warns about an unset credential variable, naming it, and still starts', async () => {
    const dir = await workDir()
    const config = await installExample(dir)
    await runGateway(['token', 'create', '--principals', join(dir, 'principals.json'), '--id', 'ops', '--operator'])
    const env = { ...process.env }
    for (const name of ['ANTHROPIC_API_KEY', 'LOCAL_LLM_API_KEY', 'DOCS_MCP_TOKEN', 'NOTIFY_WEBHOOK_AUTH']) delete env[name]
    const gw = await serveGateway(config, env)
    running.push(gw)
    const warnings = gw.lines.map((l) => JSON.parse(l)).filter((l) => l.kind === 'config').map((l) => l.msg)
    expect(warnings).toEqual(expect.arrayContaining([
      'profiles[1].provider.apiKeyEnv: environment variable LOCAL_LLM_API_KEY is not set',
      'notifications.webhook.headersFromEnv.authorization: environment variable NOTIFY_WEBHOOK_AUTH is not set',
    ]))
  })
})

describe('gateway check --config', { timeout: 60_000 }, () => {
  it('passes the documented example', async () => {
    const dir = await workDir()
    const config = await installExample(dir)
    expect((await runGateway(['token', 'create', '--principals', join(dir, 'principals.json'), '--id', 'ops', '--operator'])).code).toBe(0)
    const result = await runGateway(['check', '--config', config], { ...process.env, ANTHROPIC_API_KEY: 'x', LOCAL_LLM_API_KEY: 'x', DOCS_MCP_TOKEN: 'x', NOTIFY_WEBHOOK_AUTH: 'x' })
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
  })

  it('accepts a principals entry with neither scope nor operator, warning once that it is unrestricted', async () => {
    const dir = await workDir()
    const config = await installExample(dir)
    const env = { ...process.env, ANTHROPIC_API_KEY: 'x', LOCAL_LLM_API_KEY: 'x', DOCS_MCP_TOKEN: 'x', NOTIFY_WEBHOOK_AUTH: 'x' }
    // Written by hand: the spec allows it (principal.1), token create no longer makes one.
    await writeFile(join(dir, 'principals.json'), JSON.stringify({ version: 1, principals: {
      [hashToken('a')]: { id: 'ops', operator: true },
      [hashToken('b')]: { id: 'tenant-a', scope: { tenant: 'a' } },
      [hashToken('c')]: { id: 'loose', canManageProfiles: true },
    } }))
    const result = await runGateway(['check', '--config', config], env)
    expect(result.code).toBe(0)
    expect(result.stderr.trim().split('\n')).toEqual([
      "warning: auth.principalsFile: principal 'loose' has neither a scope nor operator: true, so it is unrestricted (it sees every tenant's sessions and jobs)",
    ])
  })

  it('lists each problem of a broken file with its path and exits 2', async () => {
    const dir = await workDir()
    const file = join(dir, 'broken.yaml')
    await writeFile(file, [
      'auth: { principalsFile: principals.json }',
      'profiles:',
      '  - { name: claude, engine: cli_primary }',
      '  - { name: llm, engine: provider, provider: { id: openai-compatible, model: m } }',
      '  - { name: openai, engine: provider, provider: { id: openai } }',
      'queue: { maxConcurrency: -1 }',
      'maxBodyBytes: lots',
    ].join('\n'))
    const result = await runGateway(['check', '--config', file])
    expect(result.code).toBe(2)
    const lines = result.stderr.trim().split('\n')
    expect(lines).toEqual(expect.arrayContaining([
      "profiles[1].provider.baseURL: required for provider id 'openai-compatible' (or set engines.provider.baseURL)",
      'profiles[2].provider.model: required',
      expect.stringMatching(/^queue\.maxConcurrency: /),
      expect.stringMatching(/^maxBodyBytes: /),
      `${file}: 4 problems`,
    ]))
  })

  it('serve refuses the same file without starting, exit 2', async () => {
    const dir = await workDir()
    const file = join(dir, 'broken.json')
    await writeFile(file, JSON.stringify({ profiles: [{ name: 'x', engine: 'provider', provider: { id: 'openai' } }] }))
    const result = await runGateway(['serve', '--config', file])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('profiles[0].provider.model: required')
  })
})

describe('gateway token create', { timeout: 60_000 }, () => {
  it('prints a new token once and records only its SHA-256 with the principal', async () => {
    const dir = await workDir()
    const file = join(dir, 'principals.json')
    const first = await runGateway(['token', 'create', '--principals', file, '--id', 'tenant-a', '--scope', 'tenant=a', '--allowed-profile', 'default'])
    const second = await runGateway(['token', 'create', '--principals', file, '--id', 'manager', '--scope', 'tenant=m', '--can-manage-profiles'])
    expect([first.code, second.code]).toEqual([0, 0])
    const [tokenA, tokenB] = [first.stdout.trim(), second.stdout.trim()]
    expect(tokenA).not.toBe(tokenB)
    const stored = await readFile(file, 'utf8')
    expect(stored).not.toContain(tokenA)
    expect(stored).not.toContain(tokenB)
    expect(JSON.parse(stored)).toEqual({ version: 1, principals: {
      [hashToken(tokenA)]: { id: 'tenant-a', scope: { tenant: 'a' }, allowedProfiles: ['default'] },
      [hashToken(tokenB)]: { id: 'manager', scope: { tenant: 'm' }, canManageProfiles: true },
    } })
  })

  it('refuses a principal with neither --scope nor --operator: exit 2, one line naming both, nothing written', async () => {
    const dir = await workDir()
    const file = join(dir, 'principals.json')
    for (const extra of [[], ['--can-manage-profiles'], ['--allowed-profile', 'default']]) {
      const result = await runGateway(['token', 'create', '--principals', file, '--id', 'manager', ...extra])
      expect(result.code).toBe(2)
      expect(result.stdout).toBe('')
      expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/add --scope key=value .*or --operator/)])
    }
    await expect(readFile(file, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' })
  })

  it('answers --help and --version on the command and each subcommand', async () => {
    const version = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')).version
    for (const args of [['--version'], ['serve', '--version'], ['token', '--version']]) expect((await runGateway(args)).stdout.trim()).toBe(version)
    expect((await runGateway(['check', '--help'])).stdout).toMatch(/^usage: gateway check --config/)
    expect((await runGateway(['--help'])).stdout).toMatch(/serve --config <file>/)
    expect((await runGateway(['token', 'create'])).code).toBe(2)
  })
})
