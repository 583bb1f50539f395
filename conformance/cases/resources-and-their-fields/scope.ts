/** The cases of § Scope: each case's first clause is `scope.N`. */
import { Unsupported, type Case } from '../../types.ts'

export const scopeCases: Case[] = [
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
]
