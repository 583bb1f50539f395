/**
 * CORS (authentication.7): an exact-origin allowlist, preflights answered before authentication,
 * and never `Access-Control-Allow-Credentials`. WebSocket upgrades are exempt.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'

const ALLOW_METHODS = 'GET, HEAD, POST, PATCH, PUT, DELETE'
const ALLOW_HEADERS = 'authorization, content-type'
const MAX_AGE = '600'

/** Returns true when the request was a preflight and has been answered. */
export function applyCors(req: IncomingMessage, res: ServerResponse, origins: ReadonlySet<string> | undefined): boolean {
  const origin = req.headers.origin
  const allowed = origins !== undefined && typeof origin === 'string' && origins.has(origin)
  if (allowed) {
    res.setHeader('access-control-allow-origin', origin)
    res.setHeader('vary', 'origin')
  }
  if (req.method !== 'OPTIONS' || req.headers['access-control-request-method'] === undefined) return false
  if (!allowed) {
    res.statusCode = 403
    res.setHeader('content-length', 0)
    res.end()
    return true
  }
  res.statusCode = 204
  res.setHeader('access-control-allow-methods', ALLOW_METHODS)
  res.setHeader('access-control-allow-headers', ALLOW_HEADERS)
  res.setHeader('access-control-max-age', MAX_AGE)
  if (req.headers['access-control-request-private-network'] === 'true') {
    res.setHeader('access-control-allow-private-network', 'true')
  }
  res.end()
  return true
}
