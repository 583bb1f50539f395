/**
 * The one validator of a create request, shared by sessions and (later) jobs (DESIGN.md §7).
 * Order follows protocol 7 so the same request fails with the same status: scope, bypass
 * policy, profile, cwd, then what the engine's capability record forswears.
 */
import { realpath } from 'node:fs/promises'
import { isAbsolute } from 'node:path'
import {
  ENGINE_CAPABILITIES, PROVIDER_GRANTS,
  type EngineCapabilities, type PermissionMode, type Scope,
} from '../protocol/index.ts'
import type { ProfileAvailability } from '../host/availability.ts'
import { isInside } from '../host/containment.ts'
import { staticModels, type ProfileCatalog, type ResolvedProfile } from '../host/profiles.ts'
import { createSessionSchema, describeIssue, KNOWN_PERMISSION_MODES, type ParsedCreateSession } from './create-request-schema.ts'
import type { Principal } from './principal.ts'
import { isRefusal, refuse, type Refusal } from './refusal.ts'
import { stampScope } from './scope-stamp.ts'

export interface CreatePolicy {
  catalog: ProfileCatalog
  disableBypassPermissions: boolean
  /** Canonical (realpath) roots, or undefined when off. */
  cwdRoots: readonly string[] | undefined
  /** Set when `requireAvailableProfile` is on: a definite "unavailable" blocks with 503. */
  availability?: ProfileAvailability
}

export interface ValidCreate {
  request: ParsedCreateSession
  profile: ResolvedProfile
  scope: Scope | undefined
  permissionMode: PermissionMode
  canBypassPermissions: boolean
  cwd: string | undefined
}

/** Request fields and the capability-record key that must be true for each (createsessionrequest.3). */
const FORSWEARABLE: ReadonlyArray<[keyof ParsedCreateSession, keyof EngineCapabilities]> = [
  ['mcpServers', 'sessionMcpServers'],
  ['maxTurns', 'budgets'],
  ['maxBudgetUsd', 'budgets'],
  ['settingSources', 'settingSources'],
  ['reasoningEffort', 'reasoningEffort'],
  ['allowedTools', 'toolFilters'],
  ['disallowedTools', 'toolFilters'],
  ['resume', 'resume'],
  ['forkSession', 'forkSession'],
  ['capabilities', 'grants'],
]

export async function validateCreate(body: unknown, principal: Principal, policy: CreatePolicy): Promise<ValidCreate | Refusal> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return refuse('invalid_request', 'request body must be a JSON object')
  }
  const parsed = createSessionSchema().safeParse(body)
  if (!parsed.success) return refuse('invalid_request', describeIssue(parsed.error))
  const request = parsed.data

  const scope = stampScope(principal, request.scope)
  if (isRefusal(scope)) return scope
  if (request.permissionMode === 'bypassPermissions' && policy.disableBypassPermissions) {
    return refuse('bypass_disabled', 'bypassPermissions is disabled on this server (disableBypassPermissions)')
  }
  // A fleet's shared store: the named profile as any process last wrote it (profiles.6).
  await policy.catalog.refreshFor(typeof request.profile === 'string' ? request.profile : undefined)
  const profile = resolveProfile(request.profile, principal, policy.catalog)
  if (isRefusal(profile)) return profile
  const verdict = policy.availability?.verdict(profile)
  if (verdict && !verdict.available) {
    return refuse('profile_unavailable', `profile '${profile.name}' is unavailable: ${verdict.reason ?? 'not logged in'}`)
  }
  const record = ENGINE_CAPABILITIES[profile.engine]

  const cwd = await checkCwd(request.cwd, record, policy.cwdRoots)
  if (isRefusal(cwd)) return cwd

  if (profile.engine === 'provider' && request.mcpServers !== undefined) {
    return refuse('field_not_supported', 'a provider session cannot bring its own mcpServers; the profile names them')
  }
  for (const [field, key] of FORSWEARABLE) {
    if (request[field] !== undefined && record[key] !== true) {
      return refuse('field_not_supported', `${field} is not supported by engine ${profile.engine}`)
    }
  }
  const mode = request.permissionMode ?? profile.defaults?.permissionMode ?? 'default'
  if (!KNOWN_PERMISSION_MODES.has(mode) || !record.permissionModes.includes(mode as PermissionMode)) {
    return refuse('permission_mode_not_supported', `permission mode '${mode}' is not supported by engine ${profile.engine} (supported: ${record.permissionModes.join(', ')})`)
  }
  const grants = checkGrants(request.capabilities, profile)
  if (grants) return grants
  const model = request.model ?? profile.defaults?.model
  const catalog = staticModels(profile).map((m) => m.value)
  if (model !== undefined && catalog.length && !catalog.includes(model)) {
    return refuse('model_not_supported', `model '${model}' is not offered by profile ${profile.name} (available: ${catalog.join(', ')})`)
  }

  return {
    request,
    profile,
    scope,
    permissionMode: mode as PermissionMode,
    canBypassPermissions: canBypass(request, profile, mode, policy.disableBypassPermissions),
    cwd,
  }
}

export function resolveProfile(requested: unknown, principal: Principal, catalog: ProfileCatalog): ResolvedProfile | Refusal {
  if (requested !== undefined && typeof requested !== 'string') return refuse('invalid_request', 'profile must be a string')
  const { profiles } = catalog
  let profile: ResolvedProfile | undefined
  if (requested === undefined) {
    if (profiles.length === 0) return refuse('profile_required', 'no profiles are configured on this server')
    profile = profiles.length === 1 ? profiles[0] : catalog.get('default')
    if (!profile) {
      return refuse('profile_required', `profile is required (available: ${profiles.map((p) => p.name).join(', ')})`)
    }
  } else {
    profile = catalog.get(requested)
    if (!profile) return refuse('unknown_profile', `unknown profile: ${requested}`)
  }
  if (principal.allowedProfiles && !principal.allowedProfiles.includes(profile.name)) {
    return refuse('profile_not_allowed', `profile not allowed: ${profile.name}`)
  }
  return profile
}

async function checkCwd(cwd: string | undefined, record: EngineCapabilities, roots: readonly string[] | undefined): Promise<string | undefined | Refusal> {
  if (!record.hostCwd) return cwd // the provider engine has no host directory; roots are not its boundary
  if (cwd === undefined) return refuse('cwd_required', 'cwd is required for this engine')
  if (!isAbsolute(cwd)) return refuse('invalid_request', 'cwd must be an absolute path')
  let real: string
  try {
    real = await realpath(cwd)
  } catch {
    return roots ? refuse('cwd_outside_roots', 'cwd is outside the allowed roots') : refuse('invalid_request', 'cwd does not exist')
  }
  if (roots && !roots.some((root) => isInside(real, root))) return refuse('cwd_outside_roots', 'cwd is outside the allowed roots')
  return real
}


function checkGrants(requested: string[] | undefined, profile: ResolvedProfile): Refusal | undefined {
  if (requested === undefined) return undefined
  const granted: readonly string[] | undefined = profile.session?.capabilities
  for (const name of requested) {
    const known = (PROVIDER_GRANTS as readonly string[]).includes(name)
    if (!known || (granted !== undefined && !granted.includes(name))) {
      return refuse('capability_not_granted', `capability '${name}' is not granted by profile ${profile.name}`)
    }
  }
  return undefined
}

function canBypass(request: ParsedCreateSession, profile: ResolvedProfile, mode: string, disabled: boolean): boolean {
  if (disabled) return false // and allowDangerouslySkipPermissions is stripped (server-configuration)
  if (profile.engine === 'provider') return true
  return request.allowDangerouslySkipPermissions === true || mode === 'bypassPermissions'
}
