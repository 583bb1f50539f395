/**
 * The install path: both packages packed (their prepack builds them), installed into
 * an empty project outside the repository with this Node 22 and none of the repository's
 * node_modules, and used there as the README tells each kind of user to; and docs/operating.md
 * followed literally from the same tarballs.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { installPinned } from '../gateway/test/real-binaries.ts'
import { expectPublishedMetadata, unlinkedRepositoryPaths } from './published-metadata.ts'
import { ENV, PATH, userShell } from './user-shell.ts'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const EXAMPLE = join(ROOT, 'examples/library/server.ts')
const KIT_SIZE_LIMIT = 15 * 1024 * 1024
const ENGINE_SDKS = ['@anthropic-ai/claude-agent-sdk', 'ai', '@ai-sdk/openai-compatible', '@ai-sdk/provider', 'quickjs-emscripten']
const TOKEN = 'install-path-operator-token'
const SETUP_MS = 10 * 60_000
/** The TypeScript a user gets today (`npm i -D typescript`: 7) and the 5.x line before it. */
const USER_TYPESCRIPTS = ['7.0.2', '5.9.3']
/** The fake engine commands the kit installs; each must print usage for --help and exit 0. */
const FAKE_BINS = Object.keys(JSON.parse(readFileSync(join(ROOT, 'packages/conformance/package.json'), 'utf8')).bin as Record<string, string>).filter((bin) => bin.startsWith('fake-'))

/**
 * `npx --yes=false`: the command must come from the project, never be fetched from the registry.
 * Every command runs in a user's shell (user-shell.ts).
 */
const { run, ok } = userShell(SETUP_MS)

/** Starts a long-running command and resolves with the first stdout line matching `pattern`. */
function startUntil(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, pattern: RegExp): Promise<{ child: ChildProcess; match: RegExpMatchArray }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    started.push(child)
    let output = ''
    const onData = (c: Buffer) => {
      output += c
      const match = output.match(pattern)
      if (match) resolve({ child, match })
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', (c: Buffer) => { output += c })
    child.once('exit', (code) => reject(new Error(`${command} ${args.join(' ')} exited ${code} before printing ${pattern}:\n${output}`)))
  })
}

function installedVersion(name: string): string {
  return JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version
}

function sizeOf(dir: string): number {
  let total = 0
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size
  }
  return total
}

/** Every package name installed anywhere under node_modules (hoisted or nested). */
function installedPackages(nodeModules: string): Set<string> {
  const names = new Set<string>()
  for (const entry of readdirSync(nodeModules, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || entry.name !== 'package.json') continue
    const m = /(?:^|[/\\])node_modules[/\\]((?:@[^/\\]+[/\\])?[^/\\]+)$/.exec(entry.parentPath)
    if (m) names.add(m[1].replace(/\\/g, '/'))
  }
  return names
}

/** A system Node older than 22 (the machine's PATH), or undefined when there is none. */
async function oldNode(): Promise<{ path: string; version: string } | undefined> {
  for (const dir of PATH.split(delimiter).slice(1)) {
    const candidate = join(dir, 'node')
    if (!existsSync(candidate)) continue
    const version = (await run(candidate, ['-p', 'process.versions.node'], { cwd: tmpdir() })).stdout.trim()
    if (Number(version.split('.')[0]) < 22) return { path: candidate, version }
  }
  return undefined
}

const started: ChildProcess[] = []
let work: string
let project: string
let kitOnly: string
let gatewayTgz: string
let kitTgz: string
let clientTgz: string

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'install-path-'))
  const packs = join(work, 'packs')
  project = join(work, 'project')
  kitOnly = join(work, 'kit-only')
  for (const dir of [packs, project, kitOnly]) await mkdir(dir)
  const t0 = Date.now()
  await ok('npm', ['pack', join(ROOT, 'packages/gateway'), join(ROOT, 'packages/conformance'), join(ROOT, 'packages/client'), '--pack-destination', packs, '--silent'], packs)
  ;[gatewayTgz, kitTgz, clientTgz] = ['agent-session-gateway', 'gateway-conformance', 'agent-session-client'].map((name) => join(packs, (readdirSync(packs).find((f) => f.startsWith(`${name}-`)))!)) as [string, string, string]
  const t1 = Date.now()
  for (const dir of [project, kitOnly]) await writeFile(join(dir, 'package.json'), `${JSON.stringify({ name: 'install-path-check', private: true, type: 'module' })}\n`)
  const install = ['install', '--prefer-offline', '--no-audit', '--no-fund', '--silent']
  await Promise.all([
    // The user's TypeScript comes from the pinned cache (USER_TYPESCRIPTS), run on this project.
    ok('npm', [...install, gatewayTgz, kitTgz, `@types/node@${installedVersion('@types/node')}`], project),
    ok('npm', [...install, kitTgz], kitOnly),
  ])
  console.log(`install path: packed in ${((t1 - t0) / 1000).toFixed(1)} s, installed in ${((Date.now() - t1) / 1000).toFixed(1)} s`)
}, SETUP_MS)

afterAll(async () => {
  for (const child of started) child.kill('SIGTERM')
  if (work) await rm(work, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 })
})

describe('the README', () => {
  it('shows the library example exactly as examples/library/server.ts, which this test compiles and runs', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8')
    const block = /## Using the gateway as a library[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1]
    expect(block).toBe(await readFile(EXAMPLE, 'utf8'))
  })
})

describe('installed from the packed tarballs into an empty project', () => {
  it("compiles the README's library example with the user's own TypeScript 7 and 5.9 (strict, nodenext, no skipLibCheck): 0 errors", async () => {
    await writeFile(join(project, 'server.ts'), await readFile(EXAMPLE, 'utf8'))
    // What `tsc --init` leaves when a user removes skipLibCheck: every declaration is checked,
    // ours and those of the packages ours import (@ai-sdk/provider's need json-schema's).
    const options = { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2023', types: ['node'], skipLibCheck: false, outDir: 'out' }
    await writeFile(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files: ['server.ts'] }))
    for (const version of USER_TYPESCRIPTS) {
      const typescript = await installPinned({ name: 'typescript', version })
      if (!typescript.ok) throw new Error(typescript.reason)
      const tsc = join(typescript.dir, 'node_modules/.bin/tsc')
      expect((await run(tsc, ['--version'], { cwd: project })).stdout.trim()).toBe(`Version ${version}`)
      const compiled = await run(tsc, ['-p', '.'], { cwd: project })
      expect({ version, output: compiled.stdout + compiled.stderr, code: compiled.code }).toEqual({ version, output: '', code: 0 })
    }
  }, SETUP_MS)

  it('prints usage and exits 0 for --help on each of the kit\'s six commands, starting nothing', async () => {
    expect(FAKE_BINS.length).toBe(6)
    for (const bin of FAKE_BINS) {
      // A command that started a server or waited on stdin instead would be killed here (code null).
      const ran = await run(join(project, 'node_modules/.bin', bin), ['--help'], { cwd: project, timeoutMs: 20_000 })
      expect({ bin, code: ran.code, stderr: ran.stderr }).toEqual({ bin, code: 0, stderr: '' })
      expect(ran.stdout).toMatch(new RegExp(`^usage: ${bin}`))
    }
  }, SETUP_MS)

  it('runs the example on the kit\'s fake model server; gateway --help and gateway-conformance --url run against it', async () => {
    expect(existsSync(join(project, 'out/server.js'))).toBe(true)
    // The bin itself, not through npx, so that stopping it stops the server (npx leaves its child running).
    const model = await startUntil(join(project, 'node_modules/.bin/fake-model-server'), [], project, ENV, /^(http\S+)$/m)
    const gateway = await startUntil(process.execPath, ['out/server.js'], project,
      { ...ENV, GATEWAY_TOKEN: TOKEN, MODEL: 'fake-small', MODEL_BASE_URL: model.match[1], PARK_DIR: join(work, 'parks'), PORT: '0' }, /gateway listening on (http\S+)/)
    const url = gateway.match[1]

    const help = await run('npx', ['--yes=false', 'gateway', '--help'], { cwd: project })
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/^usage: gateway/)
    const version = await run('npx', ['--yes=false', 'gateway', '--version'], { cwd: project })
    expect(version.stdout.trim()).toBe(JSON.parse(await readFile(join(ROOT, 'packages/gateway/package.json'), 'utf8')).version)

    // Until the kit's --url runs widen, a bare URL runs the cases that need no manifest:
    // what is asserted is that the installed command connects, runs them and writes a report.
    const reports = join(work, 'reports')
    const suite = await run('npx', ['--yes=false', 'gateway-conformance', '--url', url, '--token', TOKEN, '--reports', reports], { cwd: project })
    expect(suite.stdout).toContain(`against ${url}`)
    expect([0, 1]).toContain(suite.code)
    // A --url run is a smoke test: its verdict line, the last, never says CONFORMANT.
    expect(suite.stdout.trimEnd().split('\n').at(-1)).toMatch(suite.code === 0 ? /^SMOKE TEST: \d+ of \d+ cases ran, none failed: not a conformance verdict/ : /^NOT CONFORMANT: /)
    const report = JSON.parse(await readFile(join(reports, 'report.json'), 'utf8'))
    expect(report.manifest.baseUrl).toBe(url)
    expect(report.summary.pass).toBeGreaterThan(0)
    expect(JSON.stringify(report)).not.toContain(TOKEN)
    expect(await readdir(reports)).toEqual(expect.arrayContaining(['report.json', 'junit.xml', 'index.html']))
  }, SETUP_MS)

  it('each package names its repository, homepage, issue tracker and licence, ships the LICENSE and no source map, and its README links the repository files it names', async () => {
    const license = await readFile(join(ROOT, 'LICENSE'), 'utf8')
    for (const [name, directory] of [['agent-session-gateway', 'packages/gateway'], ['gateway-conformance', 'packages/conformance']]) {
      const installed = join(project, 'node_modules', name)
      expectPublishedMetadata(JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')), directory)
      expect({ name, license: await readFile(join(installed, 'LICENSE'), 'utf8') }).toEqual({ name, license })
      expect({ name, unlinked: unlinkedRepositoryPaths(await readFile(join(installed, 'README.md'), 'utf8')) }).toEqual({ name, unlinked: [] })
      expect({ name, maps: readdirSync(installed, { recursive: true }).filter((f) => String(f).endsWith('.map')) }).toEqual({ name, maps: [] })
    }
  })

  it('the gateway command without the optional Claude Agent SDK names the package in one line and exits 2', async () => {
    // `gateway` here is the development gateway, which declares cli_primary profiles.
    const ran = await run(join(project, 'node_modules/.bin/gateway'), ['--port', '0'], { cwd: project })
    expect(ran.code).toBe(2)
    expect(ran.stderr).toBe('a cli_primary profile needs the package @anthropic-ai/claude-agent-sdk: npm install @anthropic-ai/claude-agent-sdk\n')
  }, SETUP_MS)

  it('installs the kit alone within 15 MB of node_modules, the size the README states, with no engine SDK in its tree', async () => {
    const size = sizeOf(join(kitOnly, 'node_modules'))
    console.log(`install path: the kit alone installs ${(size / 1024 / 1024).toFixed(1)} MB of node_modules`)
    expect(size).toBeLessThanOrEqual(KIT_SIZE_LIMIT)
    // The README states the files' size (what this sums) beside what `du` shows on disk.
    const stated = Number(/The kit alone \(about (\d+) MB of files/.exec(await readFile(join(ROOT, 'README.md'), 'utf8'))?.[1])
    expect(Math.abs(size / 1024 / 1024 - stated)).toBeLessThan(1)
    const installed = installedPackages(join(kitOnly, 'node_modules'))
    expect(installed.has('gateway-conformance')).toBe(true)
    expect(ENGINE_SDKS.filter((name) => installed.has(name))).toEqual([])
    expect(installed.has('agent-session-gateway')).toBe(false)
  })

  it('ships manifest.schema.json in the packed kit, where the target README\'s $schema points and as the export gateway-conformance/manifest.schema.json', async () => {
    const readme = await readFile(join(ROOT, 'conformance/target/README.md'), 'utf8')
    const pointer = /\{ "\$schema": "([^"]+)" \}/.exec(readme)?.[1]
    expect(pointer).toMatch(/^\.\/node_modules\/gateway-conformance\//)
    const shipped = join(kitOnly, pointer!)
    expect(JSON.parse(await readFile(shipped, 'utf8'))).toEqual(JSON.parse(await readFile(join(ROOT, 'conformance/target/manifest.schema.json'), 'utf8')))
    const resolved = await run(process.execPath, ['--input-type=module', '-e', "console.log(import.meta.resolve('gateway-conformance/manifest.schema.json'))"], { cwd: kitOnly })
    expect(fileURLToPath(resolved.stdout.trim())).toBe(realpathSync(shipped))
  })

  it('the kit alone, asked for the self target, names the gateway package to install in one line and exits 2', async () => {
    // The bin itself (npx would add npm's own warnings to stderr).
    const ran = await run(join(kitOnly, 'node_modules/.bin/gateway-conformance'), [], { cwd: kitOnly })
    expect(ran.code).toBe(2)
    expect(ran.stderr.trim().split('\n')).toEqual([expect.stringMatching(/needs our gateway: npm install agent-session-gateway$/)])
  }, SETUP_MS)

  it('on a Node older than 22 both commands print one line naming the Node version and exit 2', async () => {
    const old = await oldNode()
    if (!old) {
      console.log('install path: no Node older than 22 on this machine\'s PATH; the version-guard check did not run')
      return
    }
    // The bins' `#!/usr/bin/env node` finds the old Node first on PATH, as on this machine's own PATH.
    const env = { ...ENV, PATH: [dirname(old.path), ...PATH.split(delimiter).slice(1)].join(delimiter) }
    for (const command of ['gateway-conformance', 'gateway']) {
      const ran = await run(join(project, 'node_modules/.bin', command), ['--url', 'http://127.0.0.1:9/v1'], { cwd: project, env })
      expect(ran.code).toBe(2)
      expect(ran.stdout).toBe('')
      expect(ran.stderr).toBe(`${command} needs Node 22 or later; this is Node ${old.version}\n`)
    }
  }, SETUP_MS)
})

/** The systemd unit of docs/operating.md §4, its `/srv/gateway` and `/etc/gateway` moved under `root`. */
function systemdUnit(doc: string, root: string): { workingDirectory: string; execStart: string[]; environment: Record<string, string>; environmentFile: string } {
  const unit = /```ini\n(# \/etc\/systemd\/system\/gateway\.service[\s\S]*?)```/.exec(doc)?.[1]
  if (!unit) throw new Error('docs/operating.md has no systemd unit')
  const values = (key: string) => unit.split('\n').filter((l) => l.startsWith(`${key}=`))
    .map((l) => l.slice(key.length + 1).replaceAll('/srv/gateway', join(root, 'srv/gateway')).replaceAll('/etc/gateway', join(root, 'etc/gateway')))
  return {
    workingDirectory: values('WorkingDirectory')[0]!,
    execStart: values('ExecStart')[0]!.split(/\s+/),
    environment: Object.fromEntries(values('Environment').map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)])),
    environmentFile: values('EnvironmentFile')[0]!,
  }
}

/** Every process (but this one) whose command line names `dir`: the walk-through's gateway (its --config) and the engines it started. */
function processesNaming(dir: string): string[] {
  return readdirSync('/proc').filter((pid) => /^\d+$/.test(pid) && Number(pid) !== process.pid).flatMap((pid) => {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ')
      return cmdline.includes(dir) ? [`${pid}: ${cmdline}`] : []
    } catch {
      return [] // gone meanwhile
    }
  })
}

describe('docs/operating.md, followed literally from the packed tarballs', () => {
  it('§1 install, §2 schema and check, §3 a token, §4 the systemd unit\'s ExecStart as systemd runs it: serves a Claude session, and SIGTERM exits 0 with no process left', async () => {
    const doc = await readFile(join(ROOT, 'docs/operating.md'), 'utf8')
    const srv = join(work, 'srv/gateway')
    const app = join(srv, 'app')
    await mkdir(app, { recursive: true })

    // §1: `npm init -y`, `npm install agent-session-gateway @anthropic-ai/claude-agent-sdk`. From the
    // tarballs instead of the registry, with the kit whose fakes stand in for the engines, so
    // without the SDK's optional 384 MB native CLI (--omit=optional) that the fake replaces.
    const install = /```sh\n([\s\S]*?)```/.exec(doc.slice(doc.indexOf('## 1. Install')))?.[1] ?? ''
    expect(install).toContain('npm init -y')
    expect(install).toContain('npm install agent-session-gateway @anthropic-ai/claude-agent-sdk')
    await ok('npm', ['init', '-y'], app)
    await ok('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--silent', '--omit=optional', gatewayTgz, kitTgz, `@anthropic-ai/claude-agent-sdk@${installedVersion('@anthropic-ai/claude-agent-sdk')}`], app)
    const gateway = join(app, 'node_modules/.bin/gateway')

    // The example configuration, /srv/gateway moved here and on a free port; the engines where it
    // names them are the kit's fakes, signed in as §1 says (the fake codex reads auth.json).
    let config = (await readFile(join(ROOT, 'docs/examples/gateway.yaml'), 'utf8')).replaceAll('/srv/gateway', srv)
    expect(config).toContain('  port: 8787')
    config = config.replace('  port: 8787', '  port: 0')
    for (const dir of ['claude-config', 'codex-home', 'work', 'state', 'claude', 'codex/bin']) await mkdir(join(srv, dir), { recursive: true })
    await symlink(join(app, 'node_modules/.bin/fake-claude-cli'), join(srv, 'claude/claude'))
    await symlink(join(app, 'node_modules/.bin/fake-codex-app-server'), join(srv, 'codex/bin/codex'))
    await writeFile(join(srv, 'codex-home/auth.json'), '{}')
    const file = join(srv, 'gateway.yaml')
    await writeFile(file, config)

    // §2: the schema beside the file, where its first line points editors.
    expect(doc).toContain('cd /srv/gateway/app && npx gateway schema > /srv/gateway/gateway-config.schema.json')
    expect(config.split('\n')[0]).toBe('# yaml-language-server: $schema=./gateway-config.schema.json')
    await writeFile(join(srv, 'gateway-config.schema.json'), await ok(gateway, ['schema'], app))
    expect(JSON.parse(await readFile(join(srv, 'gateway-config.schema.json'), 'utf8')).title).toBe('Agent session gateway configuration')

    // §3: a token for an operator.
    const token = (await ok(gateway, ['token', 'create', '--principals', join(srv, 'principals.json'), '--id', 'ops', '--operator'], app)).trim()

    // §4: the unit's environment: its EnvironmentFile with the variables the file names, its Environment= lines.
    const unit = systemdUnit(doc, work)
    await mkdir(dirname(unit.environmentFile), { recursive: true })
    const secrets = { ANTHROPIC_API_KEY: 'walkthrough-anthropic', LOCAL_LLM_API_KEY: 'walkthrough-llm', DOCS_MCP_TOKEN: 'walkthrough-mcp', NOTIFY_WEBHOOK_AUTH: 'Bearer walkthrough' }
    await writeFile(unit.environmentFile, Object.entries(secrets).map(([k, v]) => `${k}=${v}\n`).join(''), { mode: 0o600 })
    const env = { ...ENV, ...secrets, ...unit.environment }

    // §2: gateway check passes on it, with nothing to warn about.
    const checked = await run(gateway, ['check', '--config', file], { cwd: app, env })
    expect(checked).toEqual({ code: 0, stdout: `${file}: configuration is valid\n`, stderr: '' })

    // §4: ExecStart as systemd runs it: the bin itself, no shell, in WorkingDirectory.
    expect(unit.execStart[0]).toBe(gateway)
    expect(unit.workingDirectory).toBe(app)
    const served = await startUntil(unit.execStart[0]!, unit.execStart.slice(1), unit.workingDirectory, env, /^(.*"msg":"gateway listening".*)$/m)
    const url = JSON.parse(served.match[1]!).url as string
    const origin = new URL(url).origin
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => served.child.once('exit', (code, signal) => resolve({ code, signal })))
    const ready = await fetch(`${origin}/readyz`)
    expect(ready.status).toBe(200)
    expect(((await ready.json()) as { checks: Record<string, unknown> }).checks.engines).toEqual({ cli_primary: 'ok', cli_secondary: 'ok' })
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    const created = await fetch(`${url}/sessions`, { method: 'POST', headers, body: JSON.stringify({ profile: 'default', cwd: join(srv, 'work'), prompt: 'hello from the walk-through' }) })
    expect(created.status).toBe(201)
    const { session } = (await created.json()) as { session: { id: string } }
    // The turn ran on the Claude engine (the fake CLI through the installed SDK) and its process is alive.
    for (let status = '', polls = 0; status !== 'idle'; polls++) {
      expect(polls).toBeLessThan(300) // a bound on waiting (30 s), not a speed claim
      status = ((await (await fetch(`${url}/sessions/${session.id}`, { headers })).json()) as { session: { status: string } }).session.status
      expect(['starting', 'running', 'idle']).toContain(status)
      if (status !== 'idle') await new Promise((r) => setTimeout(r, 100))
    }
    expect(processesNaming(srv).filter((p) => p.includes('--output-format'))).toHaveLength(1)

    served.child.kill('SIGTERM')
    expect(await exited).toEqual({ code: 0, signal: null })
    expect(processesNaming(srv)).toEqual([])
  }, SETUP_MS)
})

/** A WebSocket message matching `predicate`, or a throw after `timeoutMs` naming what came. */
function nextFrame(socket: WebSocket, predicate: (frame: any) => boolean, timeoutMs: number): Promise<any> {
  return new Promise((resolve, reject) => {
    const seen: string[] = []
    const timer = setTimeout(() => reject(new Error(`no matching frame in ${timeoutMs} ms; got ${seen.join(', ')}`)), timeoutMs)
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data))
      seen.push(frame.event?.type ?? frame.type)
      if (predicate(frame)) { clearTimeout(timer); resolve(frame) }
    })
  })
}

describe('examples/browser-panel, copied into an empty project with the packed tarballs and nothing of this repository', () => {
  it('installs, bundles its page, serves it, logs alice in by cookie and runs her session on the fake Claude CLI', async () => {
    const panel = join(work, 'panel')
    await mkdir(join(panel, 'page'), { recursive: true })
    for (const file of ['main.ts', 'server.ts', 'page/index.html', 'page/panel.ts', 'page/bundle.ts']) await writeFile(join(panel, file), await readFile(join(ROOT, 'examples/browser-panel', file)))
    await writeFile(join(panel, 'package.json'), `${JSON.stringify({ name: 'browser-panel-check', private: true, type: 'module' })}\n`)
    // What docs/client.md tells: the three packages, the SDK (without its native CLI: the fake replaces it) and tsx.
    await ok('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--silent', '--omit=optional', gatewayTgz, kitTgz, clientTgz,
      `@anthropic-ai/claude-agent-sdk@${installedVersion('@anthropic-ai/claude-agent-sdk')}`, `tsx@${installedVersion('tsx')}`], panel)
    const served = await startUntil(join(panel, 'node_modules/.bin/tsx'), ['main.ts'], panel, { ...ENV, PORT: '0' }, /browser panel on (http:\/\/\S+?)\//)
    const origin = served.match[1]!
    const page = await fetch(`${origin}/`)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('panel.js')
    const script = await (await fetch(`${origin}/panel.js`)).text()
    expect(script).toContain('GatewayClient') // agent-session-client bundled in, from the project's node_modules
    expect(script).not.toContain(ROOT)

    const login = await fetch(`${origin}/login`, { method: 'POST', body: new URLSearchParams({ user: 'alice' }), redirect: 'manual' })
    expect(login.status).toBe(303)
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!
    const workspace = await fetch(`${origin}/app/rpc/workspace`, { method: 'POST', headers: { cookie } })
    expect(workspace.status).toBe(200)
    const { profile, cwd } = (await workspace.json()) as { profile: string; cwd: string }
    const created = await fetch(`${origin}/v1/sessions`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ profile, cwd }) })
    expect(created.status).toBe(201)
    const { session } = (await created.json()) as { session: { id: string } }
    const socket = new WebSocket(`${origin.replace('http', 'ws')}/v1/sessions/${session.id}/ws`, { headers: { cookie } })
    const attached = nextFrame(socket, (f) => f.type === 'attached', 30_000)
    await attached
    const ended = nextFrame(socket, (f) => f.type === 'event' && f.event?.type === 'turn_result', 60_000)
    socket.send(JSON.stringify({ type: 'user_message', text: 'scenario:hello' }))
    expect((await ended).event.isError).not.toBe(true)
    socket.close()
    // Bob, of another tenant, gets 404 for alice's session, like an unknown id.
    const bob = (await fetch(`${origin}/login`, { method: 'POST', body: new URLSearchParams({ user: 'bob' }), redirect: 'manual' })).headers.get('set-cookie')!.split(';')[0]!
    expect((await fetch(`${origin}/v1/sessions/${session.id}`, { headers: { cookie: bob } })).status).toBe(404)
  }, SETUP_MS)
})
