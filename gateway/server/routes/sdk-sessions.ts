/**
 * `GET /sdk-sessions?profile=&dir=&limit=&offset=`: the engine's own stored sessions, to resume
 * one. Operators only (a scoped principal gets the same 404 as everywhere); `allowedCwdRoots`
 * bounds both the `dir` asked for and, without one, which sessions are listed.
 */
import { resolve } from 'node:path'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ListSdkSessionsResponse } from '../../protocol/index.ts'
import type { GatewayContext } from '../context.ts'
import { canonical, isInside, malformedPath } from '../../host/containment.ts'
import { resolveProfile } from '../create-request.ts'
import { sendJson, sendRefusal } from '../http.ts'
import type { Principal } from '../principal.ts'
import { isRefusal, METHOD_NOT_ALLOWED, NOT_FOUND, refuse } from '../refusal.ts'

export async function handleSdkSessions(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse, principal: Principal, rest: string[]): Promise<void> {
  if (rest.length || !ctx.visibility.isOperator(principal)) return sendRefusal(res, NOT_FOUND)
  if (req.method !== 'GET') return sendRefusal(res, METHOD_NOT_ALLOWED)
  const query = new URL(req.url ?? '/', 'http://gateway.invalid').searchParams
  const requested = query.get('profile') ?? undefined
  await ctx.catalog.refreshFor(requested)
  const profile = resolveProfile(requested, principal, ctx.catalog)
  if (isRefusal(profile)) return sendRefusal(res, profile)
  // An injected lister wins for the primary engine only (server-configuration: listSdkSessions).
  const injected = profile.engine === 'cli_primary' ? ctx.options.listSdkSessions : undefined
  const lister = injected ?? ctx.options.engines?.[profile.engine as 'cli_primary']?.listSessions
  if (!lister) return sendRefusal(res, refuse('invalid_request', `engine ${profile.engine} does not list stored sessions`))
  const limit = count(query.get('limit'))
  const offset = count(query.get('offset')) ?? 0
  if (limit === null || offset === null) return sendRefusal(res, refuse('invalid_request', 'limit and offset must be non-negative integers'))
  const roots = ctx.createPolicy.cwdRoots
  let dir = query.get('dir') ?? undefined
  if (dir !== undefined) {
    const malformed = malformedPath(dir)
    if (malformed) return sendRefusal(res, refuse('invalid_request', `dir: ${malformed}`))
    dir = (await canonical(dir)) ?? resolve(dir)
    if (roots && !roots.some((root) => isInside(dir!, root))) return sendRefusal(res, refuse('cwd_outside_roots', 'dir is outside the allowed roots'))
  }
  let sessions
  try {
    sessions = await lister(profile, { dir })
  } catch (err) {
    return sendRefusal(res, refuse('engine_failed', `the engine could not list its sessions: ${(err as Error).message}`))
  }
  if (!dir && roots) sessions = sessions.filter((s) => typeof s.cwd === 'string' && roots.some((root) => isInside(s.cwd!, root)))
  sendJson(res, 200, { sdkSessions: sessions.slice(offset, limit === undefined ? undefined : offset + limit) } satisfies ListSdkSessionsResponse)
}

/** undefined when absent, null when malformed. */
function count(value: string | null): number | undefined | null {
  if (value === null) return undefined
  return /^\d{1,9}$/.test(value) ? Number(value) : null
}
