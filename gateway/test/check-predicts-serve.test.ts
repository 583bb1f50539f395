/**
 * `gateway check` predicts `gateway serve`. One table of bad configurations,
 * each driven through both commands: serve refuses to start (exit 2) and check fails (exit 2) with
 * the same problem lines, each naming what is wrong. The one documented difference: `check
 * --no-connect` skips the database round trip, so an unreachable database passes it.
 */
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createToken } from '../config/principals.ts'
import { ROOT, runGateway, serveGateway, type CommandResult } from './gateway-command.ts'

let dir: string
beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), 'gw-check-serve-')) })
afterAll(async () => { await rm(dir, { recursive: true, force: true }) })

const FAKE_CLAUDE = join(ROOT, 'fake-engines/claude-cli/main.ts')
const TSX = fileURLToPath(import.meta.resolve('tsx'))
const HIDE = join(ROOT, 'gateway/test/fixtures/hide-package.mjs')
const PROVIDER = { name: 'llm', engine: 'provider', provider: { id: 'openai-compatible', baseURL: 'http://127.0.0.1:9/v1', model: 'm' } }
const CLAUDE = { name: 'claude', engine: 'cli_primary' }
const CLAUDE_ENGINE = { cli_primary: { executable: FAKE_CLAUDE, interpreter: process.execPath, interpreterArgs: ['--import', TSX] } }

interface Row {
  name: string
  /** The configuration (an object, written as JSON) or the file's raw text; `principals.json` is a valid file unless a row writes another. */
  config: Record<string, unknown> | string
  /** Files to write next to it, relative name → content (a string, or 'dir' for a directory). */
  files?: Record<string, string>
  setUp?: (caseDir: string) => Promise<void>
  env?: Record<string, string>
  nodeArgs?: string[]
  /** A line every run must print (a substring). */
  line: string | RegExp
  extension?: string
  /** An unreachable database: `check --no-connect` passes. */
  connectOnly?: boolean
  skip?: boolean
}

const base = (extra: Record<string, unknown> = {}) => ({ auth: { principalsFile: 'principals.json' }, profiles: [PROVIDER], ...extra })

const ROWS: Row[] = [
  { name: 'principals file missing', config: base({ auth: { principalsFile: 'absent.json' } }), line: /^auth\.principalsFile: principals file .*absent\.json: cannot read \(ENOENT\)$/ },
  { name: 'principals file not JSON', config: base({ auth: { principalsFile: 'bad.json' } }), files: { 'bad.json': '{ not json' }, line: /^auth\.principalsFile: .*bad\.json: not valid JSON/ },
  { name: 'principals file wrongly shaped', config: base({ auth: { principalsFile: 'shape.json' } }), files: { 'shape.json': JSON.stringify({ version: 1, principals: { nothex: { id: 'x' } } }) }, line: /^auth\.principalsFile: .*shape\.json: principals\.nothex: /m },
  { name: 'principals file an array', config: base({ auth: { principalsFile: 'array.json' } }), files: { 'array.json': '[]' }, line: /^auth\.principalsFile: .*array\.json: \(top level\): /m },
  { name: 'principals file a directory', config: base({ auth: { principalsFile: 'pdir' } }), files: { pdir: 'dir' }, line: /^auth\.principalsFile: .*pdir: cannot read \(EISDIR\)$/ },
  {
    name: 'principals file unreadable', config: base({ auth: { principalsFile: 'locked.json' } }), files: { 'locked.json': '{"version":1,"principals":{}}' },
    setUp: (d) => chmod(join(d, 'locked.json'), 0o000), line: /^auth\.principalsFile: .*locked\.json: cannot read \(EACCES\)$/,
    skip: process.getuid?.() === 0, // root reads a mode-000 file
  },
  { name: 'PostgreSQL urlEnv unset', config: base({ parking: { store: { kind: 'postgres', urlEnv: 'GW_TEST_UNSET_DB_URL' } } }), line: 'parking.store.urlEnv: environment variable GW_TEST_UNSET_DB_URL is not set (it must hold a postgres:// URL)' },
  {
    name: 'PostgreSQL unreachable', config: base({ queue: { adapter: { kind: 'postgres', urlEnv: 'GW_TEST_DB_URL' } } }), env: { GW_TEST_DB_URL: 'postgres://gw:pw-not-shown@127.0.0.1:1/gw' },
    line: /^queue\.adapter\.urlEnv: cannot reach the PostgreSQL database in GW_TEST_DB_URL \(ECONNREFUSED/, connectOnly: true,
  },
  { name: '.json with a trailing comma', config: '{"auth": {"principalsFile": "principals.json"}, "profiles": [],}', line: /: not valid JSON: / },
  { name: 'misspelt key', config: base({ profiles: [{ ...PROVIDER, provider: { ...PROVIDER.provider, baseUrl: 'http://x' } }] }), line: "profiles[0].provider.baseUrl: unknown key (did you mean 'baseURL'?)" },
  { name: 'YAML misspelt top-level key', config: 'auth: { principalsFile: principals.json }\nprofile: []\n', extension: 'yaml', line: "profile: unknown key (did you mean 'profiles'?)" },
  { name: 'cli_primary executable missing', config: base({ profiles: [CLAUDE], engines: { cli_primary: { executable: './no-such-claude' } } }), line: /^engines\.cli_primary\.executable: .*no-such-claude does not exist or is not a file$/ },
  {
    name: 'cli_primary executable not executable', config: base({ profiles: [CLAUDE], engines: { cli_primary: { executable: './claude-script' } } }), files: { 'claude-script': '#!/bin/sh\n' },
    line: /^engines\.cli_primary\.executable: .*claude-script is not executable by this user$/,
  },
  {
    name: 'Claude Agent SDK not installed, executable set', config: base({ profiles: [CLAUDE], engines: CLAUDE_ENGINE }),
    env: { GATEWAY_TEST_HIDE_PACKAGE: '@anthropic-ai/claude-agent-sdk' }, nodeArgs: ['--import', HIDE],
    line: 'a cli_primary profile needs the package @anthropic-ai/claude-agent-sdk: npm install @anthropic-ai/claude-agent-sdk',
  },
  // A profile's own program is checked by the profile's path, by serve as by check.
  { name: "a cli_primary profile's own executable missing", config: base({ profiles: [{ ...CLAUDE, executable: './no-such-own-claude' }] }), line: /^profiles\[0\]\.executable: .*no-such-own-claude does not exist or is not a file$/ },
  { name: "a cli_secondary profile's own codexPath missing", config: base({ profiles: [{ name: 'codex', engine: 'cli_secondary', codexPath: '/nonexistent/own-codex' }] }), line: 'profiles[0].codexPath: /nonexistent/own-codex does not exist or is not a file' },
  { name: 'cli_secondary codex missing', config: base({ profiles: [{ name: 'codex', engine: 'cli_secondary' }], engines: { cli_secondary: { codexPath: '/nonexistent/codex' } } }), line: 'engines.cli_secondary.codexPath: /nonexistent/codex does not exist or is not a file' },
  { name: 'hooks module missing', config: base({ hooks: 'hooks.mjs' }), line: /^hooks: .*hooks\.mjs does not exist$/ },
  { name: 'hooks module with a bad export', config: base({ hooks: 'bad-hooks.mjs' }), files: { 'bad-hooks.mjs': 'export const authenticate = 42\n' }, line: "hooks: export 'authenticate' must be a function" },
  { name: 'hooks module that throws on import', config: base({ hooks: 'throws.mjs' }), files: { 'throws.mjs': 'throw new Error("hooks exploded")\n' }, line: /^hooks: .*throws\.mjs cannot be loaded: hooks exploded$/ },
  { name: 'parking directory not creatable', config: base({ parking: { store: { kind: 'file', dir: 'afile/sessions' } } }), files: { afile: 'x' }, line: /^parking\.store\.dir: .*afile is not a directory$/ },
  { name: 'profile default mode outside the engine record', config: base({ profiles: [{ ...PROVIDER, defaults: { permissionMode: 'acceptEdits' } }] }), line: /^profiles: profile 'llm': default permissionMode 'acceptEdits' is not supported by engine provider$/ },
  { name: 'requireAvailableProfile without checkCredentials', config: base({ requireAvailableProfile: true }), line: 'requireAvailableProfile: needs checkCredentials (nothing would ever report a profile unavailable)' },
  { name: 'hostFiles root missing', config: base({ hostFiles: { roots: ['./no-root'] } }), line: /^hostFiles\.roots\[0\]: .*no-root does not exist or is not a directory$/ },
]

let n = 0
async function install(row: Row): Promise<string> {
  const caseDir = join(dir, `case-${++n}`)
  await mkdir(caseDir)
  await createToken(join(caseDir, 'principals.json'), { id: 'ops', operator: true })
  for (const [name, content] of Object.entries(row.files ?? {})) {
    if (content === 'dir') await mkdir(join(caseDir, name))
    else await writeFile(join(caseDir, name), content)
  }
  await row.setUp?.(caseDir)
  const file = join(caseDir, `gateway.${row.extension ?? 'json'}`)
  await writeFile(file, typeof row.config === 'string' ? row.config : JSON.stringify(row.config, null, 2))
  return file
}

/** The problem lines, without each command's own closing line. */
function problemLines(result: CommandResult): string[] {
  return result.stderr.trim().split('\n').filter((l) => l && !/: \d+ problems?$/.test(l) && !l.startsWith('gateway: configuration has problems'))
}

describe('gateway check predicts gateway serve', { timeout: 180_000 }, () => {
  it.each(ROWS.filter((r) => !r.skip).map((r) => [r.name, r] as const))('%s: serve refuses and check fails with the same lines', async (_name, row) => {
    const file = await install(row)
    const env = { ...process.env, ...row.env }
    const options = { nodeArgs: row.nodeArgs ?? [], timeoutMs: 30_000 }
    const [serve, check] = await Promise.all([
      runGateway(['serve', '--config', file, '--port', '0'], env, options),
      runGateway(['check', '--config', file], env, options),
    ])
    expect(serve.code, `serve: ${serve.stderr}`).toBe(2)
    expect(check.code, `check: ${check.stderr}`).toBe(2)
    expect(check.stdout).not.toContain('configuration is valid')
    const lines = problemLines(check)
    expect(problemLines(serve)).toEqual(lines)
    expect(lines.some((l) => (typeof row.line === 'string' ? l === row.line : row.line.test(l))), lines.join('\n')).toBe(true)
    expect(`${serve.stderr}${check.stderr}`).not.toContain('pw-not-shown')
    if (row.connectOnly) {
      const offline = await runGateway(['check', '--config', file, '--no-connect'], env, options)
      expect(offline.code, offline.stderr).toBe(0)
      expect(offline.stdout).toContain('configuration is valid')
    }
  })

  it('a file check passes is a file serve starts on', async () => {
    const file = await install({ name: 'good', config: base({ profiles: [PROVIDER, CLAUDE], engines: CLAUDE_ENGINE }), line: '' })
    const check = await runGateway(['check', '--config', file])
    expect(check.code, check.stderr).toBe(0)
    const serve = await serveGateway(file)
    serve.child.kill('SIGTERM')
    expect(await serve.exited).toEqual({ code: 0, signal: null })
  })
})
