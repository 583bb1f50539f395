/**
 * Explore commands on who may see what: the session list per principal, unknown ids, another
 * tenant's reads (scope 404s, never 403), a refused credential (401 before any 404), and the routes
 * a scoped principal is refused. Only statuses the spec fixes are required.
 */
import { UNKNOWN_ID } from '../harness/case-helpers/index.ts'
import { WsRefused } from '../harness/ws-client.ts'
import { command, onSession } from './command.ts'
import type { Owner } from './model.ts'
import type { World } from './world.ts'

/** sessions.1 and authentication.3: the list holds the caller's live sessions, none deleted, none out of scope. */
export function list(as: Owner) {
  return command(`list(as ${as})`, () => true, async (m, w) => {
    const res = await w.ctx.http('GET', '/sessions', { as })
    w.ctx.status('sessions.1', res, 200)
    const ids = new Set<string>((res.json?.sessions ?? []).map((x: any) => x?.id))
    for (const [i, s] of m.sessions.entries()) {
      const id = w.handle(i).id
      const visible = !s.deleted && (as === 'operator' || s.owner === as)
      const hidden = s.deleted || (as !== 'operator' && s.owner !== 'operator' && s.owner !== as)
      if (visible) w.ctx.check('sessions.1', ids.has(id), `s${i} in ${as}'s list`, `${ids.size} ids without it`)
      if (hidden) w.ctx.check(s.deleted ? 'sessions.5' : 'authentication.3', !ids.has(id), `s${i} (${s.deleted ? 'deleted' : `${s.owner}'s`}) not in ${as}'s list`, 'listed')
    }
  })
}

export type UnknownRoute = 'get' | 'patch' | 'delete' | 'attach' | 'execution-result' | 'permission'

/** errors.3: an unknown session, execution or permission request id is 404. */
export function unknownId(route: UnknownRoute) {
  return command(`unknown id(${route})`, () => true, async (m, w) => {
    const { ctx } = w
    const base = `/sessions/${UNKNOWN_ID}`
    if (route === 'attach') {
      const refused = await ctx.ws(UNKNOWN_ID, { afterSeq: 0 }).then((c) => (c.close(), undefined), (err) => err)
      return ctx.check('errors.3', refused instanceof WsRefused && refused.status === 404, 'an attach to an unknown session refused with 404', refused instanceof WsRefused ? refused.status : 'attached')
    }
    if (route === 'permission') {
      // On a live session of the run when there is one: an unknown request id (permission-request.1).
      const index = m.sessions.findIndex((s) => !s.deleted)
      const path = index >= 0 ? `/sessions/${w.handle(index).id}/permissions/no-such-request` : `${base}/permissions/no-such-request`
      return ctx.errorStatus(index >= 0 ? 'permission-request.1' : 'errors.3', await ctx.http('POST', path, { as: index >= 0 ? w.handle(index).owner : 'operator', body: { behavior: 'allow' } }), 404)
    }
    const [method, path, body] = route === 'get' ? ['GET', base] : route === 'patch' ? ['PATCH', base, { title: 'x' }] : route === 'delete' ? ['DELETE', base]
      : ['POST', '/executions/no-such-execution/result', { status: 'ok', output: { type: 'text', value: 'x' } }]
    ctx.errorStatus('errors.3', await ctx.http(method as string, path as string, { body }), 404)
  })
}

const otherTenant = (owner: Owner): Owner => (owner === 'tenantA' ? 'tenantB' : 'tenantA')

/** authentication.3 / errors.1: another tenant's session answers 404 on every route, the attach included, never 403. */
export function crossTenant(pick: number, route: 'get' | 'patch' | 'attach' | 'permission') {
  return onSession(pick, (i) => `cross-tenant(s${i}, ${route})`, (m, i) => m.sessions[i].owner !== 'operator', async (_m, w, index) => {
    const h = w.handle(index)
    const as = otherTenant(h.owner)
    if (route === 'attach') {
      const refused = await w.ctx.ws(h.id, { as, afterSeq: 0 }).then((c) => (c.close(), undefined), (err) => err)
      return w.ctx.check('authentication.3', refused instanceof WsRefused && refused.status === 404, `${as}'s attach to ${h.owner}'s session refused with 404`, refused instanceof WsRefused ? refused.status : 'attached')
    }
    const path = route === 'permission' ? `/sessions/${h.id}/permissions/r1` : `/sessions/${h.id}`
    const method = route === 'get' ? 'GET' : route === 'patch' ? 'PATCH' : 'POST'
    const body = route === 'patch' ? { title: 'not yours' } : route === 'permission' ? { behavior: 'allow' } : undefined
    const res = await w.ctx.http(method, path, { as, body })
    w.ctx.check('errors.1', res.status !== 403, 'a scope miss is 404, never 403', `HTTP ${res.status}`)
    w.ctx.errorStatus('authentication.3', res, 404)
  })
}

/** authentication.1 / errors.2: a refused credential is 401, before any other answer (a known or unknown id alike). */
export function badToken(target: 'list' | 'known' | 'unknown' | 'attach') {
  return command(`bad token(${target})`, (m) => target !== 'known' || m.sessions.length > 0, async (m, w) => {
    const token = 'explore-not-a-token'
    const id = target === 'known' ? w.handle(0).id : UNKNOWN_ID
    if (target === 'attach') {
      const refused = await w.ctx.ws(id, { as: 'none' }).then((c) => (c.close(), undefined), (err) => err)
      return w.ctx.check('authentication.1', refused instanceof WsRefused && refused.status === 401, 'an attach without a credential refused with 401', refused instanceof WsRefused ? refused.status : 'attached')
    }
    const path = target === 'list' ? '/sessions' : `/sessions/${id}`
    w.ctx.errorStatus('errors.2', await w.ctx.http('GET', path, { token }), 401)
  })
}

/** authentication.4: a principal carrying a scope is refused /fs/*, /sdk-sessions and /queue (the status is not shown: a 4xx). */
export function scopedOperatorRoute(route: '/queue' | '/sdk-sessions' | '/fs/roots') {
  return command(`scoped principal on ${route}`, () => true, async (_m, w: World) => {
    const res = await w.ctx.http('GET', route, { as: 'tenantA' })
    w.ctx.check('authentication.4', res.status >= 400 && res.status < 500, `${route} refused to a scoped principal (a 4xx)`, `HTTP ${res.status}`)
  })
}
