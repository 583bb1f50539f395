/**
 * The target manifest's schema (zod), the one place that says which fields, principals, profile
 * roles, timers and feature names exist. `manifest.schema.json` beside it is generated from this
 * (`npm run manifest-schema`; a test keeps the two equal) so editors can complete a manifest.
 * Every object is strict: an unknown field or feature name is an error, never silently ignored.
 */
import { z } from 'zod'

/** What a target can offer; a case requiring one the manifest does not list is `unsupported`. */
export const FEATURES = [
  'provider', 'cli_primary', 'cli_secondary', 'cors', 'fallback', 'bypassDisabled', 'queue', 'parking', 'bridge', 'scratchFiles',
  'persistence', 'notifications', 'requireAvailableProfile', 'requireApiKey', 'retention', 'project', 'buildRunnerConfigStamp',
  'autodetect', 'attachments', 'hostFiles', 'hostFilesWrite', 'peers', 'mcp', 'profileStore',
  /** The target's queue may have its daily token budget spent by the kit (a scratch gateway, not a shared one). */
  'spendDailyBudget',
  /** The target's job queue keeps its jobs across a restart (a shared adapter such as PostgreSQL; the bundled one does not). */
  'durableQueue',
] as const
export type Feature = (typeof FEATURES)[number]

export const PRINCIPALS = ['operator', 'tenantA', 'tenantB', 'restricted', 'manager'] as const

/** Profile roles and the engine each must run (the preflight checks both). */
export const PROFILE_ROLES = {
  provider: 'provider', providerAlt: 'provider', providerAllGrants: 'provider', providerMcp: 'provider', providerMcpBroken: 'provider',
  cli_primary: 'cli_primary', unavailable: 'cli_primary', cliPrimarySubscription: 'cli_primary', cli_secondary: 'cli_secondary',
} as const

export const TIMERS = [
  'parkDelayMs', 'expiredGraceMs', 'deferredShortMs', 'approvalTimeoutMs', 'killGraceMs', 'maxParkedDurationMs', 'retentionMaxAgeMs',
  'webhookRetryDelayMs', 'webhookAttempts', 'notificationRetryDelayMs',
  /** The longest a target's engine may legitimately take for one turn (model retries with backoff included). */
  'turnMs',
] as const

/** The engines whose profiles may run a real CLI pointed at one of the kit's fake model APIs. */
export const REAL_ENGINES = {
  cli_primary: { cli: 'the Claude Code CLI', api: 'the fake Anthropic Messages API (`fake-anthropic-messages`)', probe: 'anthropic-messages' },
  cli_secondary: { cli: 'codex app-server', api: 'the fake OpenAI Responses API (`fake-openai-responses`)', probe: 'openai-responses' },
} as const
export type RealEngine = keyof typeof REAL_ENGINES

const count = z.number().int().nonnegative()
const origin = z.string().regex(/^https?:\/\/[^/]+$/, 'an origin (scheme://host[:port], no path)')

export const manifestSchema = z.strictObject({
  $schema: z.string().optional().describe('The JSON Schema this file follows (for editors).'),
  baseUrl: z.string().regex(/^https?:\/\//, 'an http(s) URL').describe('The gateway\'s base URL including basePath, e.g. http://127.0.0.1:8787/v1'),
  tokens: z.strictObject(Object.fromEntries(PRINCIPALS.map((p) => [p, z.string().min(1).optional()])) as Record<(typeof PRINCIPALS)[number], z.ZodOptional<z.ZodString>>)
    .describe('Bearer tokens by principal: operator (unscoped), tenantA/tenantB (different scopes), restricted (allowedProfiles = the provider profile), manager (canManageProfiles).'),
  profiles: z.strictObject(Object.fromEntries(Object.keys(PROFILE_ROLES).map((r) => [r, z.string().min(1).optional()])) as Record<keyof typeof PROFILE_ROLES, z.ZodOptional<z.ZodString>>)
    .default({}).describe('Profile names by role; each must exist on the target with the role\'s engine.'),
  cwdRoot: z.string().optional().describe('A directory inside the target\'s allowedCwdRoots.'),
  timers: z.strictObject(Object.fromEntries(TIMERS.map((t) => [t, z.number().nonnegative().nullable().optional()])) as Record<(typeof TIMERS)[number], z.ZodOptional<z.ZodNullable<z.ZodNumber>>>)
    .optional().describe('The target\'s configured timers, in ms; waits derive from these and --timeout-ms.'),
  limits: z.strictObject({
    maxBodyBytes: count.optional(), attachmentMaxFileBytes: count.optional(), attachmentMaxSessionBytes: count.optional(),
    peerMaxMessageChars: count.optional(), peerPerMinute: count.optional(), peerMaxHops: count.optional(),
    hostFilesMaxFileBytes: count.optional().describe('The configured hostFiles.maxFileBytes (its default is not shown, limits.16): a larger file read through /fs/read is a 413.'),
  }).optional(),
  cors: z.strictObject({ allowedOrigin: origin.optional() }).optional(),
  fallback: z.strictObject({ path: z.string().startsWith('/') }).optional(),
  policy: z.strictObject({ disableBypassPermissions: z.boolean().optional() }).optional(),
  queue: z.strictObject({ maxConcurrency: count.optional(), dailyTokenLimit: count.optional() }).optional(),
  models: z.record(z.string(), z.array(z.string())).optional().describe('Model catalogs by profile role.'),
  webhookUrl: z.string().url().optional().describe('Where the target sends notifications; the kit listens there when it is on this host.'),
  notificationHeaders: z.record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'an HTTP header name'), z.string()).optional()
    .describe('The headers the target\'s notification webhook is configured to send (notifications.webhook.headers, server-configuration.23); the kit checks that a delivery carries each.'),
  project: z.strictObject({ cwd: z.string(), name: z.string() }).optional(),
  buildRunnerConfigStamp: z.strictObject({ key: z.string(), value: z.string() }).optional(),
  autodetect: z.strictObject({ baseUrl: z.string().regex(/^https?:\/\//), profiles: z.record(z.string(), z.string()) }).optional(),
  realEngines: z.strictObject(Object.fromEntries(Object.keys(REAL_ENGINES).map((e) => [e, z.strictObject({
    modelApi: z.string().regex(/^https?:\/\/[^/]+/, 'an http(s) URL').describe('Where the CLI\'s model API is: the kit\'s fake, which the kit starts there when that loopback port is free.'),
  }).optional()])) as Record<RealEngine, z.ZodOptional<z.ZodObject<{ modelApi: z.ZodString }, z.core.$strict>>>)
    .optional().describe('Engines whose profiles run the REAL CLI (not the kit\'s scripted fake) against the kit\'s fake model API; cases needing a scripted fault are then unsupported.'),
  features: z.array(z.enum(FEATURES)).default([]).describe('What the target offers. Silence means unknown, never absent.'),
  absent: z.array(z.enum(FEATURES)).default([]).describe('Features the target explicitly does not offer; only these run the cases that need a feature to be absent.'),
})

export type TargetManifest = z.infer<typeof manifestSchema>

export function manifestJsonSchema(): unknown {
  return z.toJSONSchema(manifestSchema, { io: 'input', target: 'draft-2020-12' })
}
