/**
 * `POST /profiles`, `PATCH /profiles/:name`, `DELETE /profiles/:name` (profiles.*, errors.4-6):
 * a `profileStore` is needed (else 404) and `canManageProfiles` (else 403); declared profiles are
 * read-only (403); a create that startup would refuse is 400; a taken name 409. A managed
 * profile's credential directory must lie in `allowedConfigDirRoots`; without those roots,
 * managed profiles are provider profiles only.
 */
import { realpath } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { validateProfiles, type ResolvedProfile } from '../../host/profiles.ts'
import type { ProfileConfig } from '../../protocol/index.ts'
import type { GatewayContext } from '../context.ts'
import { isInside } from '../../host/containment.ts'
import { readJsonBody, sendJson, sendRefusal } from '../http.ts'
import type { Principal } from '../principal.ts'
import { refuse, type Refusal } from '../refusal.ts'

export const MANAGEMENT_OFF = refuse('not_found', 'profile management is not enabled on this server')

export async function manageProfiles(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse, principal: Principal, name: string | undefined): Promise<void> {
  const store = ctx.options.profileStore
  if (!store) return sendRefusal(res, MANAGEMENT_OFF)
  if (principal.canManageProfiles !== true) return sendRefusal(res, refuse('forbidden', 'not allowed to manage profiles'))
  // A fleet's shared store: this process answers for the name as any process last wrote it (errors.6).
  if (name !== undefined) await ctx.catalog.refresh(name)
  if (name !== undefined && ctx.catalog.isDeclared(name)) return sendRefusal(res, refuse('forbidden', `profile ${name} is declared by the server and cannot be changed`))
  if (name !== undefined && !ctx.catalog.isManaged(name)) return sendRefusal(res, refuse('profile_not_found', 'profile not found'))
  if (req.method === 'DELETE') {
    await store.delete(name!)
    ctx.catalog.removeManaged(name!)
    res.statusCode = 204
    return void res.end()
  }
  const body = await readJsonBody(req, ctx.resolved.maxBodyBytes)
  if (!body.ok) return sendRefusal(res, body.refusal)
  if (typeof body.value !== 'object' || body.value === null || Array.isArray(body.value)) return sendRefusal(res, refuse('invalid_request', 'request body must be a JSON object'))
  const patch = body.value as ProfileConfig
  // PATCH merges into the stored profile; the name comes from the route, a body name is ignored.
  const candidate: ProfileConfig = name === undefined ? patch : { ...ctx.catalog.get(name), ...patch, name }
  if (name === undefined && typeof candidate.name === 'string') await ctx.catalog.refresh(candidate.name)
  if (name === undefined && ctx.catalog.get(String(candidate.name))) return sendRefusal(res, taken(candidate.name))
  const checked = await check(ctx, candidate)
  if ('code' in checked) return sendRefusal(res, checked)
  // A shared store creates atomically: of two processes creating one name at once, one gets 409.
  if (name === undefined && store.create) {
    if (!(await store.create(stripResolved(checked)))) {
      await ctx.catalog.refresh(checked.name)
      return sendRefusal(res, taken(checked.name))
    }
  } else if (name !== undefined && store.update) {
    // Deleted through another process since this one read it: not recreated by the PATCH.
    if (!(await store.update(stripResolved(checked)))) {
      await ctx.catalog.refresh(name)
      return sendRefusal(res, refuse('profile_not_found', 'profile not found'))
    }
  } else {
    await store.save(stripResolved(checked))
  }
  ctx.catalog.setManaged(checked)
  // Protocol 7 answers a create with 200 too (the spec says only "created profile"; docs/compatibility.md).
  sendJson(res, 200, { profile: ctx.catalog.info(checked) })
}

async function check(ctx: GatewayContext, candidate: ProfileConfig): Promise<ResolvedProfile | Refusal> {
  let resolved: ResolvedProfile
  try {
    ;[resolved] = validateProfiles([candidate], typeof ctx.options.createEngineRunner === 'function')
  } catch (err) {
    return refuse('invalid_request', (err as Error).message)
  }
  if (resolved.codexHome !== undefined && resolved.engine !== 'cli_secondary') return refuse('invalid_request', 'codexHome is for cli_secondary profiles only')
  if (resolved.engine === 'provider') return resolved
  const roots = ctx.configDirRoots
  if (!roots) return refuse('forbidden', 'managed profiles are provider profiles only on this server (allowedConfigDirRoots is not set)')
  const dir = resolved.configDir ?? resolved.codexHome
  if (dir === undefined) return resolved // a profile with no directory of its own is exempt
  const real = await realpath(dir).catch(() => dir)
  if (!roots.some((root) => isInside(real, root))) return refuse('forbidden', 'the credential directory is outside allowedConfigDirRoots')
  return resolved
}

function taken(name: unknown): Refusal {
  return refuse('conflict', `profile name taken: ${String(name)}`)
}

function stripResolved(profile: ResolvedProfile): ProfileConfig {
  return { ...profile }
}
