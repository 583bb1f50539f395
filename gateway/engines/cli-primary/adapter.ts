/**
 * The cli_primary engine adapter: builds a ClaudeRunner per session with the SDK options the
 * configuration names. Point `pathToClaudeCodeExecutable` at the real `claude` binary in
 * production or at fake-engines/claude-cli in tests; no other difference exists.
 */
import { realpathSync } from 'node:fs'
import type { Options } from '@anthropic-ai/claude-agent-sdk'
import type { ResolvedProfile } from '../../host/profiles.ts'
import type { RunnerConfig } from '../../sessions/runner.ts'
import type { SessionCoreRestore } from '../../sessions/session-core.ts'
import type { RespawnOptions } from '../respawn.ts'
import type { PeerPort } from '../../sessions/peers.ts'
import { probeLogin } from './probe.ts'
import { configuredEnv, transcriptSessions } from './transcripts.ts'
import type { QuestionBehavior } from '../../protocol/index.ts'
import { ClaudeRunner } from './runner.ts'
import { observedSpawner, type EngineProcessEvent } from './process-observer.ts'

export interface CliPrimaryOptions {
  /** The CLI to run; the SDK's own lookup needs its optional native package, which this project does not install. */
  pathToClaudeCodeExecutable: string
  /** For a `.js`/`.ts` CLI: the interpreter and its arguments (e.g. `process.execPath` and a loader). */
  executable?: string
  executableArgs?: string[]
  /** Extra environment for every CLI process (on top of the gateway's own). */
  env?: Record<string, string>
  /** How AskUserQuestion is settled when nobody answers: ask (wait), auto (first option), deny. */
  questionBehavior?: QuestionBehavior
  /** Observes every CLI process (spawn, exit code or signal), e.g. for lifecycle logs. */
  onProcess?: (event: EngineProcessEvent) => void
  /** Where the adapter's one notice per server goes (a session on a subscription login); default `console.warn`. */
  onNotice?: (message: string) => void
  /** A CLI process that dies is respawned on the same conversation; a crash loop fails the session. */
  respawn?: RespawnOptions
  /**
   * How a session's MCP servers reach the CLI. `'initialize'` (the default here) sends them over
   * stdin, so their `env` and `headers` (per-session bearer tokens) never sit on the command line,
   * where any user of the machine can read `/proc/<pid>/cmdline`. `'argv'` is only for a Claude
   * Code older than the SDK's bundled one (before 2.1.261), which refuses the stdin delivery.
   */
  mcpServersDelivery?: 'argv' | 'initialize'
}

export const CONFIG_DIR_ENV = 'CLAUDE_CONFIG_DIR'

export function createCliPrimaryAdapter(options: CliPrimaryOptions) {
  let noticed = false
  const probeOptionsFor = (profile: ResolvedProfile): Partial<Options> => ({
    pathToClaudeCodeExecutable: options.pathToClaudeCodeExecutable,
    ...(options.executable ? { executable: options.executable as Options['executable'] } : {}),
    ...(options.executableArgs ? { executableArgs: options.executableArgs } : {}),
    env: environmentFor(undefined, profile, options.env),
    mcpServersDelivery: options.mcpServersDelivery ?? 'initialize',
  })
  // A session's CLI is observed (metrics, logs, shutdown); the login probe's short-lived one is not an engine of a session.
  const sdkOptionsFor = (config: RunnerConfig, profile: ResolvedProfile): Partial<Options> => ({
    ...probeOptionsFor(profile),
    env: environmentFor(config, profile, options.env),
    ...(options.onProcess ? { spawnClaudeCodeProcess: observedSpawner(profile.name, options.onProcess) } : {}),
  })
  return {
    /** The CLI's stored sessions for a profile (`GET /sdk-sessions`), newest first. */
    async listSessions(profile: ResolvedProfile, query: { dir?: string }) {
      const env = environmentFor(undefined, profile, options.env)
      const sessions = await transcriptSessions(env.CLAUDE_CONFIG_DIR, query)
      return sessions.sort((a, b) => b.lastModified - a.lastModified)
    },
    /** Logged in when the CLI reports an API key or a subscription login (server-configuration.19). */
    probeCredentials: (profile: ResolvedProfile) => probeLogin(probeOptionsFor(profile)),
    createRunner(config: RunnerConfig, profile: ResolvedProfile, extras: { peers?: PeerPort; restore?: SessionCoreRestore } = {}) {
      return new ClaudeRunner(config, {
        sdkOptions: sdkOptionsFor(config, profile),
        peers: extras.peers,
        restore: extras.restore,
        respawn: options.respawn,
        questionBehavior: options.questionBehavior ?? 'ask',
        // One notice per server, not per session (server-configuration: requireApiKey).
        onNotice: (message) => {
          if (noticed) return
          noticed = true
          if (options.onNotice) options.onNotice(message)
          else console.warn(`gateway: ${message}`)
        },
      })
    },
  }
}

/**
 * `buildRunnerConfig` ran first; then the profile's config directory wins, unless the environment
 * it produced already lands in that directory (authentication.9).
 */
export function environmentFor(config: RunnerConfig | undefined, profile: ResolvedProfile, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { ...configuredEnv(), ...extra, ...((config?.env as Record<string, string> | undefined) ?? {}) }
  if (profile.configDir && canonical(env[CONFIG_DIR_ENV]) !== canonical(profile.configDir)) env[CONFIG_DIR_ENV] = profile.configDir
  return env
}

function canonical(path: string | undefined): string | undefined {
  if (!path) return undefined
  try { return realpathSync(path) } catch { return path }
}
