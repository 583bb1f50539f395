/**
 * The operator configuration file: everything in the server options (server-configuration.*) that
 * is data. Functions come from the `hooks` module the file names. Secrets never sit here: every
 * credential is the *name* of an environment variable (`…Env`), read at startup.
 * One schema, built once; `gateway-config.schema.json` is generated from it for editors.
 */
import * as z from 'zod'
import { PROFILE_NAME_MAX_LENGTH, PROFILE_NAME_PATTERN } from '../protocol/profiles.ts'

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
const positiveInt = z.number().int().positive()
const nonNegativeInt = z.number().int().nonnegative()
const permissionMode = z.enum(['default', 'acceptEdits', 'bypassPermissions', 'dontAsk', 'auto'])

/** Provider engine settings: the AI SDK provider by id; the key comes from `apiKeyEnv` (profile.6). */
const providerSettings = z.strictObject({
  id: z.string().min(1).describe("'openai-compatible' (needs baseURL, here or in engines.provider), 'openai', 'anthropic'"),
  model: z.string().min(1),
  models: z.array(z.string().min(1)).optional(),
  baseURL: z.url().optional(),
  apiKeyEnv: envName.optional(),
  client: z.enum(['lean', 'ai-sdk']).optional().describe("OpenAI-compatible ids only: 'lean' (default) or 'ai-sdk' (@ai-sdk/openai-compatible's client)"),
})

const sessionGrants = z.strictObject({
  capabilities: z.array(z.enum(['web_fetch', 'web_search', 'download', 'deliver_file'])).optional(),
  mcpServers: z.array(z.string().min(1)).optional(),
  instructions: z.string().optional(),
})

const profileCommon = {
  name: z.string().min(1).max(PROFILE_NAME_MAX_LENGTH).regex(PROFILE_NAME_PATTERN, "letters, digits, '.', '_' and '-', starting with a letter or digit"),
  description: z.string().optional(),
  defaults: z.strictObject({ model: z.string().optional(), permissionMode: permissionMode.optional() }).optional(),
}

/** Extra environment for a profile's CLI processes: names of server variables to pass on. */
const cliEnv = z.record(z.string(), envName).optional().describe('CLI variable -> name of the server environment variable holding its value')

/** For a JavaScript build of an engine (e.g. the kit's fakes): the interpreter (node) and its arguments. */
const interpreter = { interpreter: z.string().min(1).optional(), interpreterArgs: z.array(z.string()).optional() }

/**
 * A profile's own program: set, it replaces the engine block's program for this
 * profile, interpreter included; unset, the profile runs the engine block's.
 */
function ownProgram(key: 'executable' | 'codexPath') {
  return (profile: { interpreter?: string; interpreterArgs?: string[] } & Partial<Record<typeof key, string>>, ctx: z.RefinementCtx) => {
    if (profile[key]) return
    for (const field of ['interpreter', 'interpreterArgs'] as const) {
      if (profile[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: `runs this profile's own ${key}: set ${key} too, or set ${field} in the engines block` })
    }
  }
}

const cliPrimaryProfile = z.strictObject({
  ...profileCommon,
  engine: z.literal('cli_primary'),
  configDir: z.string().min(1).optional(),
  env: cliEnv,
  /** This profile's `claude` executable, instead of engines.cli_primary.executable. */
  executable: z.string().min(1).optional(),
  ...interpreter,
}).superRefine(ownProgram('executable'))

const cliSecondaryProfile = z.strictObject({
  ...profileCommon,
  engine: z.literal('cli_secondary'),
  codexHome: z.string().min(1).optional(),
  env: cliEnv,
  /** This profile's codex binary, instead of engines.cli_secondary.codexPath. */
  codexPath: z.string().min(1).optional(),
  ...interpreter,
}).superRefine(ownProgram('codexPath'))

const providerProfile = z.strictObject({
  ...profileCommon,
  engine: z.literal('provider'),
  provider: providerSettings,
  session: sessionGrants.optional(),
})

export const profileSchema = z.discriminatedUnion('engine', [cliPrimaryProfile, cliSecondaryProfile, providerProfile])

/** A deferred or bridged tool the provider engine offers: what the model is told, and how long a call may wait. */
const remoteTool = z.strictObject({
  description: z.string().optional(),
  /** The JSON Schema of the tool's input; unset: any object. */
  inputSchema: z.record(z.string(), z.unknown()).optional(),
  expiresInMs: positiveInt.optional(),
})

const engines = z.strictObject({
  cli_primary: z.strictObject({
    /** The `claude` executable; unset: the SDK's own binary (its optional native package). */
    executable: z.string().min(1).optional(),
    /** For a JavaScript build of the CLI: the interpreter (e.g. node) and its arguments. */
    interpreter: z.string().min(1).optional(),
    interpreterArgs: z.array(z.string()).optional(),
    questionBehavior: z.enum(['ask', 'auto', 'deny']).optional(),
    /** 'initialize' (default): session MCP servers over stdin, off the command line; 'argv' only for a Claude Code before 2.1.261. */
    mcpServersDelivery: z.enum(['argv', 'initialize']).optional(),
  }).optional(),
  cli_secondary: z.strictObject({
    /** The codex binary; unset: an installed `@openai/codex`'s native binary, else `codex` on PATH. */
    codexPath: z.string().min(1).optional(),
    /** For a JavaScript codex (e.g. the kit's fake): the interpreter and its arguments. */
    interpreter: z.string().min(1).optional(),
    interpreterArgs: z.array(z.string()).optional(),
    /** How long codex may take to answer the handshake, a thread request or `login status`. */
    requestTimeoutMs: positiveInt.optional(),
  }).optional(),
  provider: z.strictObject({
    /** The OpenAI-compatible endpoint of provider profiles that name no `provider.baseURL` (managed profiles created over HTTP too). */
    baseURL: z.url().optional(),
    /** Answered later by POST /executions/:id/result; a session waiting on them only may park. */
    deferredTools: z.record(z.string(), remoteTool).optional(),
    /** Sent as tool_call_request to the first attached client; with no client attached the call fails at once. */
    bridgedTools: z.record(z.string(), remoteTool).optional(),
    mcpServers: z.record(z.string(), z.strictObject({ url: z.url(), bearerTokenEnv: envName.optional() })).optional(),
    backends: z.strictObject({ fetch: z.boolean().optional(), download: z.boolean().optional(), deliverFile: z.boolean().optional() }).optional(),
    maxRetries: nonNegativeInt.optional(),
    maxLegs: positiveInt.optional(),
    evalLimits: z.strictObject({ memoryLimitBytes: positiveInt.optional(), timeoutMs: positiveInt.optional() }).optional(),
  }).optional(),
})

/**
 * `postgres` is shared by several gateway processes on one database (docs/deployment.md); its URL,
 * which carries the password, comes from the environment variable `urlEnv` names.
 */
const postgres = { kind: z.literal('postgres'), urlEnv: envName.describe('name of the environment variable holding the postgres:// URL') }
const sessionStore = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('memory') }),
  z.strictObject({ kind: z.literal('file'), dir: z.string().min(1) }),
  z.strictObject(postgres),
])
const queueAdapter = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('memory') }),
  // A claim lapses leaseMs after its last heartbeat; another process may then reclaim the job.
  z.strictObject({ ...postgres, leaseMs: positiveInt.optional() }),
])
const profileStore = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('memory') }),
  z.strictObject({ kind: z.literal('file'), file: z.string().min(1) }),
  // Shared by a fleet: every process reads a managed profile through to it (server-configuration.6).
  z.strictObject(postgres),
])

const webhook = z.strictObject({
  url: z.url(),
  /** Header name -> name of the environment variable holding its value (authentication.11). */
  headersFromEnv: z.record(z.string(), envName).optional(),
  events: z.array(z.string()).optional(),
})

/**
 * An idle keep-alive connection's lifetime: Node's default (5 s) is below every common load
 * balancer's idle timeout (AWS ALB 60 s, Google Cloud 600 s), so a balancer reusing a connection
 * the gateway is closing gets a reset and answers 502. Above the ALB's default.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000

export const configSchema = z.strictObject({
  $schema: z.string().optional(),
  listen: z.strictObject({
    host: z.string().default('127.0.0.1'), port: nonNegativeInt.max(65535).default(8787),
    keepAliveTimeoutMs: positiveInt.default(KEEP_ALIVE_TIMEOUT_MS).describe('how long an idle keep-alive connection stays open; above a load balancer\'s idle timeout (AWS ALB: 60 s), or the balancer may reuse a connection the gateway is closing and answer 502'),
  }).default({ host: '127.0.0.1', port: 8787, keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS }),
  /** Module exporting authenticate, authorizeSession, buildRunnerConfig, fallback, toolBackends; relative to this file. */
  hooks: z.string().min(1).optional(),
  auth: z.strictObject({
    /** Principals keyed by SHA-256 of each bearer token (`gateway token create`); relative to this file. */
    principalsFile: z.string().min(1).optional(),
    allowUnauthenticated: z.boolean().optional(),
  }).optional(),
  profiles: z.array(profileSchema).optional(),
  engines: engines.optional(),
  allowedCwdRoots: z.array(z.string().min(1)).optional(),
  allowedConfigDirRoots: z.array(z.string().min(1)).optional(),
  basePath: z.string().optional(),
  cors: z.strictObject({ origins: z.array(z.string().refine((o) => !o.includes('*'), 'origins are exact, no wildcard')) }).optional(),
  maxBodyBytes: positiveInt.optional(),
  disableBypassPermissions: z.boolean().optional(),
  approvalTimeoutMs: nonNegativeInt.nullable().optional(),
  requireApiKey: z.boolean().optional(),
  checkCredentials: z.union([z.boolean(), z.strictObject({ timeoutMs: positiveInt.optional() })]).optional(),
  requireAvailableProfile: z.boolean().optional(),
  profileStore: profileStore.optional(),
  hostFiles: z.strictObject({
    roots: z.array(z.string()).optional(), write: z.boolean().optional(), maxFileBytes: positiveInt.optional(),
    maxEntries: positiveInt.optional(), ignore: z.array(z.string()).optional(),
  }).optional(),
  attachments: z.strictObject({ maxFileBytes: positiveInt.optional(), maxSessionBytes: positiveInt.optional() }).optional(),
  peers: z.strictObject({ enabled: z.boolean().optional(), maxMessageChars: positiveInt.optional(), perMinute: positiveInt.optional(), maxHops: positiveInt.optional() }).optional(),
  parking: z.strictObject({
    store: sessionStore.optional(), parkDelayMs: nonNegativeInt.optional(), expiredGraceMs: nonNegativeInt.optional(), persistLive: z.boolean().optional(),
  }).optional(),
  queue: z.strictObject({
    adapter: queueAdapter.optional(), maxConcurrency: positiveInt.optional(), sessionTokenLimit: positiveInt.optional(), dailyTokenLimit: positiveInt.optional(),
    maxJobDurationMs: positiveInt.optional(), maxParkedDurationMs: positiveInt.optional(), killGraceMs: nonNegativeInt.optional(),
    retention: z.strictObject({ maxAgeMs: positiveInt, sweepIntervalMs: positiveInt.optional() }).optional(),
    webhookAttempts: positiveInt.optional(), webhookRetryDelayMs: nonNegativeInt.optional(),
  }).optional(),
  notifications: z.strictObject({ webhook: webhook.optional(), attempts: positiveInt.optional(), retryDelayMs: nonNegativeInt.optional() }).optional(),
  health: z.union([z.literal(false), z.strictObject({ healthPath: z.string().startsWith('/').default('/healthz'), readyPath: z.string().startsWith('/').default('/readyz') })]).optional(),
  /**
   * Prometheus metrics: on by default at <basePath>/metrics for operators; `false` off; `{port, host}`
   * a separate loopback listener for a scraper; `managedProfileLabels` how many managed profiles get
   * a `profile` label value of their own (default 50; the others count as `other`).
   */
  metrics: z.union([z.boolean(), z.strictObject({
    port: z.number().int().min(0).max(65535).optional(),
    host: z.string().regex(/^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|localhost)$/, 'a loopback address (the listener has no authentication)').optional(),
    managedProfileLabels: nonNegativeInt.optional(),
  }).refine((m) => m.host === undefined || m.port !== undefined, { message: 'metrics.host needs metrics.port', path: ['host'] })]).optional(),
  /** Backpressure and caps on every WebSocket (session and queue sockets); defaults in docs/configuration.md. */
  webSockets: z.strictObject({
    maxBufferedBytes: positiveInt.min(65536).optional().describe('bytes queued on one socket before the gateway stops sending to it (default 4 MiB, at least 64 KiB)'),
    slowReaderTimeoutMs: positiveInt.optional().describe('how long a socket may stay above maxBufferedBytes before it is closed with 1013 (default 10000)'),
    maxPerPrincipal: positiveInt.optional().describe('open sockets per non-operator principal; more are refused with 429 (default 64)'),
    maxPerSession: positiveInt.optional().describe('open sockets per session; more are refused with 429 (default 32)'),
  }).optional(),
  /** graceMs: running turns and pending webhooks; killGraceMs: between SIGTERM and SIGKILL of an engine process. */
  shutdown: z.strictObject({ graceMs: nonNegativeInt.default(10_000), killGraceMs: nonNegativeInt.default(5000) }).optional(),
  /**
   * Several `gateway serve` processes on one database as one gateway (docs/configuration.md): any
   * process answers for any session and adopts a dead process's sessions. Needs a postgres
   * `parking.store`; the directory lives in that database.
   */
  fleet: z.strictObject({
    processId: z.string().min(1).max(200).optional().describe('this process in the fleet; default <hostname>-<pid>-<random>'),
    address: z.url().optional().describe('where the other processes reach this one (origin plus basePath); default the URL it listens on'),
    secretEnv: envName.describe('name of the environment variable holding the secret shared by the fleet to authenticate forwarded requests'),
    leaseMs: positiveInt.optional().describe("a process silent this long is dead and its sessions adoptable (default queue.adapter.leaseMs, else 30000)"),
    peerTimeoutMs: positiveInt.optional().describe('how long GET /sessions waits for each other process (default 2000)'),
  }).optional(),
  logging: z.strictObject({
    level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(),
    /** Extra pino redaction paths on top of the built-in credential paths. */
    redact: z.array(z.string()).optional(),
  }).optional(),
}).superRefine(openAiCompatibleNeedsBaseUrl, { when: () => true }).superRefine(fleetNeedsSharedStore)

/** A fleet adopts sessions from the shared store and keeps its directory in the same database. */
function fleetNeedsSharedStore(config: { fleet?: unknown; parking?: { store?: { kind: string } } }, ctx: z.RefinementCtx): void {
  if (config.fleet && config.parking?.store?.kind !== 'postgres') {
    ctx.addIssue({ code: 'custom', path: ['fleet'], message: "needs parking.store of kind 'postgres' (the fleet's directory and adoptable sessions live there)" })
  }
}

/**
 * An openai-compatible profile needs an endpoint: its own `provider.baseURL`, or the engine's
 * (`engines.provider.baseURL` serves every provider profile naming none). Decided on the whole file,
 * and run even when other keys have problems, so every problem is listed at once; the input may
 * then be malformed anywhere, hence the defensive reads.
 */
function openAiCompatibleNeedsBaseUrl(raw: unknown, ctx: z.RefinementCtx): void {
  const config = (raw ?? {}) as { profiles?: unknown; engines?: { provider?: { baseURL?: unknown } } }
  if (config.engines?.provider?.baseURL || !Array.isArray(config.profiles)) return
  config.profiles.forEach((profile: { engine?: unknown; provider?: { id?: unknown; baseURL?: unknown } } | null, index) => {
    if (profile?.engine !== 'provider' || profile.provider?.id !== 'openai-compatible' || profile.provider.baseURL) return
    ctx.addIssue({ code: 'custom', path: ['profiles', index, 'provider', 'baseURL'], message: "required for provider id 'openai-compatible' (or set engines.provider.baseURL)" })
  })
}

export type GatewayConfig = z.infer<typeof configSchema>
export type ProfileEntry = z.infer<typeof profileSchema>
