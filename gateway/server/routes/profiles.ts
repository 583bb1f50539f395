/** Read-only profile routes (profiles.*); management needs a profileStore (a later issue). */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ResolvedProfile } from '../../host/profiles.ts'
import type { ProfileInfo } from '../../protocol/index.ts'
import type { GatewayContext } from '../context.ts'
import { manageProfiles } from './profile-management.ts'
import { configSnapshot } from '../../host/profile-snapshot.ts'
import { sendJson, sendRefusal } from '../http.ts'
import type { Principal } from '../principal.ts'
import { METHOD_NOT_ALLOWED, refuse } from '../refusal.ts'


export async function handleProfiles(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse, principal: Principal, rest: string[]): Promise<void> {
  const { catalog } = ctx
  if (rest.length === 0) {
    if (req.method === 'POST') return manageProfiles(ctx, req, res, principal, undefined)
    if (req.method !== 'GET') return sendRefusal(res, METHOD_NOT_ALLOWED)
    await catalog.refreshAll()
    const allowed = principal.allowedProfiles
    const profiles = catalog.profiles.filter((p) => !allowed || allowed.includes(p.name)).map((p) => infoOf(ctx, p))
    // canManage needs both a store and the principal's flag (authentication.6).
    return sendJson(res, 200, { profiles, canManage: ctx.options.profileStore !== undefined && principal.canManageProfiles === true })
  }
  if (rest.length !== 1) return sendRefusal(res, refuse('profile_not_found', 'profile not found'))
  if (req.method === 'PATCH' || req.method === 'DELETE') return manageProfiles(ctx, req, res, principal, rest[0])
  if (req.method !== 'GET') return sendRefusal(res, METHOD_NOT_ALLOWED)
  await catalog.refresh(rest[0])
  const profile = catalog.get(rest[0])
  if (!profile) return sendRefusal(res, refuse('profile_not_found', 'profile not found'))
  if (principal.allowedProfiles && !principal.allowedProfiles.includes(profile.name)) {
    return sendRefusal(res, refuse('profile_not_allowed', `profile not allowed: ${profile.name}`))
  }
  // The config snapshot is for operators only: it describes what a profile's engine loads (engine-facts §7).
  const config = ctx.visibility.isOperator(principal) ? await configSnapshot(profile) : undefined
  sendJson(res, 200, { profile: infoOf(ctx, profile), ...(config ? { config } : {}) })
}

/** ProfileInfo plus `available`/`unavailableReason` once credential checking has a verdict. */
function infoOf(ctx: GatewayContext, profile: ResolvedProfile): ProfileInfo {
  const info = ctx.catalog.info(profile)
  const verdict = ctx.availability.verdict(profile)
  if (!verdict) return info
  return { ...info, available: verdict.available, ...(verdict.available || !verdict.reason ? {} : { unavailableReason: verdict.reason }) }
}
