/** How the server builds a runner for a CLI engine; the provider engine goes through createEngineRunner. */
import type { ProbeResult } from '../host/availability.ts'
import type { ResolvedProfile } from '../host/profiles.ts'
import type { PeerPort } from '../sessions/peers.ts'
import type { Runner, RunnerConfig } from '../sessions/runner.ts'
import type { SessionCoreRestore } from '../sessions/session-core.ts'

export interface EngineAdapter {
  /**
   * `restore`: a dormant session waking (config.resume names its conversation); the runner numbers
   * on after `restore.seq` and keeps `createdAt`.
   */
  createRunner(config: RunnerConfig, profile: ResolvedProfile, extras?: { peers?: PeerPort; restore?: SessionCoreRestore }): Runner | Promise<Runner>
  /** The engine's login check, used by `checkCredentials` when the host gives no probe. */
  probeCredentials?(profile: ResolvedProfile): Promise<ProbeResult>
  /** The engine's stored sessions (`GET /sdk-sessions`); absent: the route answers 400 for this engine. */
  listSessions?(profile: ResolvedProfile, options: { dir?: string }): Promise<Array<{ cwd?: string; lastModified: number }>>
}
