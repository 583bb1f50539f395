/** Cases for Authentication (authentication.*), Scope and the 401/403/404 rows of Errors. */
import { Unsupported, type Case } from '../types.ts'
import { WsRefused } from '../harness/ws-client.ts'

const UNKNOWN_ID = '00000000-0000-4000-8000-00000000dead'
const SUBROUTES: Array<[string, string, unknown?]> = [
  ['GET', ''], ['PATCH', '', { title: 'x' }], ['DELETE', ''], ['GET', '/files'], ['GET', '/produced'], ['GET', '/mcp'],
  ['POST', '/mcp/x', { action: 'reconnect' }], ['GET', '/project/icon'], ['POST', '/permissions/r1', { behavior: 'allow' }],
  ['GET', '/attachments/a1'],
]

export const authenticationCases: Case[] = [
  {
    id: 'auth-401-rest', title: 'a request without credentials is 401 on every route', section: 'authentication',
    clauses: ['authentication.1', 'errors.2', 'server-configuration.1', 'embedding-rules.3', 'endpoints.1'], requires: [],
    async run(ctx) {
      for (const [method, path] of [['GET', '/sessions'], ['POST', '/sessions'], ['GET', `/sessions/${UNKNOWN_ID}`], ['GET', '/profiles'], ['GET', '/profiles/x']] as const) {
        ctx.errorStatus('authentication.1', await ctx.http(method, path, { as: 'none', body: method === 'POST' ? {} : undefined }), 401)
      }
      ctx.errorStatus('errors.2', await ctx.http('GET', '/sessions', { as: 'none', token: 'not-a-valid-token' }), 401)
    },
  },
  {
    id: 'auth-401-ws-upgrade', title: 'a WebSocket upgrade without credentials is 401', section: 'authentication',
    clauses: ['authentication.1', 'errors.2'], requires: ['provider'],
    async run(ctx) {
      const s = await ctx.createSession()
      const refused = await ctx.ws(s.id, { as: 'none' }).then(() => undefined, (err) => err)
      ctx.check('authentication.1', refused instanceof WsRefused && refused.status === 401, 'the upgrade refused with 401', refused?.message ?? 'an open socket')
    },
  },
  {
    id: 'auth-scope-stamped-at-create', title: 'a scoped principal\'s scope is stamped on its sessions', section: 'scope',
    clauses: ['scope.1', 'what-the-service-does.6', 'principal.1'], requires: ['provider', 'principal:tenantA'],
    async run(ctx) {
      const s = await ctx.createSession({}, 'tenantA')
      const seen = (await ctx.http('GET', `/sessions/${s.id}`, { as: 'tenantA' })).json?.session
      // SessionInfo lists `scope` without requiring it (session.1); the stamp's effect, visibility,
      // is judged by the scope-miss cases. Without the field there is nothing to read here.
      if (!seen || !('scope' in seen)) throw new Unsupported('SessionInfo carries no scope field to read the stamp from')
      ctx.check('scope.1', seen?.scope && typeof seen.scope === 'object' && Object.keys(seen.scope).length > 0, 'the caller\'s scope tags on SessionInfo', seen?.scope)
    },
  },
  {
    id: 'auth-scope-miss-identical-404', title: 'a scope miss is a 404 byte-identical to an unknown id on every /sessions/:id route', section: 'authentication',
    clauses: ['authentication.3', 'errors.1', 'errors.3', 'principal.1', 'endpoints.1'], requires: ['provider', 'principal:tenantA', 'principal:tenantB'],
    async run(ctx) {
      const s = await ctx.createSession({}, 'tenantA')
      for (const [method, suffix, body] of SUBROUTES) {
        const miss = await ctx.http(method, `/sessions/${s.id}${suffix}`, { as: 'tenantB', body })
        const unknown = await ctx.http(method, `/sessions/${UNKNOWN_ID}${suffix}`, { as: 'tenantB', body })
        ctx.check('errors.1', miss.status === 404, `${method} /sessions/:id${suffix} outside the scope answered 404`, `HTTP ${miss.status}`)
        ctx.check('authentication.3', miss.text === unknown.text && miss.headers['content-type'] === unknown.headers['content-type'], `${method} ${suffix || '/'}: the same body as an unknown id`, `${miss.text} vs ${unknown.text}`)
      }
      ctx.status('authentication.3', await ctx.http('GET', `/sessions/${s.id}`, { as: 'tenantA' }), 200)
    },
  },
  {
    id: 'auth-scope-miss-ws-404', title: 'a WS attach outside the scope is refused like an unknown id', section: 'authentication',
    clauses: ['authentication.3', 'errors.1'], requires: ['provider', 'principal:tenantA', 'principal:tenantB'],
    async run(ctx) {
      const s = await ctx.createSession({}, 'tenantA')
      const miss = await ctx.ws(s.id, { as: 'tenantB' }).then(() => undefined, (err) => err)
      const unknown = await ctx.ws(UNKNOWN_ID, { as: 'tenantB' }).then(() => undefined, (err) => err)
      ctx.check('errors.1', miss instanceof WsRefused && miss.status === 404, 'the upgrade refused with 404', miss?.status ?? 'an open socket')
      ctx.check('authentication.3', unknown instanceof WsRefused && miss.status === unknown.status && miss.body === unknown.body, 'the same refusal as an unknown id', `${miss.body} vs ${unknown?.body}`)
    },
  },
  {
    id: 'auth-list-filtered-by-scope', title: 'the session list holds only the caller\'s sessions', section: 'authentication',
    clauses: ['authentication.3', 'sessions.1', 'embedding-rules.4'], requires: ['provider', 'principal:tenantA', 'principal:tenantB'],
    async run(ctx) {
      const a = await ctx.createSession({}, 'tenantA')
      const b = await ctx.createSession({}, 'tenantB')
      const listB = (await ctx.http('GET', '/sessions', { as: 'tenantB' })).json?.sessions?.map((s: any) => s.id) ?? []
      ctx.check('sessions.1', listB.includes(b.id), 'the caller\'s own session listed', listB.length)
      ctx.check('authentication.3', !listB.includes(a.id), 'no session of another scope listed', 'tenant A\'s session in tenant B\'s list')
    },
  },
  {
    id: 'auth-unscoped-session-hidden-from-scoped', title: 'an unscoped session is invisible to a scoped principal', section: 'authentication',
    clauses: ['authentication.3'], requires: ['provider', 'principal:tenantA'],
    async run(ctx) {
      const s = await ctx.createSession()
      ctx.status('authentication.3', await ctx.http('GET', `/sessions/${s.id}`, { as: 'tenantA' }), 404)
    },
  },
  {
    id: 'auth-create-scope-contradiction-403', title: 'a create scope contradicting the caller\'s is refused', section: 'scope',
    clauses: ['scope.1', 'errors.5'], requires: ['provider', 'principal:tenantA'],
    async run(ctx) {
      const own = (await ctx.createSession({}, 'tenantA')).scope as Record<string, string>
      const [key] = Object.keys(own)
      const res = await ctx.http('POST', '/sessions', { as: 'tenantA', body: { profile: ctx.profile('provider'), scope: { [key]: `${own[key]}-other` } } })
      ctx.check('scope.1', res.status === 403 || res.status === 400, 'a refusal (protocol 7: 403)', res.status)
      ctx.nonStrict(res.status === 403, `protocol 7 answers 403 to a contradicting scope; got ${res.status}`)
    },
  },
  {
    id: 'auth-allowed-profiles-403', title: 'creating on a profile outside allowedProfiles is 403', section: 'authentication',
    clauses: ['authentication.5', 'errors.5', 'principal.2'], requires: ['provider', 'principal:restricted'],
    async run(ctx) {
      const visible = (await ctx.http('GET', '/profiles', { as: 'restricted' })).json?.profiles?.map((p: any) => p.name) ?? []
      const all = (await ctx.http('GET', '/profiles')).json?.profiles?.map((p: any) => p.name) ?? []
      const hidden = all.find((name: string) => !visible.includes(name))
      ctx.check('authentication.5', hidden !== undefined, 'GET /profiles filtered by allowedProfiles', { visible, all })
      ctx.errorStatus('authentication.5', await ctx.http('POST', '/sessions', { as: 'restricted', body: { profile: hidden } }), 403)
    },
  },
  {
    id: 'auth-cors-allowed-origin', title: 'an allowed origin is echoed; credentials are never allowed', section: 'authentication',
    clauses: ['authentication.7', 'server-configuration.14'], requires: ['cors'],
    async run(ctx) {
      const origin = ctx.manifest.cors?.allowedOrigin ?? ''
      const res = await ctx.http('GET', '/sessions', { headers: { origin } })
      ctx.equal('authentication.7', res.headers['access-control-allow-origin'], origin, 'access-control-allow-origin')
      ctx.check('authentication.7', res.headers['access-control-allow-credentials'] === undefined, 'no Access-Control-Allow-Credentials', res.headers['access-control-allow-credentials'])
      const other = await ctx.http('GET', '/sessions', { headers: { origin: `${origin}.evil.example` } })
      ctx.check('authentication.7', other.headers['access-control-allow-origin'] === undefined, 'no allow-origin for a suffix match', other.headers['access-control-allow-origin'])
    },
  },
  {
    id: 'auth-cors-preflight-before-auth', title: 'preflights are answered before authentication', section: 'authentication',
    clauses: ['authentication.7'], requires: ['cors'],
    async run(ctx) {
      const origin = ctx.manifest.cors?.allowedOrigin ?? ''
      const ok = await ctx.http('OPTIONS', '/sessions', { as: 'none', headers: { origin, 'access-control-request-method': 'POST' } })
      ctx.check('authentication.7', ok.status >= 200 && ok.status < 300, 'a 2xx preflight without credentials', ok.status)
      ctx.check('authentication.7', ok.headers['access-control-allow-credentials'] === undefined, 'no Access-Control-Allow-Credentials', ok.headers)
      ctx.observe(ok.status === 204, `a preflight answered ${ok.status}; protocol 7 answers 204 (authentication.7 gives no status)`)
      const denied = await ctx.http('OPTIONS', '/sessions', { as: 'none', headers: { origin: 'http://not-allowed.example', 'access-control-request-method': 'POST' } })
      ctx.check('authentication.7', denied.headers['access-control-allow-origin'] === undefined, 'no allow-origin for an origin outside the list', denied.headers)
      ctx.nonStrict(denied.status === 403, `protocol 7 answers a disallowed preflight with 403; got ${denied.status}`)
    },
  },
]
