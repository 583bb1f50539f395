/**
 * The cli_secondary engine adapter: a CodexRunner per session on `codex app-server`. Point
 * `codexPath` at the real binary in production (or leave it out: an installed `@openai/codex`,
 * else `codex` on PATH) or at fake-engines/codex-app-server/main.ts in tests; nothing else differs.
 */
import type { SessionCoreRestore } from '../../sessions/session-core.ts'
import type { RespawnOptions } from '../respawn.ts'
import type { ResolvedProfile } from '../../host/profiles.ts'
import type { RunnerConfig } from '../../sessions/runner.ts'
import { resolveCodexPath } from './binary.ts'
import type { Launch } from './peer.ts'
import type { EngineProcessObserver } from '../process-events.ts'
import { probeLogin } from './probe.ts'
import { CodexRunner } from './runner.ts'
import { listThreads } from './threads.ts'

export interface CliSecondaryOptions {
  /** The codex binary; default: the native binary of an installed `@openai/codex`, else `codex` on PATH. */
  codexPath?: string
  /** For a `.js`/`.ts` codex (the fake): the interpreter and its arguments, e.g. `process.execPath` and a loader. */
  executable?: string
  executableArgs?: string[]
  /** Extra environment for every codex process (on top of the gateway's own). */
  env?: Record<string, string>
  /** How long codex may take to answer the handshake, a thread request or `login status` (default 30 s). */
  requestTimeoutMs?: number
  /** A codex child that dies is respawned on the same thread; a crash loop fails the session. */
  respawn?: RespawnOptions
  /** Told when a session's codex process starts and ends (metrics, lifecycle logs). */
  onProcess?: EngineProcessObserver
}

export const CODEX_HOME_ENV = 'CODEX_HOME'
const DEFAULT_TIMEOUT_MS = 30_000
const CLIENT_VERSION = '7'

export function createCliSecondaryAdapter(options: CliSecondaryOptions = {}) {
  const codexPath = resolveCodexPath(options.codexPath)
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS
  const launchFor = (profile: ResolvedProfile, config?: RunnerConfig): Launch => {
    const env = codexEnvironment(profile, options.env, config?.env as Record<string, string> | undefined)
    return options.executable
      ? { command: options.executable, args: [...(options.executableArgs ?? []), codexPath], env }
      : { command: codexPath, args: [], env }
  }
  // Only a session's own child is observed; listings and probes run short-lived ones.
  const sessionLaunch = (profile: ResolvedProfile, config: RunnerConfig): Launch => ({
    ...launchFor(profile, config),
    ...(options.onProcess ? { observe: { profile: profile.name, onProcess: options.onProcess } } : {}),
  })
  return {
    /** Codex's stored threads for a profile (`GET /sdk-sessions`), newest first. */
    async listSessions(profile: ResolvedProfile, query: { dir?: string }) {
      const rows = await listThreads(launchFor(profile), query, timeoutMs)
      return rows.sort((a, b) => b.lastModified - a.lastModified)
    },
    /** `codex login status` in the profile's CODEX_HOME (server-configuration: checkCredentials). */
    probeCredentials: (profile: ResolvedProfile) => probeLogin(launchFor(profile), timeoutMs),
    createRunner(config: RunnerConfig, profile: ResolvedProfile, extras: { restore?: SessionCoreRestore } = {}) {
      return new CodexRunner(config, { launch: sessionLaunch(profile, config), requestTimeoutMs: timeoutMs, clientVersion: CLIENT_VERSION, restore: extras.restore, respawn: options.respawn })
    },
  }
}

/**
 * A complete environment (a spawn env replaces the parent's, engine-facts §2): the gateway's
 * own, the adapter's extras, the host hook's, and the profile's `codexHome` pinned last.
 */
export function codexEnvironment(profile: ResolvedProfile, extra: Record<string, string> = {}, fromConfig: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), ...extra, ...fromConfig }
  if (profile.codexHome) env[CODEX_HOME_ENV] = profile.codexHome
  return env
}
