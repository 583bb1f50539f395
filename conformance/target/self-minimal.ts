/**
 * The `self-minimal` target (`--target self-minimal`): our gateway embedded as a library the way
 * an app developer embeds it, with every optional feature left out (minimal-gateway.ts, run as a
 * child process): provider profiles on the kit's fake model server and an `authenticate` hook with
 * the kit's principals, and nothing else. The other two self targets offer every feature, so the
 * cases about a gateway *without* one (`unconfigured-queue-404`, `unconfigured-fs-404`,
 * `profiles-management-without-store-404`) are unsupported there; the manifest here lists those
 * features under `absent`, so they run, and the cases that need them are unsupported.
 *
 * Repository only: the child program imports the gateway by its package name, which the kit's
 * package does not carry.
 */
import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { z } from 'zod'
import { startFakeModelServer } from '../../fake-engines/provider-model/server.ts'
import { WebhookReceiver } from '../harness/webhook-receiver.ts'
import type { manifestSchema } from './manifest-schema.ts'
import { typeScriptArgs, type SelfTarget } from './self.ts'
import { TargetProcesses, type ListeningProcess } from './target-processes.ts'
import { MAX_BODY_BYTES, principalsByHash, PROVIDER_MODELS, randomTokens } from './self-serve-config.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const PROGRAM = 'conformance/target/minimal-gateway.ts'
// providerMcpBroken: a provider profile naming an MCP server the embedder wired none of (embedding-rules.10).
const PROFILES = { provider: 'default', providerAlt: 'alt', providerMcpBroken: 'mcp-unwired' }
/** notifications.retryDelayMs as the spec fixes its default (limits.15); minimal-gateway.ts leaves it unset. */
const SPEC_NOTIFICATION_RETRY_DELAY_MS = 500

export interface MinimalTargetOptions {
  /** Extra environment for the gateway process (the mutation runner's reach probes). */
  env?: Record<string, string>
  /** A copy of the project whose `gateway/` (and child program) to run instead of ours (the mutation runner's scratch copy). */
  root?: string
}

/** What the child program reads (its inputs file): the manifest declares the same names and models. */
export interface MinimalInputs {
  modelUrl: string
  /** The notification webhook (the kit's receiver). */
  webhookUrl: string
  /** By the SHA-256 of each bearer token, never the token. */
  principals: Record<string, object>
  profiles: { provider: string; providerAlt: string; providerMcpBroken: string }
  /** The provider profile's model catalog; the alt profile offers only the last one. */
  models: string[]
}

export async function startMinimalTarget(options: MinimalTargetOptions = {}): Promise<SelfTarget> {
  const root = options.root ?? ROOT
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'gateway-self-minimal-')))
  // A working directory for sessions: with no allowedCwdRoots the gateway bounds none, but the cases need one that exists.
  const cwdRoot = join(dir, 'work')
  await mkdir(cwdRoot)
  const processes = new TargetProcesses(dir)
  const close = () => processes.close()
  // The program imports `agent-session-gateway`: the package's own name, which resolves inside `root` (its package.json exports).
  const spawnChild = (inputsFile: string, port: number): ListeningProcess => processes.spawn('the minimal gateway',
    [...typeScriptArgs(root), join(root, PROGRAM), inputsFile, String(port)], { cwd: root, env: { ...process.env, ...options.env } })
  const stop = (c: ListeningProcess) => processes.stop(c, 5000)

  try {
    // The notification webhook's receiver: notifications are configured with only a URL, so their
    // delivery runs on the spec's defaults (attempts 3, retryDelayMs 500; limits.15), which the
    // other two targets override with short timers.
    const receiver = new WebhookReceiver()
    await receiver.start()
    processes.closers.push(() => receiver.close())
    const model = await startFakeModelServer({ host: '127.0.0.1', port: 0 })
    processes.closers.push(() => model.close())
    const tokens = randomTokens()
    const inputs: MinimalInputs = { modelUrl: model.baseURL, webhookUrl: receiver.url, principals: principalsByHash(tokens), profiles: PROFILES, models: PROVIDER_MODELS }
    const inputsFile = join(dir, 'inputs.json')
    await writeFile(inputsFile, JSON.stringify(inputs), { mode: 0o600 })
    let current = spawnChild(inputsFile, 0)
    processes.closers.push(() => stop(current))
    const baseUrl = await current.url
    const { checkManifest } = await import('../manifest.ts')
    const manifest = checkManifest(minimalManifest(baseUrl, tokens, cwdRoot, receiver.url), 'the self-minimal target')
    // Nothing survives a restart here (no store); restart cases need `persistence`, which this target does not offer.
    const restart = async () => {
      await stop(current)
      current = spawnChild(inputsFile, Number(new URL(baseUrl).port))
      await current.url
    }
    return { manifest, receiver, restart, output: () => processes.output, close }
  } catch (err) {
    await close()
    throw err
  }
}

/** What minimal-gateway.ts configures, as the kit reads it. */
function minimalManifest(baseUrl: string, tokens: ReturnType<typeof randomTokens>, cwdRoot: string, webhookUrl: string): z.input<typeof manifestSchema> {
  return {
    baseUrl,
    tokens,
    profiles: PROFILES,
    cwdRoot,
    // The gateway's defaults, which the spec fixes (limits.1).
    limits: { maxBodyBytes: MAX_BODY_BYTES },
    models: { provider: PROVIDER_MODELS },
    features: ['provider', 'notifications'],
    webhookUrl,
    // The notifications' spec default (limits.15): nothing configures it here.
    timers: { notificationRetryDelayMs: SPEC_NOTIFICATION_RETRY_DELAY_MS },
    // What minimal-gateway.ts does not configure: only these run the cases about a gateway without them.
    absent: ['queue', 'profileStore', 'hostFiles', 'hostFilesWrite', 'cors', 'fallback', 'cli_primary', 'cli_secondary', 'mcp'],
  }
}
