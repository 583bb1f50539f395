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
