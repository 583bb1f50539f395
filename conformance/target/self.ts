/**
 * The self target: our gateway with the fake engines, started as a child process of the
 * `gateway` command (so the kit imports nothing from gateway/), the kit's webhook receiver, short
 * timers, and the manifest the command writes. `close()` tears all of it down.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { WebhookReceiver } from '../harness/webhook-receiver.ts'
import { checkManifest } from '../manifest.ts'
import type { TargetManifest } from '../types.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const STARTUP_MS = 30_000

export interface SelfTargetOptions {
  parkDelayMs?: number
  /**
   * A copy of the project whose `gateway/` to run instead of ours (the mutation runner points this
   * at a scratch copy holding one mutant; production code carries no fault hooks).
   */
  root?: string
}

export interface SelfTarget {
  manifest: TargetManifest
  receiver: WebhookReceiver
  /**
   * Stops the gateway gracefully and starts it again on the same port with the same principals
   * and file store, so restart cases can check what survives (session-status-values.7-8).
   */
  restart(): Promise<void>
  close(): Promise<void>
}

export async function startSelfTarget(options: SelfTargetOptions = {}): Promise<SelfTarget> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-self-target-'))
  const manifestPath = join(dir, 'manifest.json')
  const receiver = new WebhookReceiver()
  const webhookUrl = await receiver.start()
  let output = ''
  // Never leave a gateway behind if this process ends without calling close().
  let child: ChildProcess | undefined
  const killChild = () => child?.kill('SIGKILL')
  process.once('exit', killChild)

  const spawnGateway = (port: number) => {
    const args = ['--import', 'tsx', join(options.root ?? ROOT, 'gateway/cli.ts'), '--port', String(port), '--manifest', manifestPath, '--webhook-url', webhookUrl,
      '--cwd-root', dir, '--park-delay-ms', String(options.parkDelayMs ?? 200), '--store-dir', join(dir, 'store'), '--tokens-file', join(dir, 'tokens.json')]
    const started = spawn(process.execPath, args, { cwd: options.root ?? ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
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
    return { manifest, receiver, restart, close }
  } catch (err) {
    await close()
    throw err
  }
}

async function waitForManifest(path: string, exited: Promise<number | null>, output: () => string): Promise<TargetManifest> {
  let exitCode: number | null | undefined
  void exited.then((code) => { exitCode = code })
  const deadline = Date.now() + STARTUP_MS
  while (Date.now() < deadline) {
    if (exitCode !== undefined) throw new Error(`the gateway exited (${exitCode}) before writing its manifest:\n${output()}`)
    try {
      return checkManifest(JSON.parse(await readFile(path, 'utf8')), path)
    } catch {
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  throw new Error(`the gateway wrote no manifest within ${STARTUP_MS} ms:\n${output()}`)
}
