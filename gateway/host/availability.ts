/**
 * Credential checking (server-configuration: checkCredentials, requireAvailableProfile). After
 * listen every primary-engine profile is probed concurrently and never fails the server; results
 * are cached about a minute and refreshed in the background when read stale. Only a definite
 * `available: false` can block a create; an unprobed profile is allowed.
 */
import type { ResolvedProfile } from './profiles.ts'

export interface ProbeResult {
  available: boolean
  /** Why not; shown to callers, so it must never contain a credential. */
  reason?: string
}

export type CredentialProbe = (profile: ResolvedProfile) => Promise<ProbeResult>

export interface CheckCredentialsOptions {
  /** The engine adapter's login probe when omitted (none in builds without that engine). */
  probe?: CredentialProbe
  timeoutMs?: number
}

export const AVAILABILITY_DEFAULTS = { timeoutMs: 10_000, ttlMs: 60_000 } as const

interface Verdict extends ProbeResult {
  at: number
}

export class ProfileAvailability {
  readonly enabled: boolean
  #probe: CredentialProbe | undefined
  #timeoutMs: number
  #verdicts = new Map<string, Verdict>()
  #inFlight = new Map<string, Promise<void>>()
  #warned = new Set<string>()
  #profiles: () => readonly ResolvedProfile[]
  #warn: (message: string) => void
  /** The engines whose profiles are probed: the primary engine's (the spec's probe), or codex's for readiness. */
  readonly engines: readonly string[]

  constructor(option: boolean | CheckCredentialsOptions | undefined, profiles: () => readonly ResolvedProfile[], warn: (message: string) => void, defaultProbe?: CredentialProbe, engines: readonly string[] = ['cli_primary']) {
    this.enabled = option !== undefined && option !== false
    this.engines = engines
    const settings = typeof option === 'object' ? option : {}
    this.#probe = settings.probe ?? defaultProbe
    this.#timeoutMs = settings.timeoutMs ?? AVAILABILITY_DEFAULTS.timeoutMs
    this.#profiles = profiles
    this.#warn = warn
  }

  /** Fire-and-forget after listen: probes every profile of its engines at once. */
  preflight(): void {
    if (!this.enabled || !this.#probe) return
    for (const profile of this.#profiles()) if (this.engines.includes(profile.engine)) void this.#refresh(profile)
  }

  /** Resolves when every probe now running has answered (tests and orderly boots). */
  async settled(): Promise<void> {
    await Promise.all([...this.#inFlight.values()])
  }

  /** The cached verdict (refreshed in the background when stale); undefined when unprobed. */
  verdict(profile: ResolvedProfile): ProbeResult | undefined {
    if (!this.enabled) return undefined
    const verdict = this.#verdicts.get(profile.name)
    if (verdict && Date.now() - verdict.at > AVAILABILITY_DEFAULTS.ttlMs) void this.#refresh(profile)
    return verdict
  }

  #refresh(profile: ResolvedProfile): Promise<void> {
    const running = this.#inFlight.get(profile.name)
    if (running || !this.#probe) return running ?? Promise.resolve()
    const probe = this.#probe
    const done = (async () => {
      let result: ProbeResult
      let timer: ReturnType<typeof setTimeout> | undefined
      try {
        result = await Promise.race([
          probe(profile),
          new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`probe timed out after ${this.#timeoutMs} ms`)), this.#timeoutMs) }),
        ])
      } catch (err) {
        // A probe that cannot answer is no verdict: the profile stays allowed.
        this.#warnOnce(profile.name, `could not check the credentials of profile ${profile.name}: ${(err as Error).message}`)
        return
      } finally {
        clearTimeout(timer)
        this.#inFlight.delete(profile.name)
      }
      this.#verdicts.set(profile.name, { available: result.available === true, reason: result.reason, at: Date.now() })
      if (!result.available) this.#warnOnce(profile.name, `profile ${profile.name} is unavailable: ${result.reason ?? 'not logged in'}`)
    })()
    this.#inFlight.set(profile.name, done)
    return done
  }

  #warnOnce(name: string, message: string): void {
    if (this.#warned.has(name)) return
    this.#warned.add(name)
    try { this.#warn(message) } catch { /* a warning never fails the server */ }
  }
}
