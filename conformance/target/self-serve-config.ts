/**
 * What the `self-serve` target hands `gateway serve`: a configuration file, a principals file, a
 * hooks module and the files the profiles point at, all describing the gateway `gateway dev` wires
 * in code (gateway/dev-gateway.ts), so the kit's whole suite runs against the operator's path:
 * config loading and validation, tokens-file authentication, engine wiring from `engines`,
 * PostgreSQL queue and parking, the health routes. The kit may not import the gateway (only
 * gateway/protocol), so the values the cases depend on (logins, the demo project, limits, timers)
 * are written out again here; conformance/test/self-serve-target.test.ts runs every case on them.
 */
import { createHash, randomBytes } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

export const ALLOWED_ORIGIN = 'http://allowed.example'
/** The file leaves maxBodyBytes out: the gateway's default must be the spec's 1 MiB (limits.1), which the manifest declares. */
export const MAX_BODY_BYTES = 1024 * 1024
/**
 * The file leaves attachments.maxFileBytes out: the gateway's default must be the spec's 10 MiB
 * (limits.2), which the manifest declares. The session cap stays small, so the kit can reach it.
 */
export const ATTACHMENTS = { maxFileBytes: 10 * 1024 * 1024, maxSessionBytes: 80 * 1024 }
export const HOST_FILES = { write: true, maxFileBytes: 64 * 1024 }
export const PEERS = { maxMessageChars: 4000, perMinute: 3, maxHops: 2 }
export const PROVIDER_MODELS = ['fake-small', 'fake-large']
export const DEFERRED_TOOLS = {
  deferred_task: { description: 'A task an outside system completes', expiresInMs: 10 * 60_000 },
  deferred_short: { description: 'A task whose deadline lapses quickly', expiresInMs: 300 },
}
const BRIDGED_TOOLS = { client_eval: { description: 'Evaluate code in the attached client', expiresInMs: 30_000 } }
export const PARK_DELAY_MS = 100
export const EXPIRED_GRACE_MS = 500
export const STAMP = { key: 'builtBy', value: 'self-serve-hooks' }
// webhookRetryDelayMs stands above local delivery latency, so the kit can see it double.
/** The file leaves queue.webhookRetryDelayMs out: the gateway's default must be the spec's 500 ms base (limits.13, queue-options.10), which the manifest declares. */
export const JOB_WEBHOOK_RETRY_DELAY_MS = 500
export const QUEUE = { maxConcurrency: 2, maxParkedDurationMs: 6000, retentionMaxAgeMs: 3000, killGraceMs: 50, webhookRetryDelayMs: 300, webhookAttempts: 3, dailyTokenLimit: 40_000 }
/** The host route the hooks module's fallback answers (serve's own health routes keep /healthz and /readyz). */
export const FALLBACK_PATH = '/host/healthz'
/** The environment variable naming the database, as an operator's file would (the URL never sits in the file). */
export const DATABASE_ENV = 'GATEWAY_SELF_SERVE_DATABASE_URL'
/**
 * A header the notification webhook sends (server-configuration.23), its value read from the
 * environment as an operator's file names a secret header (`headersFromEnv`), so a delivery
 * carrying it shows the file's environment mapping was applied.
 */
export const NOTIFICATION_HEADER = { name: 'x-notification-source', env: 'GATEWAY_SELF_SERVE_NOTIFICATION_SOURCE', value: 'gateway-serve' }

export type Tokens = Record<'operator' | 'tenantA' | 'tenantB' | 'restricted' | 'manager', string>

export function randomTokens(): Tokens {
  const token = () => `gw_${randomBytes(24).toString('base64url')}`
  return { operator: token(), tenantA: token(), tenantB: token(), restricted: token(), manager: token() }
}

/** The principals by the SHA-256 of each token, never the token. */
export function principalsByHash(tokens: Tokens): Record<string, object> {
  const hash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex')
  return {
    [hash(tokens.operator)]: { id: 'operator' },
    [hash(tokens.tenantA)]: { id: 'tenantA', scope: { tenant: 'a' } },
    [hash(tokens.tenantB)]: { id: 'tenantB', scope: { tenant: 'b' } },
    [hash(tokens.restricted)]: { id: 'restricted', allowedProfiles: ['default'] },
    [hash(tokens.manager)]: { id: 'manager', canManageProfiles: true },
  }
}

/** The principals file format `gateway token create` writes. */
export function principalsFile(tokens: Tokens): string {
  return `${JSON.stringify({ version: 1, principals: principalsByHash(tokens) }, null, 2)}\n`
}

/**
 * The detecting gateway's hooks module: it authenticates with a hooks module's `authenticate`
 * (server-configuration.1, embedding-rules.3), `serve`'s other source of principals, so a file
 * without an `auth` block is loaded and served too (the main gateway's file has a principals file).
 */
export function detectingHooksModule(tokens: Tokens): string {
  return `// Written by the conformance kit's self-serve target.
import { createHash } from 'node:crypto'
const principals = new Map(Object.entries(${JSON.stringify(principalsByHash(tokens))}))
export function authenticate(req) {
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1]
  return token ? principals.get(createHash('sha256').update(token, 'utf8').digest('hex')) ?? null : null
}
`
}

/**
 * The hooks module: what only code can give (server-configuration.10, embedding-rules.1-2, a
 * search backend). Its buildRunnerConfig also points every CLI at a decoy config directory, which
 * the profile's own directory must still win over (authentication.9).
 */
export function hooksModule(decoyDir: string): string {
  return `// Written by the conformance kit's self-serve target.
export function buildRunnerConfig(config) {
  return { ...config, meta: { ...(config.meta ?? {}), ${JSON.stringify(STAMP.key)}: ${JSON.stringify(STAMP.value)} }, env: { ...(config.env ?? {}), CLAUDE_CONFIG_DIR: ${JSON.stringify(decoyDir)} } }
}
export function fallback(req, res) {
  const path = new URL(req.url ?? '/', 'http://host.invalid').pathname
  if (path === ${JSON.stringify(FALLBACK_PATH)}) {
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ ok: true, fallback: true }))
    return
  }
  res.statusCode = 404
  res.setHeader('content-type', 'text/plain')
  res.end('not found (host fallback)')
}
export const toolBackends = {
  async search(query) {
    return [{ title: 'Result for ' + query, url: 'http://127.0.0.1/search-result', snippet: 'canned search result' }]
  },
}
`
}

export interface Fakes {
  modelUrl: string
  mcpUrl: string
  claudeCli: { path: string; nodeArgs: string[] }
  codex: { path: string; nodeArgs: string[] }
}

/** The files under the cwd root the profiles and cases use: CLI logins, a config snapshot, a project, codex's home. */
export async function writeFixtures(cwdRoot: string): Promise<{ decoyDir: string; project: { cwd: string; name: string }; detectHomes: Record<string, string> }> {
  const logins: Record<string, object | undefined> = { primary: { apiKeySource: 'ANTHROPIC_API_KEY' }, offline: undefined, subscription: { apiKeySource: 'oauth', subscriptionType: 'pro' } }
  const configDirs: Record<string, string> = {}
  for (const [name, login] of Object.entries(logins)) {
    const dir = join(cwdRoot, `.claude-${name}`)
    await mkdir(dir, { recursive: true })
    if (login) await writeFile(join(dir, 'fake-account.json'), JSON.stringify(login))
    configDirs[name] = dir
  }
  // What an operator sees in the primary profile's config snapshot; the env value must never be shown.
  const primary = configDirs.primary
  await writeFile(join(primary, 'settings.json'), JSON.stringify({ model: 'sonnet', permissions: { defaultMode: 'default' }, env: { FAKE_SERVICE_TOKEN: 'never-shown-to-clients' } }))
  await writeFile(join(primary, 'CLAUDE.md'), '# House rules\n')
  for (const sub of ['skills/review-helper', 'agents', 'commands']) await mkdir(join(primary, sub), { recursive: true })
  await writeFile(join(primary, 'agents', 'reviewer.md'), '---\nname: reviewer\n---\n')
  await writeFile(join(primary, 'commands', 'deploy.md'), 'Deploy the thing.\n')
  const codexHome = join(cwdRoot, '.codex-home')
  await mkdir(codexHome, { recursive: true })
  await writeFile(join(codexHome, 'auth.json'), '{}')
  const decoyDir = join(cwdRoot, '.claude-decoy')
  await mkdir(decoyDir, { recursive: true })
  const projectDir = join(cwdRoot, 'demo-project')
  const cwd = join(projectDir, 'src', 'app')
  await mkdir(cwd, { recursive: true })
  await writeFile(join(projectDir, '.gateway.json'), JSON.stringify({ name: 'Demo project', icon: 'icon.svg' }))
  await writeFile(join(projectDir, 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><rect width="16" height="16" fill="teal"/></svg>')
  const detectHomes = { CLAUDE_CONFIG_DIR: join(cwdRoot, '.detect-claude'), CODEX_HOME: join(cwdRoot, '.detect-codex') }
  for (const dir of Object.values(detectHomes)) await mkdir(dir, { recursive: true })
  return { decoyDir, project: { cwd, name: 'Demo project' }, detectHomes }
}

export interface ConfigInputs {
  fakes: Fakes
  webhookUrl: string
  parkDelayMs: number
}

/**
 * The configuration file's data. Paths are relative to the file, as an operator writes them (the
 * file sits in `etc/`, beside `root/`, the cwd root); the fake CLIs' scripts are absolute.
 */
export function gatewayConfig(inputs: ConfigInputs): Record<string, unknown> {
  const { fakes } = inputs
  // Most profiles take the engine's endpoint (as managed profiles do); `default` names its own.
  const provider = (model: string, extra: object = {}) => ({ id: 'fake', model, ...extra })
  return {
    listen: { host: '127.0.0.1', port: 0 },
    hooks: './hooks.mjs',
    auth: { principalsFile: './principals.json' },
    profiles: [
      { name: 'default', engine: 'provider', description: 'Provider engine on the fake model server', provider: provider('fake-small', { models: PROVIDER_MODELS, apiKeyEnv: 'FAKE_MODEL_API_KEY', baseURL: fakes.modelUrl }), session: { mcpServers: [] } },
      { name: 'alt', engine: 'provider', description: 'A second provider profile with narrower grants', provider: provider('fake-large', { models: ['fake-large'] }), defaults: { permissionMode: 'dontAsk' }, session: { capabilities: ['web_fetch'], mcpServers: [] } },
      { name: 'grants', engine: 'provider', description: 'A provider profile granted web_fetch, web_search, download and deliver_file', provider: provider('fake-small'), session: { capabilities: ['web_fetch', 'web_search', 'download', 'deliver_file'], mcpServers: [] } },
      // An id the file schema checks (openai-compatible needs its own baseURL).
      { name: 'mcp', engine: 'provider', description: 'A provider profile granted the docs MCP server', provider: { id: 'openai-compatible', model: 'fake-small', baseURL: fakes.modelUrl }, session: { mcpServers: ['docs'] } },
      { name: 'mcp-broken', engine: 'provider', description: 'A provider profile naming an MCP server that never connects', provider: provider('fake-small'), session: { mcpServers: ['offline'] } },
      { name: 'primary', engine: 'cli_primary', description: 'Primary CLI engine on the fake Claude Code CLI (through the real Agent SDK)', configDir: '../root/.claude-primary' },
      { name: 'offline', engine: 'cli_primary', description: 'A primary-engine profile whose config directory holds no login', configDir: '../root/.claude-offline' },
      { name: 'subscription', engine: 'cli_primary', description: 'A primary-engine profile signed in with a subscription (refused: requireApiKey)', configDir: '../root/.claude-subscription' },
      { name: 'codex', engine: 'cli_secondary', description: 'Secondary CLI engine on the fake codex app-server', codexHome: '../root/.codex-home' },
    ],
    engines: {
      cli_primary: { executable: fakes.claudeCli.path, interpreter: process.execPath, interpreterArgs: fakes.claudeCli.nodeArgs, questionBehavior: 'ask' },
      cli_secondary: { codexPath: fakes.codex.path, interpreter: process.execPath, interpreterArgs: fakes.codex.nodeArgs },
      provider: {
        baseURL: fakes.modelUrl, deferredTools: DEFERRED_TOOLS, bridgedTools: BRIDGED_TOOLS, backends: { fetch: true }, maxRetries: 0, evalLimits: { timeoutMs: 1000 },
        // `offline` points at a port nothing listens on: a profile naming it must refuse to build.
        mcpServers: { docs: { url: fakes.mcpUrl }, offline: { url: 'http://127.0.0.1:9/mcp' } },
      },
    },
    allowedCwdRoots: ['../root'],
    allowedConfigDirRoots: ['../root'],
    cors: { origins: [ALLOWED_ORIGIN] },
    attachments: { maxSessionBytes: ATTACHMENTS.maxSessionBytes },
    peers: PEERS,
    hostFiles: HOST_FILES,
    profileStore: { kind: 'file', file: './managed-profiles.json' },
    disableBypassPermissions: true,
    checkCredentials: true,
    requireAvailableProfile: true,
    requireApiKey: true,
    parking: { store: { kind: 'postgres', urlEnv: DATABASE_ENV }, persistLive: true, parkDelayMs: inputs.parkDelayMs, expiredGraceMs: EXPIRED_GRACE_MS },
    queue: {
      adapter: { kind: 'postgres', urlEnv: DATABASE_ENV }, maxConcurrency: QUEUE.maxConcurrency, dailyTokenLimit: QUEUE.dailyTokenLimit, killGraceMs: QUEUE.killGraceMs,
      webhookAttempts: QUEUE.webhookAttempts, maxJobDurationMs: 60_000, maxParkedDurationMs: QUEUE.maxParkedDurationMs,
      retention: { maxAgeMs: QUEUE.retentionMaxAgeMs, sweepIntervalMs: 100 },
    },
    notifications: { webhook: { url: inputs.webhookUrl, headersFromEnv: { [NOTIFICATION_HEADER.name]: NOTIFICATION_HEADER.env } }, retryDelayMs: QUEUE.webhookRetryDelayMs },
    // A restart drains quickly: the kit's turns are short, and a stuck one must not hold the run.
    shutdown: { graceMs: 2000, killGraceMs: 200 },
    // info: the "gateway listening" line carries the URL of a gateway started on port 0.
    logging: { level: 'info' },
  }
}

/**
 * The file as YAML: each top-level key on its own line with its value in flow style (JSON is YAML's
 * flow syntax), so only a YAML reader reads it (the detecting gateway's file is JSON).
 */
export function yamlText(config: Record<string, unknown>): string {
  return `# Generated by the conformance kit's self-serve target.\n${Object.entries(config).map(([key, value]) => `${key}: ${JSON.stringify(value)}`).join('\n')}\n`
}

/** A second gateway with no declared profiles (server-configuration.26): it detects the engines from their homes. */
export function detectingConfig(): object {
  return { listen: { host: '127.0.0.1', port: 0 }, hooks: './detect-hooks.mjs', logging: { level: 'info' } }
}
