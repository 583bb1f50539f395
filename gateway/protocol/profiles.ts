/** Profile shapes (profile.*). No credential value ever appears here. */
import type { EngineCapabilities, EngineName, PermissionMode, ProviderGrant } from './capabilities.ts'
import type { ModelOption } from './events.ts'

export interface ProviderSettings {
  id: string
  model: string
  models?: string[]
  /** Names an environment variable; never a key. */
  apiKeyEnv?: string
  baseURL?: string
  /**
   * The client of OpenAI-compatible ids (not 'openai' / 'anthropic'): 'lean' (default) streams
   * with the gateway's lean model, 'ai-sdk' with `@ai-sdk/openai-compatible`'s.
   */
  client?: 'lean' | 'ai-sdk'
}

export interface ProfileSessionGrants {
  capabilities?: ProviderGrant[]
  mcpServers?: string[]
  instructions?: string
}

/**
 * A profile name is the route key (profile.1) and a metrics label value: bounded in length and
 * plain in characters, so a tenant that manages profiles cannot mint unbounded label values or
 * names that need escaping in a path. Checked for declared and managed profiles alike.
 */
export const PROFILE_NAME_MAX_LENGTH = 64
export const PROFILE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/

/** Why `name` cannot be a profile name, or undefined when it can. */
export function profileNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || !name) return 'a profile needs a non-empty name'
  if (name.length > PROFILE_NAME_MAX_LENGTH) return `profile name is ${name.length} characters; the limit is ${PROFILE_NAME_MAX_LENGTH}`
  if (!PROFILE_NAME_PATTERN.test(name)) return `profile name ${JSON.stringify(name)} may hold only letters, digits, '.', '_' and '-', and must start with a letter or digit`
  return undefined
}

export interface ProfileConfig {
  name: string
  engine?: EngineName
  configDir?: string
  codexHome?: string
  description?: string
  provider?: ProviderSettings
  defaults?: { model?: string; permissionMode?: PermissionMode }
  session?: ProfileSessionGrants
}

export interface ProfileInfo {
  name: string
  engine: EngineName
  configDir?: string
  codexHome?: string
  description?: string
  capabilities: EngineCapabilities
  models: ModelOption[]
  defaultModel?: string
  managed: boolean
  available?: boolean
  unavailableReason?: string
  defaults?: { model?: string; permissionMode?: PermissionMode }
  session?: ProfileSessionGrants
  provider?: { id: string; model: string; models: string[]; apiKeyEnv?: string }
}

export interface ListProfilesResponse {
  profiles: ProfileInfo[]
  canManage: boolean
}

export interface GetProfileResponse {
  profile: ProfileInfo
  config?: Record<string, unknown>
}
