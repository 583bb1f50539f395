/**
 * The HTTP request path. Order per request: CORS and preflight (before auth), health probes,
 * fallback outside basePath (no auth), authentication (401), then the route of the first path
 * segment under basePath.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { forwardStateOf, type ForwardState } from '../fleet/forward-auth.ts'
import { applyCors } from './cors.ts'
import { createHealthRoutes } from './health.ts'
import { sendRefusal } from './http.ts'
import { answerMetrics } from './metrics-wiring.ts'
import { AUTH_HOOK_FAILED, authRefusal, type Principal } from './principal.ts'
import { isRefusal, NOT_FOUND, refuse, SHUTTING_DOWN, UNAUTHORIZED } from './refusal.ts'
import { pathOf, splitPath } from './request-path.ts'
import { handleExecutions } from './routes/executions.ts'
import { handleHostFiles } from './routes/host-files.ts'
import { handleJobs } from './routes/jobs.ts'
import { handleProfiles } from './routes/profiles.ts'
import { handleSdkSessions } from './routes/sdk-sessions.ts'
import { handleSessionSubroute } from './routes/session-subroutes.ts'
import { handleSession, handleSessionCollection } from './routes/sessions.ts'
import { handleUnconfigured } from './routes/unconfigured.ts'
import type { ServerServices } from './services.ts'

export type RequestRouter = (req: IncomingMessage, res: ServerResponse) => Promise<void>

const MALFORMED_PATH = refuse('invalid_request', 'malformed URL path')

/** `draining` says whether a graceful shutdown has begun (readyz answers 503, nothing new starts). */
export function createRequestRouter(services: ServerServices, draining: () => boolean): RequestRouter {
  const { options, resolved, context, principalOf } = services
  const { basePath } = resolved
  const handleHealth = options.health ? createHealthRoutes(options.health, {
    logins: [services.availability, services.codexLogins],
    profiles: () => services.catalog.profiles,
    queueReachable: context.queue ? () => context.queue!.stats() : undefined,
    draining,
  }) : undefined
  const routeFamily = createFamilyRouter(services)

  return async function route(req, res) {
    if (applyCors(req, res, resolved.corsOrigins)) return
    const path = pathOf(req.url)
    if (handleHealth) {
      const answered = handleHealth(req, res, path)
      if (answered === true || (answered !== false && (await answered))) return
    }
    if (basePath && path !== basePath && !path.startsWith(`${basePath}/`)) {
      if (options.fallback) return options.fallback(req, res)
      return sendRefusal(res, NOT_FOUND)
    }
    // A forward marker is checked before anything else: a forged one is refused whatever the path.
    const forward = forwardStateOf(req, services.fleet?.fleet.secret)
    if (isRefusal(forward)) return sendRefusal(res, forward)
    const pending = principalOf(req)
    const principal = pending instanceof Promise ? await pending : pending
    if (principal === AUTH_HOOK_FAILED || !principal) return sendRefusal(res, authRefusal(principal) ?? UNAUTHORIZED)
    const segments = splitPath(path.slice(basePath.length))
    if (!segments) return sendRefusal(res, MALFORMED_PATH)
    const [family, ...rest] = segments
    // Draining: nothing new starts; existing sessions stay readable while their turns finish.
    if (draining() && req.method === 'POST' && rest.length === 0 && (family === 'sessions' || family === 'jobs')) return sendRefusal(res, SHUTTING_DOWN)
    return routeFamily(req, res, principal, family, rest, forward)
  }
}

/** One resource family per first segment (DESIGN.md §2: routes/ holds one file per family). */
function createFamilyRouter({ context, metrics, metricsListener, fleet }: ServerServices) {
  const routeSessions = async (req: IncomingMessage, res: ServerResponse, principal: Principal, rest: string[], forward: Exclude<ForwardState, object>): Promise<void> => {
    // Fleet: the one chokepoint says whether this process serves the session (fleet/session-locator.ts).
    if (fleet && rest.length === 0 && req.method === 'GET') return fleet.fleet.answerList(req, res, principal, forward)
    if (fleet && rest.length > 0 && (await fleet.fleet.answerSession(req, res, principal, rest[0], forward))) return
    if (rest.length === 0) return handleSessionCollection(context, req, res, principal)
    if (rest.length === 1) return handleSession(context, req, res, principal, rest[0])
    return handleSessionSubroute(context, req, res, principal, rest[0], rest.slice(1))
  }
  return function routeFamily(req: IncomingMessage, res: ServerResponse, principal: Principal, family: string | undefined, rest: string[],
    forward: Exclude<ForwardState, object>): Promise<void> | void {
    if (family === 'sessions') return routeSessions(req, res, principal, rest, forward)
    if (family === 'metrics' && rest.length === 0 && metrics && !metricsListener) return answerMetrics(context, metrics, req.method, res, principal)
    if (family === 'profiles') return handleProfiles(context, req, res, principal, rest)
    if (family === 'executions') return handleExecutions(context, req, res, principal, rest)
    if (family === 'sdk-sessions') return handleSdkSessions(context, req, res, principal, rest)
    if (family === 'fs') return handleHostFiles(context, req, res, principal, rest)
    if ((family === 'jobs' || family === 'queue') && context.queue) return handleJobs(context, context.queue, req, res, principal, family, rest)
    return handleUnconfigured(family ?? '', req, res, rest)
  }
}
