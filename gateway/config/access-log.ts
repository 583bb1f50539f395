/**
 * One access line per HTTP request and per WebSocket connection: method, route pattern (ids
 * replaced, so lines group and no id-shaped secret leaks through a path), status, duration,
 * bytes, principal id (never a token), session id, and a request id returned as `x-request-id`.
 * A caller's (or a proxy's) `x-request-id` is kept when it is a plausible id, so one id follows a
 * request through every hop; anything else (too long, control characters, spaces) is replaced by
 * a fresh UUID rather than written into a header or a log line.
 */
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, Server } from 'node:http'
import type { Socket } from 'node:net'
import type { Logger } from 'pino'
import type { Authenticate, Principal } from '../server/principal.ts'
import { flatLinesLogger } from './logger.ts'

const principals = new WeakMap<IncomingMessage, string>()

/** Wraps `authenticate` so the access line can name who called; the principal's `id`/`name` only. */
export function recordingPrincipal(authenticate: Authenticate | undefined): Authenticate | undefined {
  if (!authenticate) return undefined
  const remember = (req: IncomingMessage, principal: unknown) => {
    if (principal && typeof principal === 'object') {
      const p = principal as Principal
      const id = typeof p.id === 'string' ? p.id : typeof p.name === 'string' ? p.name : undefined
      if (id) principals.set(req, id)
    }
    return principal as ReturnType<Authenticate>
  }
  return (req) => {
    const answer = authenticate(req)
    if (answer && typeof (answer as PromiseLike<unknown>).then === 'function') return (answer as Promise<Principal>).then((p) => remember(req, p) as Principal)
    return remember(req, answer)
  }
}

/** `/v1/sessions/abc/ws` → `/v1/sessions/:id/ws`, and the id it replaced. */
export function routePattern(path: string): { route: string; sessionId?: string } {
  const parts = path.split('/')
  let sessionId: string | undefined
  for (let i = 1; i < parts.length; i++) {
    const family = parts[i - 1]
    if (['sessions', 'jobs', 'executions', 'permissions', 'attachments'].includes(family) && parts[i] && parts[i] !== 'ws') {
      if (family === 'sessions') sessionId = decodeURIComponentSafe(parts[i])
      parts[i] = ':id'
    }
  }
  return { route: parts.join('/'), sessionId }
}

function decodeURIComponentSafe(text: string): string {
  try { return decodeURIComponent(text) } catch { return text }
}

/** 1-128 characters an id plausibly has (those of UUIDs, ULIDs, base64url, trace ids); nothing a log reader could misread. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:+\/=-]{1,128}$/

/** The caller's `x-request-id` when valid (one header, not a list), else a fresh UUID. */
export function requestIdFor(req: IncomingMessage): string {
  const given = req.headers['x-request-id']
  return typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID()
}

export function attachAccessLog(server: Server, root: Logger): void {
  // Access lines are flat (no headers, no nested values): the cheaper logger for them.
  const logger = flatLinesLogger(root)
  server.prependListener('request', (req, res) => {
    const started = process.hrtime.bigint()
    const requestId = requestIdFor(req)
    res.setHeader('x-request-id', requestId)
    res.once('finish', () => {
      const path = (req.url ?? '/').split('?')[0]
      const { route, sessionId } = routePattern(path)
      logger.info({
        kind: 'http', requestId, method: req.method, route, status: res.statusCode,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
        bytes: Number(res.getHeader('content-length') ?? 0) || undefined,
        principal: principals.get(req), sessionId,
      }, 'request')
    })
  })
  server.prependListener('upgrade', (req: IncomingMessage, socket: Socket) => {
    const started = process.hrtime.bigint()
    const requestId = requestIdFor(req)
    const path = (req.url ?? '/').split('?')[0]
    const { route, sessionId } = routePattern(path)
    socket.once('close', () => {
      logger.info({
        kind: 'ws', requestId, method: 'GET', route, durationMs: Number(process.hrtime.bigint() - started) / 1e6,
        bytesIn: socket.bytesRead, bytesOut: socket.bytesWritten, principal: principals.get(req), sessionId,
      }, 'websocket closed')
    })
  })
}
