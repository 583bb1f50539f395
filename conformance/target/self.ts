/**
 * The self target: our gateway with the fake engines, started as a child process of the
 * `gateway` command, the kit's webhook receiver, short timers, and the manifest the command
 * writes. `close()` tears all of it down. The gateway is the package `agent-session-gateway`, an
 * optional peer of the kit: only this target needs it, so it is resolved here, at start, through
 * the package's `./cli` export (in the repository the root package.json maps that to the source),
 * and the kit's own process never loads it.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import module from 'node:module'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { WebhookReceiver } from '../harness/webhook-receiver.ts'
import type { TargetManifest } from '../types.ts'
import { bundleFakeClis } from './fake-cli-bundle.ts'
import { repoPaths } from './repo-paths.ts'

/** The gateway's working directory: in the repository its root, whose tsconfig.json tsx reads. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const GATEWAY_PACKAGE = 'agent-session-gateway'

/** The self target was asked for but the gateway package is not installed. */
export class MissingGatewayError extends Error {
  constructor() {
    super(`the self target (a run without --url or --target) needs our gateway: npm install ${GATEWAY_PACKAGE}`)
    this.name = 'MissingGatewayError'
  }
}

/** Node arguments that run the installed gateway's `gateway` command (typeScriptArgs for its TypeScript source). */
export function gatewayCommand(): string[] {
  let path
  try {
    path = fileURLToPath(import.meta.resolve(`${GATEWAY_PACKAGE}/cli`))
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') throw new MissingGatewayError()
    throw err
  }
  return path.endsWith('.ts') ? [...typeScriptArgs(ROOT), path] : [path]
}

/**
 * Node arguments that run the repository's TypeScript rooted at `root`: Node's own type stripping
 * with tsconfig's `paths` and remembered stripping (typescript-hook.ts) where this Node has both, else the tsx loader. A
 * gateway start costs ~30% less CPU that way, and the kit starts it three times a run.
 */
export function typeScriptArgs(root: string): string[] {
  const native = Boolean(process.features.typescript) && typeof module.registerHooks === 'function' && repoPaths(root) !== undefined
  return ['--import', fileURLToPath(native ? new URL('./typescript-hook.ts', import.meta.url) : import.meta.resolve('tsx'))]
}

const STARTUP_MS = 30_000

export interface SelfTargetOptions {
  parkDelayMs?: number
  /** Run the cli_primary profiles on this real Claude Code CLI (against a fake Messages API) instead of the fake CLI. */
  claudeExecutable?: string
  /** Extra environment for the gateway process (e.g. canary credentials a log scan looks for). */
  env?: Record<string, string>
  /**
   * A copy of the project whose `gateway/` to run instead of ours (the mutation runner points this
   * at a scratch copy holding one mutant; production code carries no fault hooks).
   */
  root?: string
  /** An OpenAI-compatible base URL the gateway's provider profiles use instead of its own fake model server. */
  modelUrl?: string
  /** Where the gateway posts notifications instead of straight to the receiver (the variation proxy relays them). */
  webhookUrl?: (receiverUrl: string) => string
}

export interface SelfTarget {
  manifest: TargetManifest
  receiver: WebhookReceiver
  /**
   * Stops the gateway gracefully and starts it again on the same port with the same principals
   * and file store, so restart cases can check what survives (session-status-values.7-8).
   */
  restart(): Promise<void>
  /** A fault the target injects between two cases in the middle of the run (the self-fleet target's process kill). */
  midRun?: () => Promise<void>
  /** Everything the gateway process wrote to stdout and stderr so far. */
  output(): string
  close(): Promise<void>
}

export async function startSelfTarget(options: SelfTargetOptions = {}): Promise<SelfTarget> {
  // A mutation run points `root` at a scratch copy of the project; it runs that copy's sources.
  const command = options.root ? [...typeScriptArgs(options.root), join(options.root, 'gateway/bin.ts')] : gatewayCommand()
  const receiver = new WebhookReceiver()
  const [dir, receiverUrl, fakeClis] = await Promise.all([mkdtemp(join(tmpdir(), 'gateway-self-target-')), receiver.start(), bundleFakeClis(options.root ?? ROOT)])
  const manifestPath = join(dir, 'manifest.json')
  // The gateway runs its fake CLIs from the bundle (and the CLIs' compiled code is cached on disk,
  // as the gateway's own is): each of the run's ~70 CLI starts then costs a third of the CPU.
  const env = { ...process.env, ...options.env, ...(fakeClis ? { FAKE_CLAUDE_CLI_SCRIPT: fakeClis.claude, FAKE_CODEX_APP_SERVER_SCRIPT: fakeClis.codex, NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(tmpdir(), 'node-compile-cache') } : {}) }
  const webhookUrl = options.webhookUrl ? options.webhookUrl(receiverUrl) : receiverUrl
  let output = ''
  // Never leave a gateway behind if this process ends without calling close().
  let child: ChildProcess | undefined
  const killChild = () => child?.kill('SIGKILL')
  process.once('exit', killChild)

  const spawnGateway = (port: number) => {
    const args = [...command, '--port', String(port), '--manifest', manifestPath, '--webhook-url', webhookUrl,
      '--cwd-root', dir, '--park-delay-ms', String(options.parkDelayMs ?? 200), '--store-dir', join(dir, 'store'), '--tokens-file', join(dir, 'tokens.json')]
    if (options.claudeExecutable) args.push('--claude-executable', options.claudeExecutable)
    if (options.modelUrl) args.push('--model-url', options.modelUrl)
    const started = spawn(process.execPath, args, { cwd: options.root ?? ROOT, stdio: ['ignore', 'pipe', 'pipe'], env })
    started.stdout!.on('data', (c: Buffer) => { output += c })
    started.stderr!.on('data', (c: Buffer) => { output += c })
    const exited = new Promise<number | null>((resolve) => started.once('exit', (code) => resolve(code)))
    child = started
    return { started, exited }
  }
  let current = spawnGateway(0)

  const stopGateway = async () => {
    const { started, exited } = current
    if (started.exitCode === null && started.signalCode === null) {
      started.kill('SIGTERM')
      const timer = setTimeout(() => started.kill('SIGKILL'), 5000)
      await exited
      clearTimeout(timer)
    }
  }
  const close = async () => {
    process.off('exit', killChild)
    await stopGateway()
    await receiver.close()
    await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 })
  }
  try {
    const written = await waitForManifest(manifestPath, current.exited, () => output)
    // A scratch gateway of its own: the kit may spend its daily token budget (nobody else shares it).
    const manifest = { ...written, features: [...written.features, 'spendDailyBudget' as const] }
    const restart = async () => {
      await stopGateway()
      await rm(manifestPath, { force: true })
      current = spawnGateway(Number(new URL(manifest.baseUrl).port))
      await waitForManifest(manifestPath, current.exited, () => output)
    }
    return { manifest, receiver, restart, output: () => output, close }
  } catch (err) {
    await close()
    throw err
  }
}

async function waitForManifest(path: string, exited: Promise<number | null>, output: () => string): Promise<TargetManifest> {
  // Loaded here, after the gateway was spawned: the manifest schema (zod) loads while it starts.
  const { checkManifest } = await import('../manifest.ts')
  let exitCode: number | null | undefined
  void exited.then((code) => { exitCode = code })
  const deadline = Date.now() + STARTUP_MS
  while (Date.now() < deadline) {
    if (exitCode !== undefined) throw new Error(`the gateway exited (${exitCode}) before writing its manifest:\n${output()}`)
    try {
      return checkManifest(JSON.parse(await readFile(path, 'utf8')), path)
    } catch {
      // Polled often: a restart case waits on this alone (a read of a missing file costs next to nothing).
      await new Promise((r) => setTimeout(r, 10))
    }
  }
  throw new Error(`the gateway wrote no manifest within ${STARTUP_MS} ms:\n${output()}`)
}
