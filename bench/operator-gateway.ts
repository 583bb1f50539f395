/**
 * The gateway as an operator runs it: `gateway serve --config <file>` in its own
 * process, bearer authentication from a principals file, the provider engine on the fake model
 * server in a third process, and the two CLI engines on the kit's fake CLIs (which the gateway
 * spawns, as it spawns real ones). The compiled package (packages/gateway/dist, built again first
 * when a source is newer) under plain `node`, or the sources under tsx when asked. The bench process is the client.
 *
 * `cpuNs()` reads the gateway process's CPU time from /proc (every thread's `schedstat`, in ns:
 * the main thread, V8's GC helpers and libuv's pool), so a figure is the gateway's own, never the
 * model server's, the fake CLIs' or the client's.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer, type AddressInfo } from 'node:net'
import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { randomBytes } from 'node:crypto'
import { hashToken } from '../gateway/config/principals.ts'
import { COMPILED_BIN, ensureCompiledPackage } from './compiled-package.ts'
import { FAKE_CLAUDE_CLI_NODE_ARGS, FAKE_CLAUDE_CLI_PATH } from '../fake-engines/claude-cli/index.ts'
import { FAKE_CODEX_APP_SERVER_NODE_ARGS, FAKE_CODEX_APP_SERVER_PATH } from '../fake-engines/codex-app-server/index.ts'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const MODEL_MAIN = join(ROOT, 'fake-engines/provider-model/main.ts')

export interface OperatorGateway {
  url: string
  /** Bearer token of the one operator principal (a fresh random one per gateway). */
  token: string
  pid: number
  compiled: boolean
  /** A directory inside the gateway's allowed cwd roots, for CLI sessions. */
  cwd: string
  /** CPU time of the gateway process so far, every thread, in nanoseconds. */
  cpuNs(): Promise<number>
  /** Resident memory of the gateway process, bytes. */
  rss(): Promise<number>
  close(): Promise<void>
}

/** Sum of every thread's on-CPU time (first field of /proc/<pid>/task/<tid>/schedstat, ns). */
export async function processCpuNs(pid: number): Promise<number> {
  let total = 0
  for (const tid of await readdir(`/proc/${pid}/task`)) {
    try {
      total += Number((await readFile(`/proc/${pid}/task/${tid}/schedstat`, 'utf8')).split(' ')[0])
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return total
}

export async function processRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024
}

/** Spawns `node <args>` and resolves with the first stdout line `match` accepts, parsed by it. */
export function spawnUntil<T>(args: string[], match: (line: string) => T | undefined, env?: Record<string, string>): Promise<{ child: ChildProcess; value: T }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } })
    let buffered = ''
    let found = false
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`not ready within 60 s: ${args.join(' ')}`)) }, 60_000)
    child.stdout!.on('data', (chunk: Buffer) => {
      if (found) return
      buffered += chunk
      let nl
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl)
        buffered = buffered.slice(nl + 1)
        const value = match(line)
        if (value === undefined) continue
        found = true
        clearTimeout(timer)
        // Keep draining stdout (the access log), or the child blocks on a full pipe.
        child.stdout!.resume()
        return resolve({ child, value })
      }
    })
    child.once('exit', (code) => { if (!found) { clearTimeout(timer); reject(new Error(`exited ${code} before ready: ${args.join(' ')}`)) } })
  })
}

/** Spawns `node <args>` and resolves once `GET <healthUrl>` answers 200. */
async function spawnUntilHealthy(args: string[], healthUrl: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
  // Drained, or the child blocks on a full pipe.
  child.stdout!.resume()
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited ${child.exitCode ?? child.signalCode} before ready: ${args.join(' ')}`)
    if (await fetch(healthUrl).then((res) => res.ok, () => false)) return child
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  child.kill('SIGKILL')
  throw new Error(`not ready within 60 s: ${args.join(' ')}`)
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

export function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGKILL')
  })
}

/** The fake model server (OpenAI-compatible chat completions) in its own process. */
export async function startModelProcess(): Promise<{ baseURL: string; pid: number; close(): Promise<void> }> {
  const args = [...(process.features.typescript ? [] : ['--import', 'tsx']), MODEL_MAIN]
  const { child, value } = await spawnUntil(args, (line) => (line.startsWith('http') ? line.trim() : undefined))
  return { baseURL: value, pid: child.pid!, close: () => stop(child) }
}

export interface OperatorGatewayOptions {
  /** The model server's OpenAI-compatible base URL (profile `default`). */
  modelBaseURL: string
  /** More model servers, as profiles `model-1`, `model-2`, … (the capacity row spreads its streams). */
  moreModelBaseURLs?: string[]
  /** Run the sources under tsx even when the compiled package is built. */
  source?: boolean
  /** Another compiled `bin.js` to run (a build of an earlier commit, for before/after pairs). */
  bin?: string
  /** Extra node flags for the gateway process (e.g. `--cpu-prof`). */
  nodeArgs?: string[]
  /**
   * `logging.level` of the file (the gateway's default, `info`, when not given). Above `info` the
   * "gateway listening" line is not written, so the gateway listens on a port chosen here and is
   * ready when `/healthz` answers.
   */
  logLevel?: string
  /** The operator's bearer token (a fresh random one when not given; a fleet's processes share one). */
  token?: string
  /** More top-level YAML for the file (a fleet's `parking` and `fleet` sections), and environment for the process. */
  extraYaml?: string
  env?: Record<string, string>
}

export async function startOperatorGateway(options: OperatorGatewayOptions): Promise<OperatorGateway> {
  const work = await mkdtemp(join(tmpdir(), 'gw-operator-'))
  const token = options.token ?? `gw_${randomBytes(32).toString('base64url')}`
  await writeFile(join(work, 'principals.json'), JSON.stringify({ version: 1, principals: { [hashToken(token)]: { id: 'bench', operator: true } } }))
  // The fake CLI reads its login from its config directory, as the real one does.
  const claudeDir = join(work, '.claude')
  await mkdir(claudeDir)
  await writeFile(join(claudeDir, 'fake-account.json'), JSON.stringify({ apiKeySource: 'ANTHROPIC_API_KEY' }))
  const quiet = options.logLevel !== undefined && !['info', 'debug', 'trace'].includes(options.logLevel)
  const port = quiet ? await freePort() : 0
  const config = `listen: { host: 127.0.0.1, port: ${port} }
auth: { principalsFile: principals.json }
profiles:
  - name: default
    engine: provider
    provider: { id: fake, baseURL: ${JSON.stringify(options.modelBaseURL)}, model: fake-small }
${(options.moreModelBaseURLs ?? []).map((url, i) => `  - name: model-${i + 1}
    engine: provider
    provider: { id: fake, baseURL: ${JSON.stringify(url)}, model: fake-small }
`).join('')}  - name: primary
    engine: cli_primary
    configDir: ${JSON.stringify(claudeDir)}
  - name: codex
    engine: cli_secondary
engines:
  cli_primary: { executable: ${JSON.stringify(FAKE_CLAUDE_CLI_PATH)}, interpreter: ${JSON.stringify(process.execPath)}, interpreterArgs: ${JSON.stringify(FAKE_CLAUDE_CLI_NODE_ARGS)} }
  cli_secondary: { codexPath: ${JSON.stringify(FAKE_CODEX_APP_SERVER_PATH)}, interpreter: ${JSON.stringify(process.execPath)}, interpreterArgs: ${JSON.stringify(FAKE_CODEX_APP_SERVER_NODE_ARGS)} }
allowedCwdRoots: [${JSON.stringify(work)}]
allowedConfigDirRoots: [${JSON.stringify(work)}]
${options.logLevel ? `logging: { level: ${options.logLevel} }\n` : ''}${options.extraYaml ?? ''}`
  await writeFile(join(work, 'gateway.yaml'), config)
  // The compiled package unless told otherwise, rebuilt first when a source is newer than it.
  const compiled = options.bin !== undefined || !options.source
  if (compiled && options.bin === undefined) await ensureCompiledPackage()
  const entry = compiled ? [options.bin ?? COMPILED_BIN] : ['--import', 'tsx', join(ROOT, 'gateway/bin.ts')]
  const args = [...(options.nodeArgs ?? []), ...entry, 'serve', '--config', join(work, 'gateway.yaml')]
  const { child, value: url } = quiet
    // The API under the default basePath, /v1 (the file sets none).
    ? { child: await spawnUntilHealthy(args, `http://127.0.0.1:${port}/healthz`), value: `http://127.0.0.1:${port}/v1` }
    : await spawnUntil(args, (line) => (line.includes('gateway listening') ? (JSON.parse(line) as { url: string }).url : undefined), options.env)
  const pid = child.pid!
  return {
    url,
    token,
    pid,
    compiled,
    cwd: work,
    cpuNs: () => processCpuNs(pid),
    rss: () => processRss(pid),
    async close() {
      // SIGINT lets `--cpu-prof` write its profile; SIGKILL after a grace.
      if (options.nodeArgs?.some((a) => a.startsWith('--cpu-prof'))) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
        child.kill('SIGINT')
        await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))])
      }
      await stop(child)
      await rm(work, { recursive: true, force: true })
    },
  }
}
