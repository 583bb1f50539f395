/**
 * A host application embedding the gateway for a browser panel (embedding rules 1-5, 11, 13, 15):
 * one origin and one port, the host's own pages and RPC route served through the gateway's
 * `fallback`, and the host's login cookie turned into a scoped principal by `authenticate`, for
 * REST calls and WebSocket attaches alike. The page holds no key: its cookie is its credential.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { mkdir } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { join } from 'node:path'
import { createGatewayServer, type GatewayServer, type GatewayServerOptions, type Principal } from 'agent-session-gateway'

export interface PanelAppOptions {
  /** Each tenant's workspace is a directory under it; sessions may not leave it (allowedCwdRoots). */
  workRoot: string
  /** Signs the login cookie. It must survive restarts, or every scoped session becomes unreachable (rule 15). */
  cookieSecret: string
  /** The engines the host wires (the Claude Code CLI for the panel's profile). */
  engines: GatewayServerOptions['engines']
  /** The users who may log in, and their tenant. */
  users: Record<string, { tenant: string }>
  /** The page and its bundled script (page/bundle.ts). */
  page: { html: string; script: string }
}

const COOKIE = 'panel_login'
const PROFILE = 'panel'

export function createPanelApp(options: PanelAppOptions): GatewayServer {
  const sign = (user: string) => createHmac('sha256', options.cookieSecret).update(user).digest('base64url')

  /** The logged-in user of a request, from its signed cookie; undefined when there is none or it is forged. */
  function userOf(req: IncomingMessage): string | undefined {
    const value = cookies(req)[COOKIE]
    const dot = value?.lastIndexOf('.') ?? -1
    if (!value || dot < 1) return undefined
    const user = value.slice(0, dot)
    const given = Buffer.from(value.slice(dot + 1))
    const expected = Buffer.from(sign(user))
    return given.length === expected.length && timingSafeEqual(given, expected) && user in options.users ? user : undefined
  }

  /** An end user: a scope pins every session to the tenant (rule 4: the gateway filters, not the page). */
  function principalOf(user: string): Principal {
    return { name: user, scope: { tenant: options.users[user].tenant }, allowedProfiles: [PROFILE] }
  }

  async function fallback(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://host.invalid').pathname
    if (path === '/' && req.method === 'GET') return send(res, 200, 'text/html; charset=utf-8', options.page.html)
    if (path === '/panel.js' && req.method === 'GET') return send(res, 200, 'text/javascript; charset=utf-8', options.page.script)
    if (path === '/login' && req.method === 'POST') {
      // A login form of the simplest kind: the user name is the whole credential here. The same
      // guard as the RPC route keeps another site from logging a visitor in as someone else.
      if (!sameOrigin(req)) return send(res, 401, 'text/plain', 'Unauthorized')
      const user = new URLSearchParams(await body(req)).get('user') ?? ''
      if (!(user in options.users)) return send(res, 401, 'text/plain', 'Unauthorized')
      res.writeHead(303, { location: '/', 'set-cookie': `${COOKIE}=${user}.${sign(user)}; Path=/; HttpOnly; SameSite=Lax` })
      return void res.end()
    }
    if (path.startsWith('/app/rpc/')) return rpc(req, res, path.slice('/app/rpc/'.length))
    send(res, 404, 'text/plain', 'Not found')
  }

  /**
   * The host's own RPC route, cookie-authenticated, so it needs a CSRF guard of its own (rule 13):
   * Sec-Fetch-Site first, Origin when a browser sent no Sec-Fetch-Site, both checked before the
   * cookie is even read; a forged request gets a plain 401.
   */
  async function rpc(req: IncomingMessage, res: ServerResponse, name: string): Promise<void> {
    if (!sameOrigin(req)) return send(res, 401, 'text/plain', 'Unauthorized')
    const user = userOf(req)
    if (!user) return send(res, 401, 'text/plain', 'Unauthorized')
    if (name === 'workspace' && req.method === 'POST') {
      // Where this tenant's sessions run: the host decides, the page never names a host path.
      const cwd = join(options.workRoot, options.users[user].tenant)
      await mkdir(cwd, { recursive: true })
      return send(res, 200, 'application/json', JSON.stringify({ user, profile: PROFILE, cwd }))
    }
    send(res, 404, 'text/plain', 'Not found')
  }

  return createGatewayServer({
    // Rule 3: the same cookie, for REST calls and WebSocket upgrades alike; null is a 401.
    authenticate: (req) => {
      const user = userOf(req)
      return user ? principalOf(user) : null
    },
    profiles: [{ name: PROFILE, engine: 'cli_primary', description: 'The panel\'s agent' }],
    engines: options.engines,
    allowedCwdRoots: [options.workRoot],
    fallback: (req, res) => {
      fallback(req, res).catch(() => {
        if (!res.headersSent) send(res, 500, 'text/plain', 'Internal error')
      })
    },
  })
}

/** True for a request the browser marks as same-origin; a request with neither header is not a browser's. */
function sameOrigin(req: IncomingMessage): boolean {
  const site = req.headers['sec-fetch-site']
  if (site !== undefined) return site === 'same-origin' || site === 'none'
  const origin = req.headers.origin
  if (origin === undefined) return true
  return origin === `http://${req.headers.host}` || origin === `https://${req.headers.host}`
}

function cookies(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {}
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0) out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim()
  }
  return out
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => {
      text += chunk
      if (text.length > 4096) req.destroy()
    })
    req.on('end', () => resolve(text))
    req.on('error', reject)
  })
}

function send(res: ServerResponse, status: number, type: string, text: string): void {
  res.writeHead(status, { 'content-type': type, 'x-content-type-options': 'nosniff' })
  res.end(text)
}
