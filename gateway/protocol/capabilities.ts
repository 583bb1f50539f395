/**
 * Engine capability records (engine-capability-record.*). One record per engine, served on
 * ProfileInfo.capabilities and SessionInfo.capabilities. Clients render from the record, never
 * from the engine name; a request naming something a record forswears is a 400.
 */

export const ENGINES = ['cli_primary', 'cli_secondary', 'provider'] as const
export type EngineName = (typeof ENGINES)[number]

export const PERMISSION_MODES = ['default', 'acceptEdits', 'bypassPermissions', 'dontAsk', 'auto'] as const
export type PermissionMode = (typeof PERMISSION_MODES)[number]

export const ATTACHMENT_KINDS = ['image', 'pdf', 'text'] as const
export type AttachmentKind = (typeof ATTACHMENT_KINDS)[number]

export const PROVIDER_GRANTS = ['web_fetch', 'web_search', 'download', 'deliver_file'] as const
export type ProviderGrant = (typeof PROVIDER_GRANTS)[number]

export interface EngineCapabilities {
  /** Sessions run against a host directory, so `cwd` is required and bounded by allowedCwdRoots. */
  readonly hostCwd: boolean
  /** `clear_context` is honoured. Absent means false (versioning.3). */
  readonly clearContext?: boolean
  /** `GET /sessions/:id/mcp` is answered (else 501). */
  readonly mcpStatus: boolean
  /** `POST /sessions/:id/mcp/:name` is answered (else 501). */
  readonly mcpServerActions: boolean
  /** Permission requests reach a human; false means a tool is granted or absent. */
  readonly interactiveApprovals: boolean
  readonly permissionModes: readonly PermissionMode[]
  readonly attachments: readonly AttachmentKind[]
  /** The create request may bring its own `mcpServers`. */
  readonly sessionMcpServers: boolean
  /** `maxTurns` and `maxBudgetUsd` are honoured. */
  readonly budgets: boolean
  readonly settingSources: boolean
  readonly reasoningEffort: boolean
  /** `allowedTools` / `disallowedTools` are honoured. */
  readonly toolFilters: boolean
  readonly resume: boolean
  readonly forkSession: boolean
  /** The create request may narrow the profile's provider grants with `capabilities`. */
  readonly grants: boolean
  /** The session has a scratch filesystem served under `/sessions/:id/files`. */
  readonly scratchFiles: boolean

  // Protocol 7's keys for what the spec leaves open ("other keys: not shown"), so its clients
  // render from the record unchanged (docs/compatibility.md).
  /** Coercion target for a stored mode outside `permissionModes`. */
  readonly defaultPermissionMode: PermissionMode
  /** A resume replays the prior history into the transcript. */
  readonly resumeBackfill: boolean
  /** `GET /sdk-sessions` lists this engine's store. */
  readonly listSessions: boolean
  /** `context_usage` events can occur. */
  readonly contextUsage: boolean
  /** `rate_limit` / `plan_info` events can occur. */
  readonly rateLimits: boolean
  /** `capabilities` events carry slash commands. */
  readonly slashCommands: boolean
  /** `skills` events carry a listing worth a panel. */
  readonly skillsList: boolean
  /** Protocol 7's name for `scratchFiles`. */
  readonly vfs: boolean
  /** `stream_delta` granularity. */
  readonly streaming: 'token' | 'item' | 'none'
  /** Efforts offerable at create time; absent: not settable. */
  readonly reasoningEfforts?: readonly string[]
}

const record = (caps: EngineCapabilities): EngineCapabilities => Object.freeze(caps)

export const ENGINE_CAPABILITIES: Readonly<Record<EngineName, EngineCapabilities>> = Object.freeze({
  cli_primary: record({
    hostCwd: true,
    clearContext: true,
    mcpStatus: true,
    mcpServerActions: true,
    interactiveApprovals: true,
    permissionModes: PERMISSION_MODES,
    attachments: ['image', 'pdf', 'text'],
    sessionMcpServers: true,
    budgets: true,
    settingSources: true,
    reasoningEffort: true,
    toolFilters: true,
    resume: true,
    forkSession: true,
    grants: false,
    scratchFiles: false,
    defaultPermissionMode: 'default',
    resumeBackfill: true,
    listSessions: true,
    contextUsage: true,
    rateLimits: true,
    slashCommands: true,
    skillsList: false,
    vfs: false,
    streaming: 'token',
    reasoningEfforts: ['low', 'medium', 'high', 'xhigh', 'max'],
  }),
  cli_secondary: record({
    hostCwd: true,
    clearContext: false,
    mcpStatus: true,
    mcpServerActions: false,
    interactiveApprovals: true,
    permissionModes: ['default', 'acceptEdits', 'bypassPermissions', 'auto'],
    attachments: ['image', 'text'],
    sessionMcpServers: false,
    budgets: false,
    settingSources: false,
    reasoningEffort: true,
    toolFilters: false,
    resume: true,
    forkSession: false,
    grants: false,
    scratchFiles: false,
    defaultPermissionMode: 'default',
    resumeBackfill: true,
    listSessions: true,
    contextUsage: true,
    rateLimits: true,
    slashCommands: false,
    skillsList: true,
    vfs: false,
    streaming: 'token',
    reasoningEfforts: ['minimal', 'low', 'medium', 'high', 'xhigh'],
  }),
  provider: record({
    hostCwd: false,
    clearContext: true,
    mcpStatus: true,
    mcpServerActions: false,
    interactiveApprovals: false,
    permissionModes: ['default', 'bypassPermissions', 'dontAsk'],
    attachments: ['image', 'pdf', 'text'],
    sessionMcpServers: false,
    budgets: false,
    settingSources: false,
    reasoningEffort: false,
    toolFilters: false,
    resume: false,
    forkSession: false,
    grants: true,
    scratchFiles: true,
    defaultPermissionMode: 'default',
    resumeBackfill: false,
    listSessions: false,
    contextUsage: false,
    rateLimits: false,
    slashCommands: false,
    skillsList: false,
    vfs: true,
    streaming: 'token',
  }),
})

/** Browser-safe fallback when a wire copy of the record is missing. */
export const DEFAULT_ENGINE_CAPABILITIES: EngineCapabilities = ENGINE_CAPABILITIES.cli_primary

export function isEngineName(value: unknown): value is EngineName {
  return typeof value === 'string' && (ENGINES as readonly string[]).includes(value)
}

export function isPermissionMode(value: unknown): value is PermissionMode {
  return typeof value === 'string' && (PERMISSION_MODES as readonly string[]).includes(value)
}
