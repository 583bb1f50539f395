/**
 * The client's install path: `agent-session-client` packed (its prepack
 * builds it), installed alone from the tarball into an empty project outside the repository
 * (offline: it has no dependency to fetch), the Node example of docs/client.md
 * (examples/client-node/main.ts) type-checked under the user's strict nodenext with the
 * package's declarations checked too, a browser program checked against the DOM lib without Node
 * types, and the compiled example run with plain Node 22 against our gateway on the fakes.
 */
import { readdirSync, statSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSelfTarget, type SelfTarget } from '../conformance/target/self.ts'
import { expectPublishedMetadata, unlinkedRepositoryPaths } from './published-metadata.ts'
import { ENV, userShell } from './user-shell.ts'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const EXAMPLE = join(ROOT, 'examples/client-node/main.ts')
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc')
const SETUP_MS = 5 * 60_000
const PACKED_LIMIT = 200 * 1024

const { run, ok } = userShell(SETUP_MS)

const installedVersion = async (name: string) => JSON.parse(await readFile(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version as string

let work: string
let project: string
let tarball: string
let installedAlone: string[]
let target: SelfTarget

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'client-install-path-'))
  const packs = join(work, 'packs')
  project = join(work, 'project')
  await Promise.all([mkdir(packs), mkdir(project)])
  const gateway = startSelfTarget()
  await ok('npm', ['pack', join(ROOT, 'packages/client'), '--pack-destination', packs, '--silent'], packs)
  tarball = join(packs, readdirSync(packs).find((f) => f.startsWith('agent-session-client-'))!)
  await writeFile(join(project, 'package.json'), `${JSON.stringify({ name: 'client-install-check', private: true, type: 'module' })}\n`)
  // Alone and offline: a package with no dependency needs nothing from a registry.
  await ok('npm', ['install', tarball, '--offline', '--no-audit', '--no-fund', '--silent'], project)
  installedAlone = readdirSync(join(project, 'node_modules')).filter((name) => !name.startsWith('.'))
  // The Node types a Node user's project has (from the npm cache this repository was installed from).
  await ok('npm', ['install', '--save-dev', `@types/node@${await installedVersion('@types/node')}`, '--prefer-offline', '--no-audit', '--no-fund', '--silent'], project)
  target = await gateway
}, SETUP_MS)

afterAll(async () => {
  await target?.close()
  if (work) await rm(work, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 })
})

describe('docs/client.md', () => {
  it('shows the Node example exactly as examples/client-node/main.ts, which this test type-checks and runs', async () => {
    const guide = await readFile(join(ROOT, 'docs/client.md'), 'utf8')
    const block = /## In Node[\s\S]*?```ts\n([\s\S]*?)```/.exec(guide)?.[1]
    expect(block).toBe(await readFile(EXAMPLE, 'utf8'))
  })
})

describe('agent-session-client installed alone from its packed tarball', () => {
  it('has no dependency: the tarball installs offline and brings nothing else', async () => {
    const size = statSync(tarball).size
    console.log(`client install path: agent-session-client packs to ${(size / 1024).toFixed(1)} kB`)
    expect(size).toBeLessThan(PACKED_LIMIT)
    expect(installedAlone).toEqual(['agent-session-client'])
    const manifest = JSON.parse(await readFile(join(project, 'node_modules/agent-session-client/package.json'), 'utf8'))
    expect(manifest.dependencies ?? {}).toEqual({})
    expect(manifest.peerDependencies ?? {}).toEqual({})
  })

  it('type-checks the Node example under strict nodenext with the package\'s declarations checked (no DOM lib), and compiles it', async () => {
    await writeFile(join(project, 'main.ts'), await readFile(EXAMPLE, 'utf8'))
    const options = { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2023', lib: ['es2023'], types: ['node'], skipLibCheck: false, outDir: 'out' }
    await writeFile(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files: ['main.ts'] }))
    const compiled = await run(process.execPath, [TSC, '-p', '.'], { cwd: project })
    expect(compiled.stdout + compiled.stderr).toBe('')
    expect(compiled.code).toBe(0)
  }, 90_000) // a full type check of the package and @types/node: seconds of CPU, more on a busy machine

  it('type-checks a browser program against the DOM lib with no Node types', async () => {
    await writeFile(join(project, 'browser.ts'), [
      "import { GatewayClient, reduceTranscript, emptyTranscript, type TranscriptState } from 'agent-session-client'",
      "const client = new GatewayClient({ baseUrl: '/v1' })",
      'let transcript: TranscriptState = emptyTranscript()',
      'const session = await client.createSession({})',
      'const handle = await client.attach(session.id)',
      'handle.on(\'event\', (event) => { transcript = reduceTranscript(transcript, event); document.title = String(transcript.rows.length) })',
      "const file = new File(['notes'], 'notes.txt', { type: 'text/plain' })",
      'const attachment = await client.uploadAttachment(session.id, file, { name: file.name })',
      "handle.sendMessage('read this', { attachmentIds: [attachment.id] })",
      '',
    ].join('\n'))
    const options = { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2023', lib: ['es2023', 'dom'], types: [], skipLibCheck: false, noEmit: true }
    await writeFile(join(project, 'tsconfig.browser.json'), JSON.stringify({ compilerOptions: options, files: ['browser.ts'] }))
    const checked = await run(process.execPath, [TSC, '-p', 'tsconfig.browser.json'], { cwd: project })
    expect(checked.stdout + checked.stderr).toBe('')
    expect(checked.code).toBe(0)
  }, 90_000) // a full type check of the package and @types/node: seconds of CPU, more on a busy machine

  it('runs the compiled example with plain Node 22 against our gateway on the fakes, on a provider and on a Claude Code profile', async () => {
    const { manifest } = target
    for (const profile of [manifest.profiles.provider, manifest.profiles.cli_primary]) {
      const env = { ...ENV, GATEWAY_URL: manifest.baseUrl, GATEWAY_TOKEN: manifest.tokens.operator, PROFILE: profile, SESSION_CWD: manifest.cwdRoot }
      const ran = await run(process.execPath, ['out/main.js', 'scenario:hello'], { cwd: project, env })
      expect({ profile, stderr: ran.stderr, code: ran.code }).toEqual({ profile, stderr: '', code: 0 })
      const lines = ran.stdout.trim().split('\n')
      expect(lines[0]).toBe('a missing session: 404 session_not_found')
      const printed = JSON.parse(lines[1]) as { result: string; streamed: string; rows: string[] }
      expect({ profile, streamed: printed.streamed, first: printed.rows[0], last: printed.rows.at(-1) }).toEqual({ profile, streamed: 'Hello, world!', first: 'user', last: 'turn_end' })
      // The Claude CLI's result is its last text block (the fake, like the real one, sends the text as two messages).
      if (profile === manifest.profiles.provider) expect(printed).toEqual({ result: 'Hello, world!', streamed: 'Hello, world!', rows: ['user', 'assistant', 'turn_end'] })
      else expect('Hello, world!'.endsWith(printed.result)).toBe(true)
    }
  })

  it('names its repository, homepage, issue tracker and licence, ships the LICENSE, and links the repository files its README names', async () => {
    const installed = join(project, 'node_modules/agent-session-client')
    expectPublishedMetadata(JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')), 'packages/client')
    expect(await readFile(join(installed, 'LICENSE'), 'utf8')).toBe(await readFile(join(ROOT, 'LICENSE'), 'utf8'))
    expect(unlinkedRepositoryPaths(await readFile(join(installed, 'README.md'), 'utf8'))).toEqual([])
    expect(readdirSync(installed, { recursive: true }).filter((f) => String(f).endsWith('.map'))).toEqual([])
  })
})
