/**
 * Profiles: the declared set, auto-detection, construction-time validation, resolution of a
 * request's profile, and the ProfileInfo view (profile.*, profiles.*).
 */
import { existsSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import {
  ENGINE_CAPABILITIES, isEngineName, profileNameProblem, type EngineName, type ModelOption, type ProfileConfig, type ProfileInfo,
} from '../protocol/index.ts'

export interface ResolvedProfile extends ProfileConfig {
  engine: EngineName
}

/** Throws with a clear message for every profile the spec says must fail construction (errors.13). */
export function validateProfiles(profiles: readonly ProfileConfig[], hasEngineRunnerHook: boolean): ResolvedProfile[] {
  const seen = new Set<string>()
  return profiles.map((profile, index) => {
    const where = `profiles[${index}]`
    const nameProblem = profileNameProblem(profile?.name)
    if (nameProblem) throw new Error(`${where}: ${nameProblem}`)
    if (seen.has(profile.name)) throw new Error(`${where}: duplicate profile name '${profile.name}'`)
    seen.add(profile.name)
    const engine = profile.engine ?? 'cli_primary'
    if (!isEngineName(engine)) throw new Error(`profile '${profile.name}': unknown engine '${String(engine)}'`)
    if (engine === 'provider') {
      if (!hasEngineRunnerHook) {
        throw new Error(`profile '${profile.name}' uses the provider engine, which needs the createEngineRunner option`)
      }
      if (!profile.provider || typeof profile.provider.model !== 'string') {
        throw new Error(`profile '${profile.name}': a provider profile needs provider.{id, model}`)
      }
      const client: unknown = profile.provider.client
      if (client !== undefined && client !== 'lean' && client !== 'ai-sdk') {
        throw new Error(`profile '${profile.name}': provider.client must be 'lean' or 'ai-sdk'`)
      }
    }
    if (profile.configDir !== undefined) {
      if (engine !== 'cli_primary') throw new Error(`profile '${profile.name}': configDir is for cli_primary profiles only`)
      if (!isDirectory(profile.configDir)) {
        throw new Error(`profile '${profile.name}': configDir '${profile.configDir}' does not exist or is not a directory`)
      }
    }
    if (profile.codexHome !== undefined && engine !== 'cli_secondary') throw new Error(`profile '${profile.name}': codexHome is for cli_secondary profiles only`)
    const mode = profile.defaults?.permissionMode
    if (mode !== undefined && !ENGINE_CAPABILITIES[engine].permissionModes.includes(mode)) {
      throw new Error(`profile '${profile.name}': default permissionMode '${mode}' is not supported by engine ${engine}`)
    }
    return { ...profile, engine }
  })
}

/**
 * Auto-detection when `profiles` is unset (server-configuration: profiles): `default` from the
 * primary engine's config directory and `codex` from the secondary engine's home, each only when
 * the directory exists. The detected `default` is never pinned to a configDir (authentication.8).
 */
export function detectProfiles(env: NodeJS.ProcessEnv = process.env): ProfileConfig[] {
  const detected: ProfileConfig[] = []
  const claudeDir = env.CLAUDE_CONFIG_DIR || join(homedir(), '.claude')
  if (isDirectory(claudeDir)) detected.push({ name: 'default', engine: 'cli_primary' })
  const codexHome = env.CODEX_HOME || join(homedir(), '.codex')
  if (isDirectory(codexHome)) detected.push({ name: 'codex', engine: 'cli_secondary' })
  return detected
}

function isDirectory(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isDirectory()
  } catch {
    return false
  }
}

/** The static model catalog, served from the first request (before any session has run). */
export function staticModels(profile: ResolvedProfile): ModelOption[] {
  if (profile.engine !== 'provider' || !profile.provider) return []
  const models = profile.provider.models?.length ? profile.provider.models : [profile.provider.model]
  return models.map((value) => ({ value }))
}

/** Reads managed profiles through to a store other processes write too. */
export interface ProfileFollower {
  refresh(name: string): Promise<void>
  refreshAll(): Promise<void>
}

/** Learned default models, keyed by profile, fed by sessions' `capabilities` events. */
export class ProfileCatalog {
  #declared: readonly ResolvedProfile[]
  #managed = new Map<string, ResolvedProfile>()
  #all: readonly ResolvedProfile[]
  #byName: Map<string, ResolvedProfile>
  #learnedDefault = new Map<string, string>()
  #infoCache = new Map<string, ProfileInfo>()
  #removed: Array<(name: string) => void> = []
  #follower: ProfileFollower | undefined

  constructor(profiles: readonly ResolvedProfile[]) {
    this.#declared = profiles
    this.#all = profiles
    this.#byName = new Map(profiles.map((p) => [p.name, p]))
  }

  /** Declared profiles first, then managed ones (store-backed). */
  get profiles(): readonly ResolvedProfile[] {
    return this.#all
  }

  isManaged(name: string): boolean {
    return this.#managed.has(name)
  }

  isDeclared(name: string): boolean {
    return this.#declared.some((p) => p.name === name)
  }

  setManaged(profile: ResolvedProfile): void {
    this.#managed.set(profile.name, profile)
    this.#rebuild(profile.name)
  }

  removeManaged(name: string): void {
    this.#managed.delete(name)
    // A profile created later under the same name starts fresh.
    this.#learnedDefault.delete(name)
    this.#rebuild(name)
    for (const listener of this.#removed) listener(name)
  }

  /** A store shared by a fleet: managed names are read through to it before use (shared-profiles.ts). */
  follow(follower: ProfileFollower): void {
    this.#follower = follower
  }

  /** Brings a managed name up to date with a shared store (no-op without one, or for a declared name). */
  async refresh(name: string): Promise<void> {
    if (this.#follower && !this.isDeclared(name)) await this.#follower.refresh(name)
  }

  /**
   * Brings what a create naming `requested` resolves to up to date with a shared store. With no
   * name, the answer is the only profile or `default`: managed ones matter unless the declared
   * ones settle it (two or more, one of them `default`), so only then is the store not read.
   */
  async refreshFor(requested: string | undefined): Promise<void> {
    if (requested !== undefined) return this.refresh(requested)
    if (this.#declared.length >= 2 && this.isDeclared('default')) return
    return this.refreshAll()
  }

  /** Brings every managed profile up to date with a shared store (no-op without one). */
  async refreshAll(): Promise<void> {
    if (this.#follower) await this.#follower.refreshAll()
  }

  /** Called with the name of each managed profile deleted (metrics drop its series). */
  onRemoved(listener: (name: string) => void): void {
    this.#removed.push(listener)
  }

  #rebuild(changed: string): void {
    this.#all = [...this.#declared, ...this.#managed.values()]
    this.#byName = new Map(this.#all.map((p) => [p.name, p]))
    this.#infoCache.delete(changed)
  }

  get(name: string): ResolvedProfile | undefined {
    return this.#byName.get(name)
  }

  learnDefaultModel(name: string, model: string): void {
    if (this.#learnedDefault.get(name) === model) return
    this.#learnedDefault.set(name, model)
    this.#infoCache.delete(name)
  }

  info(profile: ResolvedProfile): ProfileInfo {
    const cached = this.#infoCache.get(profile.name)
    if (cached) return cached
    const info: ProfileInfo = {
      name: profile.name,
      engine: profile.engine,
      capabilities: ENGINE_CAPABILITIES[profile.engine],
      models: staticModels(profile),
      managed: this.#managed.has(profile.name),
    }
    if (profile.description !== undefined) info.description = profile.description
    // The profile's own directories, as protocol 7 serves them: paths, never their contents (profile.9).
    if (profile.configDir !== undefined) info.configDir = profile.configDir
    if (profile.codexHome !== undefined) info.codexHome = profile.codexHome
    const learned = this.#learnedDefault.get(profile.name) ?? profile.provider?.model
    if (learned !== undefined) info.defaultModel = learned
    if (profile.defaults) info.defaults = { ...profile.defaults }
    if (profile.session) info.session = structuredClone(profile.session)
    if (profile.provider) {
      const { id, model, models, apiKeyEnv } = profile.provider
      info.provider = { id, model, models: models?.length ? [...models] : [model] }
      if (apiKeyEnv !== undefined) info.provider.apiKeyEnv = apiKeyEnv // a variable name, never its value
    }
    this.#infoCache.set(profile.name, info)
    return info
  }
}
