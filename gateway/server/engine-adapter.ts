/** How the server builds a runner for a CLI engine; the provider engine goes through createEngineRunner. */
import type { ProbeResult } from '../host/availability.ts'
import type { ResolvedProfile } from '../host/profiles.ts'
import type { Runner, RunnerConfig } from '../sessions/runner.ts'

export interface EngineAdapter {
  createRunner(config: RunnerConfig, profile: ResolvedProfile): Runner | Promise<Runner>
  /** The engine's login check, used by `checkCredentials` when the host gives no probe. */
  probeCredentials?(profile: ResolvedProfile): Promise<ProbeResult>
}
