/** The cases of § Authentication: each case's first clause is `authentication.N`. */
import { WsRefused } from '../harness/ws-client.ts'
import type { Case } from '../types.ts'
import WebSocket from 'ws'
import { SUBROUTES, UNKNOWN_ID, submit } from '../harness/case-helpers/index.ts'

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
  {
    id: 'profiles-management-without-store-404', title: 'profile management without a profileStore is 404', section: 'authentication',
    clauses: ['authentication.6', 'profiles.2', 'profiles.4', 'profiles.5', 'errors.3'], requires: ['absent:profileStore', 'principal:manager'],
    async run(ctx) {
      ctx.errorStatus('authentication.6', await ctx.http('POST', '/profiles', { as: 'manager', body: { name: 'new-one', engine: 'provider' } }), 404)
      ctx.errorStatus('authentication.6', await ctx.http('DELETE', `/profiles/${ctx.profile('provider')}`, { as: 'manager' }), 404)
    },
  },
  {
    id: 'jobs-scope-and-profiles', title: 'jobs are scoped like sessions; scoped principals are refused /queue; allowedProfiles applies', section: 'authentication',
    clauses: ['authentication.4', 'authentication.5', 'jobs-and-queue.1', 'jobs-and-queue.3', 'principal.2'], requires: ['provider', 'queue', 'principal:tenantA', 'principal:tenantB', 'principal:restricted'],
    async run(ctx) {
      const mine = await submit(ctx, { session: { prompt: 'hello' } }, 'tenantA')
      ctx.status('jobs-and-queue.3', await ctx.http('GET', `/jobs/${mine.id}`, { as: 'tenantA' }), 200)
      ctx.status('authentication.3', await ctx.http('GET', `/jobs/${mine.id}`, { as: 'tenantB' }), 404)
      const listB = (await ctx.http('GET', '/jobs', { as: 'tenantB' })).json?.jobs ?? []
      ctx.check('jobs-and-queue.1', !listB.some((j: any) => j.id === mine.id), 'no job of another scope listed', listB.length)
      ctx.check('authentication.4', (await ctx.http('GET', '/queue', { as: 'tenantA' })).status >= 400, '/queue refused to a scoped principal', 'allowed')
      const hidden = ctx.manifest.profiles.providerAlt
      if (hidden) ctx.errorStatus('authentication.5', await ctx.http('POST', '/jobs', { as: 'restricted', body: { session: { profile: hidden, prompt: 'x' } } }), 403)
    },
  },
  {
    id: 'auth-401-queue-ws-upgrade', title: 'a /queue/ws upgrade without credentials is 401, like every other route', section: 'authentication',
    clauses: ['authentication.1', 'errors.2'], requires: ['queue'],
    async run(ctx) {
      // authentication.1: authenticate covers every route, WebSocket upgrades included; a falsy result is 401.
      // The session socket's refusal is checked elsewhere (auth-401-ws-upgrade); this is the queue's.
      const ws = new WebSocket(ctx.url('/queue/ws').replace(/^http/, 'ws'), { handshakeTimeout: ctx.deadlineMs })
      ctx.onCleanup(() => ws.terminate())
      const status = await new Promise<number | string>((resolve) => {
        ws.once('open', () => resolve('an open socket'))
        ws.once('unexpected-response', (_req, res) => { resolve(res.statusCode ?? 0); res.resume() })
        ws.once('error', (err) => resolve(err.message))
      })
      ctx.check('authentication.1', status === 401, 'the /queue/ws upgrade refused with 401', status)
    },
  },
]
