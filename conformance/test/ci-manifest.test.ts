/**
 * A CI job as conformance/target/README.md § "Against our `gateway serve` in CI" writes it, run
 * from that section alone: its shell block (directories, tokens), its configuration file (every key
 * from docs/configuration.md and docs/operating.md) served by `gateway serve`, its manifest
 * declaring every feature the file supports, and the kit's command on it: 0 fails, 0 errors. The
 * paths and ports the section names move into a scratch directory; the fakes the section starts
 * with `npx` run from this repository.
 *
 * The same gateway with its deferred tools under other names shows what a manifest claiming a
 * feature the target names otherwise gets: the preflight's one line and exit 2 before any case, and
 * a case run past the preflight blaming the setup in its message, not a clause.
 */
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeMcpServer, type FakeMcpServer } from '../../fake-engines/mcp-server/server.ts'
import { startFakeModelServer, type FakeModelServer } from '../../fake-engines/provider-model/server.ts'
import { runGateway, serveGateway, type ServingGateway } from '../../gateway/test/gateway-command.ts'
import { loadManifest } from '../manifest.ts'
import { runSuite } from '../run-suite.ts'
import type { Report } from '../types.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const SECTION = '## Against our `gateway serve` in CI'
const SETUP_MS = 240_000
const TSX = fileURLToPath(import.meta.resolve('tsx'))

/** The section's shell, configuration and manifest blocks. */
async function readSection(): Promise<{ sh: string; yaml: string; json: string }> {
  const readme = await readFile(join(ROOT, 'conformance/target/README.md'), 'utf8')
  const start = readme.indexOf(SECTION)
  expect(start).toBeGreaterThan(-1)
  const section = readme.slice(start, readme.indexOf('\n## ', start + SECTION.length))
  const block = (lang: string) => new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(section)?.[1] ?? ''
  return { sh: block('sh'), yaml: block('yaml'), json: block('json') }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    }).on('error', reject)
  })
}

/** What `npm install gateway-conformance` puts in node_modules/.bin, standing in from this repository. */
async function installFakeBins(srv: string): Promise<void> {
  const bin = join(srv, 'node_modules/.bin')
  await mkdir(bin, { recursive: true })
  for (const [name, main] of [['fake-claude-cli', 'fake-engines/claude-cli/main.ts'], ['fake-codex-app-server', 'fake-engines/codex-app-server/main.ts']]) {
    // tsx by its path: the CLIs run in the session's cwd, outside this repository, where `tsx` resolves to nothing.
    await writeFile(join(bin, name), `#!/bin/sh\nexec "${process.execPath}" --import "${TSX}" "${join(ROOT, main)}" "$@"\n`, { mode: 0o755 })
  }
}

/** Runs the block's `mkdir`/`echo` lines in `srv` and its `gateway token create` lines; the tokens by id. */
async function runShellBlock(sh: string, srv: string): Promise<Record<string, string>> {
  const lines = sh.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim())
  const setup = lines.filter((l) => /^(mkdir -p (?!\/)|echo )/.test(l))
  expect(setup.length).toBeGreaterThanOrEqual(2)
  for (const line of setup) {
    const ran = await new Promise<number | null>((resolve) => spawn('sh', ['-c', line], { cwd: srv, stdio: 'ignore' }).on('exit', resolve))
    expect({ line, code: ran }).toEqual({ line, code: 0 })
  }
  const tokens: Record<string, string> = {}
  for (const line of lines.filter((l) => l.startsWith('npx gateway token create '))) {
    const args = line.slice('npx gateway '.length).split(/\s+/).map((arg, i, all) => (all[i - 1] === '--principals' ? join(srv, arg) : arg))
    const created = await runGateway(args)
    expect({ line, code: created.code }).toEqual({ line, code: 0 })
    tokens[args[args.indexOf('--id') + 1]] = created.stdout.trim()
  }
  return tokens
}

interface Addresses { model: string; mcp: string; webhook: string }

/** The section's file with its fakes' and webhook's fixed ports moved to the ones this run has. */
function configText(yaml: string, at: Addresses, rename: Record<string, string> = {}): string {
  for (const fixed of ['http://127.0.0.1:4000/v1', 'http://127.0.0.1:4001/mcp', 'http://127.0.0.1:9999/hook']) expect(yaml).toContain(fixed)
  let text = yaml.replace('http://127.0.0.1:4000/v1', at.model).replace('http://127.0.0.1:4001/mcp', at.mcp).replace('http://127.0.0.1:9999/hook', at.webhook)
  for (const [from, to] of Object.entries(rename)) text = text.replace(`${from}:`, `${to}:`)
  return text
}

function manifestText(json: string, srv: string, baseUrl: string, webhook: string, tokens: Record<string, string>): string {
  let text = json.replaceAll('/srv/ci', srv).replace('http://127.0.0.1:8787/v1', baseUrl).replace('http://127.0.0.1:9999/hook', webhook)
  for (const [id, token] of Object.entries(tokens)) text = text.replace(`<${id} token>`, token)
  expect(text).not.toMatch(/<\w+ token>/)
  return text
}

function runKit(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'conformance/cli.ts'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c) => (stdout += c))
    child.stderr.on('data', (c) => (stderr += c))
    child.on('exit', (code) => resolve({ code, stdout, stderr }))
  })
}

let work: string
let srv: string
let model: FakeModelServer
let mcp: FakeMcpServer
const gateways: ServingGateway[] = []
let manifestFile: string
let renamedManifestFile: string
let kit: Awaited<ReturnType<typeof runKit>>
let report: Report

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'ci-manifest-'))
  srv = join(work, 'srv/ci')
  // The same gateway, its deferred tools under other names, in its own directory: nothing is shared.
  const renamed = join(work, 'renamed')
  await Promise.all([mkdir(srv, { recursive: true }), mkdir(renamed)])
  const { sh, yaml, json } = await readSection()
  ;[model, mcp] = await Promise.all([startFakeModelServer({ port: 0 }), startFakeMcpServer({ port: 0 })])
  await Promise.all([installFakeBins(srv), installFakeBins(renamed)])
  const tokens = await runShellBlock(sh, srv)
  // The same principals there (the renamed gateway's setup is not what is under test).
  await Promise.all(['work', 'claude', 'codex-home', 'sessions'].map((dir) => mkdir(join(renamed, dir))))
  await writeFile(join(renamed, 'codex-home/auth.json'), '{}')
  await writeFile(join(renamed, 'principals.json'), await readFile(join(srv, 'principals.json')))
  expect(Object.keys(tokens)).toEqual(['operator', 'tenantA', 'tenantB', 'restricted', 'manager'])
  // The environment the block's serve line gives the gateway.
  const serveLine = /^((?:\w+=\S+ )*)node_modules\/\.bin\/gateway serve --config gateway\.yaml/m.exec(sh)
  expect(serveLine).not.toBeNull()
  const env = { ...process.env, ...Object.fromEntries(serveLine![1].trim().split(/\s+/).map((pair) => pair.split('='))) }
  const webhook = `http://127.0.0.1:${await freePort()}/hook`
  const at = { model: model.baseURL, mcp: mcp.url, webhook }
  await writeFile(join(srv, 'gateway.yaml'), configText(yaml, at))
  await writeFile(join(renamed, 'gateway.yaml'), configText(yaml, at, { deferred_task: 'create_ticket', deferred_short: 'quick_ticket' }))
  const [main, other] = await Promise.all([serveGateway(join(srv, 'gateway.yaml'), env), serveGateway(join(renamed, 'gateway.yaml'), env)])
  gateways.push(main, other)
  manifestFile = join(srv, 'manifest.json')
  await writeFile(manifestFile, manifestText(json, srv, main.url, webhook, tokens))
  renamedManifestFile = join(renamed, 'manifest.json')
  await writeFile(renamedManifestFile, manifestText(json, renamed, other.url, webhook, tokens))
  const reports = join(work, 'reports')
  kit = await runKit(['--target', manifestFile, '--reports', reports, '--seed', '1234'])
  report = JSON.parse(await readFile(join(reports, 'report.json'), 'utf8'))
}, SETUP_MS)

afterAll(async () => {
  for (const gateway of gateways) gateway.child.kill('SIGKILL')
  await Promise.all([model?.close(), mcp?.close()])
  if (work) await rm(work, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 })
})

describe('a CI manifest from conformance/target/README.md alone, against gateway serve configured from the docs alone', () => {
  it('declares every feature the section says its file gives, and the kit gives 0 fails and 0 errors', () => {
    const bad = report.cases.filter((c) => c.outcome === 'fail' || c.outcome === 'error' || c.outcome === 'flaky').map((c) => `${c.id} (${c.outcome}): ${c.message}`)
    console.log(`ci manifest: ${kit.stdout.trimEnd().split('\n').at(-1)} in ${(report.durationMs / 1000).toFixed(1)} s`)
    console.log(report.cases.filter((c) => c.outcome === 'unsupported').map((c) => `ci manifest: unsupported ${c.id}: ${c.message}`).join('\n'))
    expect(bad).toEqual([])
    expect(kit.code).toBe(0)
    expect(report.summary.pass).toBeGreaterThan(100)
  })

  it('runs every case its declared features allow: none is unsupported for a feature, timer, limit or profile the manifest gives', async () => {
    const manifest = await loadManifest(manifestFile)
    const declared = new Set<string>(manifest.features)
    const wrongly = report.cases.filter((c) => c.outcome === 'unsupported' && [...declared].some((f) => c.message === `needs feature ${f}`))
    expect(wrongly.map((c) => `${c.id}: ${c.message}`)).toEqual([])
  })
})

describe('a manifest claiming a feature whose tool the target names otherwise', () => {
  it('is stopped by the preflight in one line naming the tool, exit 2, before any case runs', async () => {
    const ran = await runKit(['--target', renamedManifestFile, '--reports', join(work, 'renamed-reports')])
    expect(ran.code).toBe(2)
    expect(ran.stdout).not.toMatch(/running \d+ cases/)
    const lines = ran.stderr.trim().split('\n').filter((l) => l.startsWith('preflight: '))
    expect(lines).toEqual([
      expect.stringMatching(/^preflight: features\.parking: profiles\.provider 'default' offers no tool the scenarios' deferred_task binds to \(the target answered "unknown tool: deferred_task"\): .*fake-model-server --tool-name deferred_task=<your tool>/),
      expect.stringMatching(/^preflight: features\.parking: profiles\.provider 'default' offers no tool the scenarios' deferred_short binds to/),
    ])
  }, SETUP_MS)

  it('a case run past the preflight says in its message that the setup, not a clause, failed it', async () => {
    const manifest = await loadManifest(renamedManifestFile)
    const run = await runSuite({ manifest, seed: 1234, filters: ['parking-park-and-deliver'], timeoutMs: 3000 })
    expect(run.cases.length).toBe(1)
    const [result] = run.cases
    expect(result.outcome).toBe('error')
    expect(result.message).toMatch(/^the target's setup, not a clause: it answered "unknown tool: deferred_task" to a scenario's call \(offer deferred_task under that name/)
  }, SETUP_MS)
})
