/**
 * The gateway wired to the fake engines, as the `gateway` command and the conformance self target
 * run it: fake model server, provider profiles, a declared cli_primary profile, bearer principals,
 * CORS, a fallback, and short timers. Returns the target manifest describing all of it.
 */
import { randomBytes } from 'node:crypto'
import { mkdir, realpath, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createAiSdkRunner } from './engines/provider/index.ts'
import { createCliPrimaryAdapter, loadClaudeAgentSdk } from './engines/cli-primary/index.ts'
import { createCliSecondaryAdapter } from './engines/cli-secondary/index.ts'
import { loadKitFakes, type KitFakes } from './dev-fakes.ts'
import { createGatewayServer } from './server/create-server.ts'
import { bearerToken } from './server/bearer.ts'
import { createFileSessionStore } from './sessions/stores/file-store.ts'
import { createMemoryProfileStore } from './host/profile-store.ts'
import type { SearchHit } from './engines/provider/tools.ts'
import type { Principal } from './server/principal.ts'
import type { ProfileConfig } from './protocol/index.ts'

export interface DevGatewayOptions {
  port?: number
  host?: string
  cwdRoot: string
  webhookUrl?: string
  parkDelayMs?: number
  /** A file session store here makes parks and live sessions survive a restart. */
  storeDir?: string
  /** Bearer tokens to reuse (a restarted gateway keeps its principals); random when absent. */
  tokens?: TargetManifest['tokens']
  /**
   * The real Claude Code CLI instead of the fake one, against the fake Messages API
   * (fake-engines/model-apis/anthropic-messages) on loopback, with its own HOME and TMPDIR.
   */
  claudeExecutable?: string
  /**
   * An OpenAI-compatible base URL for the provider profiles instead of the bundled fake model
   * server: a local model, or a layer in front of the fake one (the conformance kit's variation
   * proxy reshapes the tool definitions there, as another gateway would define them).
   */
  modelUrl?: string
}

const ALLOWED_ORIGIN = 'http://allowed.example'
const MAX_BODY_BYTES = 64 * 1024
/** Small attachment caps, so the kit can show both 413s with little traffic. */
const ATTACHMENTS = { maxFileBytes: 32 * 1024, maxSessionBytes: 80 * 1024 }
const HOST_FILES = { write: true, maxFileBytes: 64 * 1024 }
/** Small peer limits, so the kit reaches each with a handful of messages. */
const PEERS = { maxMessageChars: 4000, perMinute: 3, maxHops: 2 }
const PROVIDER_MODELS = ['fake-small', 'fake-large']
/** Short queue timers so the conformance suite waits milliseconds, not seconds. */
/** Deferred tools the fake model's scenarios call; one with a deadline short enough to watch lapse. */
const DEFERRED_TOOLS = {
  deferred_task: { description: 'A task an outside system completes', expiresInMs: 10 * 60_000 },
  deferred_short: { description: 'A task whose deadline lapses quickly', expiresInMs: 300 },
}
const BRIDGED_TOOLS = { client_eval: { description: 'Evaluate code in the attached client', expiresInMs: 30_000 } }
const PARK_DELAY_MS = 100
const STAMP = { key: 'builtBy', value: 'dev-gateway' }
const EXPIRED_GRACE_MS = 500
/** A header the notification webhook sends with every delivery (server-configuration.23), so the kit can see configured headers arrive. */
const NOTIFICATION_HEADERS = { 'x-notification-source': 'gateway-dev' }
// webhookRetryDelayMs is long enough to stand above local delivery latency, so the kit can see it
// double: at 150 ms a constant delay once passed for exponential on a machine at load 10.
const QUEUE = { maxConcurrency: 2, maxParkedDurationMs: 2000, retentionMaxAgeMs: 3000, killGraceMs: 50, webhookRetryDelayMs: 300, webhookAttempts: 3, dailyTokenLimit: 40_000 }

export const DEV_PROFILES: ProfileConfig[] = [
  { name: 'default', engine: 'provider', description: 'Provider engine on the fake model server', provider: { id: 'fake', model: 'fake-small', models: PROVIDER_MODELS, apiKeyEnv: 'FAKE_MODEL_API_KEY' }, session: { mcpServers: [] } },
  { name: 'alt', engine: 'provider', description: 'A second provider profile with narrower grants', provider: { id: 'fake', model: 'fake-large', models: ['fake-large'] }, defaults: { permissionMode: 'dontAsk' }, session: { capabilities: ['web_fetch'], mcpServers: [] } },
  // Every named grant, each with a backend the host hook below wires (fetch and search): the kit's providerAllGrants role.
  { name: 'grants', engine: 'provider', description: 'A provider profile granted web_fetch, web_search, download and deliver_file', provider: { id: 'fake', model: 'fake-small' }, session: { capabilities: ['web_fetch', 'web_search', 'download', 'deliver_file'], mcpServers: [] } },
  { name: 'mcp', engine: 'provider', description: 'A provider profile granted the docs MCP server', provider: { id: 'fake', model: 'fake-small' }, session: { mcpServers: ['docs'] } },
  { name: 'mcp-broken', engine: 'provider', description: 'A provider profile naming an MCP server that never connects', provider: { id: 'fake', model: 'fake-small' }, session: { mcpServers: ['offline'] } },
  { name: 'primary', engine: 'cli_primary', description: 'Primary CLI engine on the fake Claude Code CLI (through the real Agent SDK)' },
  { name: 'offline', engine: 'cli_primary', description: 'A primary-engine profile whose config directory holds no login' },
  { name: 'subscription', engine: 'cli_primary', description: 'A primary-engine profile signed in with a subscription (refused: requireApiKey)' },
  { name: 'codex', engine: 'cli_secondary', description: 'Secondary CLI engine on the fake codex app-server' },
]

/**
 * Each cli_primary profile gets its own config directory, with the login the fake CLI reads from
 * it (`fake-account.json`), as the real CLI reads its credentials from CLAUDE_CONFIG_DIR.
 */
const LOGINS: Record<string, object | undefined> = {
  primary: { apiKeySource: 'ANTHROPIC_API_KEY' },
  // Logged out, and its account names no key source at all (not even 'none'): a probe must still read it as logged out.
  offline: { apiKeySource: null },
  subscription: { apiKeySource: 'oauth', subscriptionType: 'pro' },
}

/** What an operator sees in the profile's config snapshot; the env value must never be shown. */
async function describeConfig(dir: string): Promise<void> {
  await writeFile(join(dir, 'settings.json'), JSON.stringify({ model: 'sonnet', permissions: { defaultMode: 'default' }, env: { FAKE_SERVICE_TOKEN: 'never-shown-to-clients' } }))
  await writeFile(join(dir, 'CLAUDE.md'), '# House rules\n')
  for (const sub of ['skills/review-helper', 'agents', 'commands']) await mkdir(join(dir, sub), { recursive: true })
  await writeFile(join(dir, 'agents', 'reviewer.md'), '---\nname: reviewer\n---\n')
  await writeFile(join(dir, 'commands', 'deploy.md'), 'Deploy the thing.\n')
}

async function configDirs(root: string): Promise<Map<string, string>> {
  const dirs = new Map<string, string>()
  for (const [name, login] of Object.entries(LOGINS)) {
    const dir = join(root, `.claude-${name}`)
    await mkdir(dir, { recursive: true })
    if (login) await writeFile(join(dir, 'fake-account.json'), JSON.stringify(login))
    if (name === 'primary') await describeConfig(dir)
    dirs.set(name, dir)
  }
  return dirs
}

export interface TargetManifest {
  baseUrl: string
  tokens: Record<'operator' | 'tenantA' | 'tenantB' | 'restricted' | 'manager', string>
  profiles: Record<string, string>
  cwdRoot: string
  timers: Record<string, number | null>
  limits: { maxBodyBytes: number; attachmentMaxFileBytes?: number; attachmentMaxSessionBytes?: number; peerMaxMessageChars?: number; peerPerMinute?: number; peerMaxHops?: number; hostFilesMaxFileBytes?: number }
  cors: { allowedOrigin: string }
  fallback: { path: string }
  policy: { disableBypassPermissions: boolean }
  queue: { maxConcurrency: number; dailyTokenLimit: number }
  models: Record<string, string[]>
  webhookUrl?: string
  notificationHeaders?: Record<string, string>
  project?: { cwd: string; name: string }
  buildRunnerConfigStamp?: { key: string; value: string }
  autodetect?: { baseUrl: string; profiles: Record<string, string> }
  features: string[]
}

export async function startDevGateway(options: DevGatewayOptions) {
  const fakes = await loadKitFakes()
  // DEV_PROFILES declares cli_primary profiles: a missing SDK is a startup error, not a failed session.
  await loadClaudeAgentSdk()
  const model = options.modelUrl ? { baseURL: options.modelUrl, close: async () => {} } : await fakes.startFakeModelServer({ host: '127.0.0.1', port: 0 })
  const mcp = await fakes.startFakeMcpServer({ host: '127.0.0.1', port: 0 })
  const claude = options.claudeExecutable ? await realClaudeCli(fakes, options.claudeExecutable, options.cwdRoot) : undefined
  const tokens = options.tokens ?? {
    operator: token(), tenantA: token(), tenantB: token(), restricted: token(), manager: token(),
  }
  const principals = new Map<string, Principal>([
    [tokens.operator, { name: 'operator' }],
    [tokens.tenantA, { name: 'tenantA', scope: { tenant: 'a' } }],
    [tokens.tenantB, { name: 'tenantB', scope: { tenant: 'b' } }],
    [tokens.restricted, { name: 'restricted', allowedProfiles: ['default'] }],
    [tokens.manager, { name: 'manager', canManageProfiles: true }],
  ])
  const cwdRoot = await realpath(options.cwdRoot)
  // The primary profile's config directory: where the CLI keeps transcripts (CLAUDE_CONFIG_DIR).
  const dirs = await configDirs(cwdRoot)
  const project = await demoProject(cwdRoot)
  // The codex profile's home: where the (fake) app-server keeps its rollouts; auth.json is its login.
  const codexHome = join(cwdRoot, '.codex-home')
  await mkdir(codexHome, { recursive: true })
  await writeFile(join(codexHome, 'auth.json'), '{}')
  const decoyDir = join(cwdRoot, '.claude-decoy')
  await mkdir(decoyDir, { recursive: true })
  const gateway = createGatewayServer({
    authenticate: (req) => principals.get(bearer(req) ?? ''),
    profiles: DEV_PROFILES.map((p) => (dirs.has(p.name) ? { ...p, configDir: dirs.get(p.name) } : p.engine === 'cli_secondary' ? { ...p, codexHome } : p)),
    engines: { cli_primary: createCliPrimaryAdapter(claude?.cli ?? fakeClaudeCli(fakes)), cli_secondary: createCliSecondaryAdapter(fakeCodex(fakes)) },
    // A host hook as embedders write them: it stamps meta and (wrongly) points every CLI at one
    // config directory; the profile's own directory must still win (authentication.9).
    buildRunnerConfig: (config) => ({ ...config, meta: { ...(config.meta ?? {}), [STAMP.key]: STAMP.value }, env: { ...((config.env as object) ?? {}), CLAUDE_CONFIG_DIR: decoyDir } }),
    createEngineRunner: (ctx) => createAiSdkRunner(ctx, {
      baseURL: model.baseURL, maxRetries: 0, deferredTools: DEFERRED_TOOLS, bridgedTools: BRIDGED_TOOLS,
      backends: { fetch: true, search: fakeSearch }, evalLimits: { timeoutMs: 1000 },
      // `offline` points at a port nothing listens on: a profile naming it must refuse to build.
      mcpServers: { docs: { url: mcp.url, revokeToken: (token) => mcp.revoke(token) }, offline: { url: 'http://127.0.0.1:9/mcp' } },
    }),
    parking: {
      parkDelayMs: options.parkDelayMs ?? PARK_DELAY_MS, expiredGraceMs: EXPIRED_GRACE_MS,
      ...(options.storeDir ? { store: createFileSessionStore({ dir: options.storeDir }), persistLive: true } : {}),
    },
    allowedCwdRoots: [cwdRoot],
    cors: { origins: [ALLOWED_ORIGIN] },
    maxBodyBytes: MAX_BODY_BYTES,
    attachments: ATTACHMENTS,
    peers: PEERS,
    hostFiles: HOST_FILES,
    profileStore: createMemoryProfileStore(),
    allowedConfigDirRoots: [cwdRoot],
    disableBypassPermissions: true,
    fallback: devFallback,
    queue: { maxConcurrency: QUEUE.maxConcurrency, dailyTokenLimit: QUEUE.dailyTokenLimit, killGraceMs: QUEUE.killGraceMs, webhookRetryDelayMs: QUEUE.webhookRetryDelayMs, maxJobDurationMs: 60_000, maxParkedDurationMs: QUEUE.maxParkedDurationMs,
      retention: { maxAgeMs: QUEUE.retentionMaxAgeMs, sweepIntervalMs: 100 } },
    // The cli_primary adapter's own probe: it starts the (fake) CLI and reads the login it reports.
    checkCredentials: true,
    requireAvailableProfile: true,
    requireApiKey: true,
    notifications: options.webhookUrl ? { webhook: { url: options.webhookUrl, headers: NOTIFICATION_HEADERS }, retryDelayMs: QUEUE.webhookRetryDelayMs } : undefined,
  })
  const detecting = detectingGateway(cwdRoot, (req) => principals.get(bearer(req) ?? ''))
  let listening
  let detectUrl
  try {
    listening = await gateway.listen(options.port ?? 0, options.host ?? '127.0.0.1')
    detectUrl = (await (await detecting).listen(0, options.host ?? '127.0.0.1')).url
  } catch (err) {
    await gateway.close()
    await model.close()
    await mcp.close()
    throw err
  }
  const manifest: TargetManifest = {
    baseUrl: listening.url,
    tokens,
    profiles: { provider: 'default', providerAlt: 'alt', providerAllGrants: 'grants', cli_primary: 'primary', unavailable: 'offline', cliPrimarySubscription: 'subscription', providerMcp: 'mcp', providerMcpBroken: 'mcp-broken', cli_secondary: 'codex' },
    cwdRoot,
    timers: {
      parkDelayMs: options.parkDelayMs ?? PARK_DELAY_MS, expiredGraceMs: EXPIRED_GRACE_MS, deferredShortMs: DEFERRED_TOOLS.deferred_short.expiresInMs, approvalTimeoutMs: null, killGraceMs: QUEUE.killGraceMs, maxParkedDurationMs: QUEUE.maxParkedDurationMs, retentionMaxAgeMs: QUEUE.retentionMaxAgeMs,
      webhookRetryDelayMs: QUEUE.webhookRetryDelayMs, webhookAttempts: QUEUE.webhookAttempts, notificationRetryDelayMs: QUEUE.webhookRetryDelayMs,
    },
    queue: { maxConcurrency: QUEUE.maxConcurrency, dailyTokenLimit: QUEUE.dailyTokenLimit },
    limits: { maxBodyBytes: MAX_BODY_BYTES, attachmentMaxFileBytes: ATTACHMENTS.maxFileBytes, attachmentMaxSessionBytes: ATTACHMENTS.maxSessionBytes,
      peerMaxMessageChars: PEERS.maxMessageChars, peerPerMinute: PEERS.perMinute, peerMaxHops: PEERS.maxHops, hostFilesMaxFileBytes: HOST_FILES.maxFileBytes },
    cors: { allowedOrigin: ALLOWED_ORIGIN },
    fallback: { path: '/healthz' },
    policy: { disableBypassPermissions: true },
    models: { provider: PROVIDER_MODELS },
    features: [
      'provider', 'cors', 'fallback', 'bypassDisabled', 'queue', 'parking', 'bridge', 'scratchFiles', 'requireAvailableProfile', 'retention', 'cli_primary', 'requireApiKey', 'project', 'buildRunnerConfigStamp', 'autodetect', 'mcp', 'attachments', 'hostFiles', 'hostFilesWrite', 'peers', 'profileStore', 'cli_secondary',
      ...(options.storeDir ? ['persistence'] : []), ...(options.webhookUrl ? ['notifications'] : []),
    ],
  }
  if (options.webhookUrl) {
    manifest.webhookUrl = options.webhookUrl
    manifest.notificationHeaders = NOTIFICATION_HEADERS
  }
  manifest.project = project
  manifest.buildRunnerConfigStamp = STAMP
  manifest.autodetect = { baseUrl: detectUrl, profiles: { default: 'cli_primary', codex: 'cli_secondary' } }
  return {
    manifest,
    gateway,
    async close() {
      await (await detecting).close()
      await gateway.close()
      await model.close()
      await mcp.close()
      await claude?.api.close()
    },
  }
}

/** The real CLI, offline: any key, no telemetry, a HOME and TMPDIR of its own under the cwd root. */
async function realClaudeCli(fakes: KitFakes, executable: string, root: string) {
  const api = await fakes.startFakeAnthropicServer({ host: '127.0.0.1', port: 0 })
  const home = join(root, '.real-claude-home')
  const tmp = join(root, '.real-claude-tmp')
  await mkdir(home, { recursive: true })
  await mkdir(tmp, { recursive: true })
  return {
    api,
    cli: {
      pathToClaudeCodeExecutable: executable,
      questionBehavior: 'ask' as const,
      env: { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-ant-dev-gateway-fake', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', HOME: home, TMPDIR: tmp },
    },
  }
}

/**
 * The fake Claude Code CLI as the SDK should run it: a script for Node (this one), with the tsx
 * loader when it is the TypeScript source. Production points `pathToClaudeCodeExecutable` at the
 * real `claude` binary.
 */
function fakeClaudeCli(fakes: KitFakes) {
  return {
    pathToClaudeCodeExecutable: fakes.FAKE_CLAUDE_CLI_PATH,
    executable: process.execPath,
    executableArgs: fakes.FAKE_CLAUDE_CLI_NODE_ARGS,
    questionBehavior: 'ask' as const,
  }
}

/** The fake codex app-server, a TypeScript file run by this Node with the tsx loader; production runs the real `codex`. */
function fakeCodex(fakes: KitFakes) {
  return {
    codexPath: fakes.FAKE_CODEX_APP_SERVER_PATH,
    executable: process.execPath,
    executableArgs: fakes.FAKE_CODEX_APP_SERVER_NODE_ARGS,
  }
}

/**
 * A second gateway with no declared profiles, so auto-detection can be observed
 * (server-configuration.26): both engines' home directories exist, and detection reads them from
 * the environment at construction, which is set for exactly that synchronous call.
 */
async function detectingGateway(root: string, authenticate: (req: IncomingMessage) => Principal | undefined) {
  const homes = { CLAUDE_CONFIG_DIR: join(root, '.detect-claude'), CODEX_HOME: join(root, '.detect-codex') }
  for (const dir of Object.values(homes)) await mkdir(dir, { recursive: true })
  const saved = { CLAUDE_CONFIG_DIR: process.env.CLAUDE_CONFIG_DIR, CODEX_HOME: process.env.CODEX_HOME }
  Object.assign(process.env, homes)
  try {
    return createGatewayServer({ authenticate, onError: () => {} })
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key]
      else process.env[key] = value
    }
  }
}

/** A project with a `.gateway.json` and an icon, and a working directory two levels below it. */
async function demoProject(root: string): Promise<{ cwd: string; name: string }> {
  const dir = join(root, 'demo-project')
  const cwd = join(dir, 'src', 'app')
  await mkdir(cwd, { recursive: true })
  await writeFile(join(dir, '.gateway.json'), JSON.stringify({ name: 'Demo project', icon: 'icon.svg' }))
  await writeFile(join(dir, 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><rect width="16" height="16" fill="teal"/></svg>')
  return { cwd, name: 'Demo project' }
}

/** The search backend the host wires: canned, so a case can recognise its results. */
async function fakeSearch(query: string): Promise<SearchHit[]> {
  return [{ title: `Result for ${query}`, url: 'http://127.0.0.1/search-result', snippet: 'canned search result' }]
}

function token(): string {
  return randomBytes(18).toString('base64url')
}

function bearer(req: IncomingMessage): string | undefined {
  return bearerToken(req.headers.authorization)
}

/** The host's own routes on the gateway's port: no auth, nothing proxied (embedding-rules.1-2). */
function devFallback(req: IncomingMessage, res: ServerResponse): void {
  const path = new URL(req.url ?? '/', 'http://host.invalid').pathname
  if (path === '/healthz') {
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ ok: true, fallback: true }))
    return
  }
  res.statusCode = 404
  res.setHeader('content-type', 'text/plain')
  res.end('not found (host fallback)')
}
