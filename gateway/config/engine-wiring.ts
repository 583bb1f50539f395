/**
 * The built-in engine wiring: from the configuration's `engines` block and profiles to the
 * server's `engines` adapters and `createEngineRunner`. The one place a configuration meets the
 * engine modules; each engine SDK is imported only when a profile declares that engine.
 */
import { accessSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { ResolvedProfile } from '../host/profiles.ts'
import type { EngineAdapter } from '../server/engine-adapter.ts'
import type { CreateEngineRunner } from '../sessions/runner.ts'
import type { ToolBackends } from '../engines/provider/tools.ts'
import type { EngineProcessEvent } from '../engines/cli-primary/index.ts'
import type { GatewayConfig, ProfileEntry } from './schema.ts'
import type { LivePrincipals } from './live-principals.ts'
import { readEnv } from './env.ts'

export interface EngineWiring {
  engines: Partial<Record<'cli_primary' | 'cli_secondary', EngineAdapter>>
  createEngineRunner?: CreateEngineRunner
}

export class ConfigError extends Error {}

/** Observers the command wires (lifecycle logs); never part of the file. */
export interface EngineObservers {
  onEngineProcess?: (event: EngineProcessEvent, engine: 'cli_primary' | 'cli_secondary') => void
  /** Connections the options opened (a PostgreSQL pool), closed by the command after the gateway stops. */
  closers?: Array<() => Promise<void>>
  /** The principals file's live set, for the command to reload on change and SIGHUP. */
  onPrincipals?: (principals: LivePrincipals) => void
  /** An engine's one-off notice for the operator (a session on a subscription login), for the command's log. */
  onWarning?: (message: string) => void
}

export async function wireEngines(config: GatewayConfig, profiles: ProfileEntry[], backends: ToolBackends | undefined, observers: EngineObservers = {}): Promise<EngineWiring> {
  const wiring: EngineWiring = { engines: {} }
  const primary = profiles.filter((p) => p.engine === 'cli_primary')
  if (primary.length) wiring.engines.cli_primary = await cliPrimary(config, primary, observers)
  const secondary = profiles.filter((p) => p.engine === 'cli_secondary')
  if (secondary.length) wiring.engines.cli_secondary = await cliSecondary(config, secondary, observers)
  if (profiles.some((p) => p.engine === 'provider')) wiring.createEngineRunner = await provider(config, backends)
  return wiring
}

async function cliPrimary(config: GatewayConfig, profiles: ProfileEntry[], observers: EngineObservers): Promise<EngineAdapter> {
  const { createCliPrimaryAdapter, loadClaudeAgentSdk } = await import('../engines/cli-primary/index.ts')
  // The SDK is loaded now, not with the first session: a missing package stops startup with one
  // line naming it (a MissingPackageError), instead of every cli_primary create failing after a 201.
  await loadClaudeAgentSdk()
  const settings = config.engines?.cli_primary ?? {}
  // The SDK's own binary is looked up only when a profile runs the engine block's program and
  // that block names none: a configuration whose every profile has its own executable needs no native package.
  let engineExecutable: string | undefined
  const adapterFor = (env: Record<string, string>, program: Program) => createCliPrimaryAdapter({
    pathToClaudeCodeExecutable: program.path ?? (engineExecutable ??= sdkOwnBinary()), env, questionBehavior: settings.questionBehavior ?? 'ask', onProcess: observed(observers, 'cli_primary'),
    ...(observers.onWarning ? { onNotice: observers.onWarning } : {}),
    ...(settings.mcpServersDelivery ? { mcpServersDelivery: settings.mcpServersDelivery } : {}),
    ...(program.interpreter ? { executable: program.interpreter, executableArgs: program.interpreterArgs ?? [] } : {}),
  })
  const engineProgram: Program = { path: settings.executable, interpreter: settings.interpreter, interpreterArgs: settings.interpreterArgs }
  return perProfile(adapterFor, profiles, engineProgram, (p) => (p.engine === 'cli_primary' ? p.executable : undefined))
}

async function cliSecondary(config: GatewayConfig, profiles: ProfileEntry[], observers: EngineObservers): Promise<EngineAdapter> {
  const { createCliSecondaryAdapter } = await import('../engines/cli-secondary/index.ts')
  const settings = config.engines?.cli_secondary ?? {}
  const adapterFor = (env: Record<string, string>, program: Program) => createCliSecondaryAdapter({
    env, onProcess: observed(observers, 'cli_secondary'),
    ...(program.path ? { codexPath: program.path } : {}),
    ...(program.interpreter ? { executable: program.interpreter, executableArgs: program.interpreterArgs ?? [] } : {}),
    ...(settings.requestTimeoutMs ? { requestTimeoutMs: settings.requestTimeoutMs } : {}),
  })
  const engineProgram: Program = { path: settings.codexPath, interpreter: settings.interpreter, interpreterArgs: settings.interpreterArgs }
  return perProfile(adapterFor, profiles, engineProgram, (p) => (p.engine === 'cli_secondary' ? p.codexPath : undefined))
}

/** An engine's process observer, naming the engine (undefined when the command observes nothing). */
function observed(observers: EngineObservers, engine: 'cli_primary' | 'cli_secondary'): ((event: EngineProcessEvent) => void) | undefined {
  const onEngineProcess = observers.onEngineProcess
  return onEngineProcess ? (event) => onEngineProcess(event, engine) : undefined
}

/** The engine program a CLI adapter runs: the binary (unset: the engine's default lookup), or a script and its interpreter. */
interface Program {
  path?: string
  interpreter?: string
  interpreterArgs?: string[]
}

/** A profile's program: its own when it names one (interpreter included), else the engine block's. */
function profileProgram(profile: ProfileEntry, engineProgram: Program, ownPath: string | undefined): Program {
  if (!ownPath || profile.engine === 'provider') return engineProgram
  return { path: ownPath, interpreter: profile.interpreter, interpreterArgs: profile.interpreterArgs }
}

/**
 * A profile with its own environment or its own program gets its own adapter (so its processes
 * run that binary with that environment); the others share one.
 */
function perProfile(adapterFor: (env: Record<string, string>, program: Program) => EngineAdapter, profiles: ProfileEntry[], engineProgram: Program, ownPath: (profile: ProfileEntry) => string | undefined): EngineAdapter {
  const byProfile = new Map<string, EngineAdapter>()
  for (const profile of profiles) {
    if (profile.engine === 'provider' || (!profile.env && !ownPath(profile))) continue
    byProfile.set(profile.name, adapterFor(readEnv(profile.env ?? {}), profileProgram(profile, engineProgram, ownPath(profile))))
  }
  // Declared profiles without settings of their own, and managed ones (the profile store), share one.
  let shared: EngineAdapter | undefined
  const sharedAdapter = () => (shared ??= adapterFor({}, engineProgram))
  // Built now when a declared profile runs it, so that a binary that cannot be found stops startup.
  if (profiles.some((p) => !byProfile.has(p.name))) sharedAdapter()
  if (!byProfile.size) return sharedAdapter()
  const pick = (profile: ResolvedProfile) => byProfile.get(profile.name) ?? sharedAdapter()
  return {
    createRunner: (runnerConfig, profile, extras) => pick(profile).createRunner(runnerConfig, profile, extras),
    probeCredentials: (profile) => pick(profile).probeCredentials!(profile),
    listSessions: (profile, query) => pick(profile).listSessions!(profile, query),
  }
}

/** The Agent SDK's own native CLI package for this platform, when it is installed. */
export function sdkOwnBinary(): string {
  const name = `@anthropic-ai/claude-agent-sdk-${process.platform}-${process.arch}`
  try {
    const require = createRequire(import.meta.url)
    const pkg = require.resolve(`${name}/package.json`)
    const binary = pkg.replace(/package\.json$/, process.platform === 'win32' ? 'claude.exe' : 'claude')
    accessSync(binary)
    return binary
  } catch {
    throw new ConfigError(`engines.cli_primary.executable: not set, and the SDK's own binary (${name}) is not installed; name the claude executable`)
  }
}

async function provider(config: GatewayConfig, backends: ToolBackends | undefined): Promise<CreateEngineRunner> {
  const settings = config.engines?.provider ?? {}
  const mcpServers = Object.fromEntries(Object.entries(settings.mcpServers ?? {}).map(([name, server]) => [name, {
    url: server.url,
    // The MCP transport's bearer token, read per session so a rotated variable takes effect.
    ...(server.bearerTokenEnv ? { mintToken: () => process.env[server.bearerTokenEnv as string] ?? '' } : {}),
  }]))
  const options = {
    deferredTools: settings.deferredTools,
    bridgedTools: settings.bridgedTools,
    backends: { ...(settings.backends ?? {}), ...(backends ?? {}) },
    maxRetries: settings.maxRetries,
    maxLegs: settings.maxLegs,
    evalLimits: settings.evalLimits,
    mcpServers,
  }
  // The engine (the AI SDK, its provider packages, QuickJS: most of the modules `serve` would load)
  // is imported with the first provider session, not before listening: nothing at start needs it.
  let engine: Promise<typeof import('../engines/provider/index.ts')> | undefined
  return async (ctx) => {
    engine ??= import('../engines/provider/index.ts')
    // The engine's endpoint serves the profiles that name none; a profile's own baseURL wins (the
    // runner's option would win over it, so it is given only where the profile is silent).
    const baseURL = ctx.profile.provider?.baseURL ? undefined : settings.baseURL
    return (await engine).createAiSdkRunner(ctx, baseURL ? { ...options, baseURL } : options)
  }
}
