/** The cases of § CreateSessionRequest: each case's first clause is `createsessionrequest.N`. */
import { Unsupported, type Case } from '../../types.ts'
import { FIELD_KEYS, createRefusalsCase } from '../../harness/case-helpers/index.ts'

export const createsessionrequestCases: Case[] = [
  {
    id: 'create-forsworn-fields-400', title: 'a field the engine record forswears is a 400, never ignored', section: 'createsessionrequest',
    clauses: ['createsessionrequest.3', 'engine-capability-record.1', 'errors.4'], requires: ['provider'],
    async run(ctx) {
      const record = (await ctx.http('GET', `/profiles/${encodeURIComponent(ctx.profile('provider'))}`)).json?.profile?.capabilities
      const forsworn = FIELD_KEYS.filter(([, key]) => record?.[key] === false)
      if (!forsworn.length) throw new Unsupported(`the provider profile's capability record forswears none of ${[...new Set(FIELD_KEYS.map(([, k]) => k))].join(', ')}`)
      for (const [field, key] of forsworn) {
        const res = await ctx.http('POST', '/sessions', { body: { profile: ctx.profile('provider'), ...field } })
        if (res.status >= 200 && res.status < 300) await ctx.http('DELETE', `/sessions/${res.json?.session?.id}`)
        ctx.check('createsessionrequest.3', res.status === 400, `400 for ${Object.keys(field)[0]} (the record has ${key}: false)`, `HTTP ${res.status}`)
      }
    },
  },
  {
    id: 'create-cwd-required-for-host-engines', title: 'cwd is required for an engine that runs against a host directory', section: 'createsessionrequest',
    clauses: ['createsessionrequest.2', 'errors.4'], requires: [],
    cells: { engines: ['cli_primary'] },
    async run(ctx) {
      const profile = ctx.profile('cli_primary')
      const record = (await ctx.http('GET', `/profiles/${encodeURIComponent(profile)}`)).json?.profile?.capabilities
      if (record?.hostCwd !== true) throw new Unsupported(`the '${profile}' profile's capability record does not set hostCwd (${JSON.stringify(record?.hostCwd)})`)
      const res = await ctx.http('POST', '/sessions', { body: { profile } })
      ctx.errorStatus('createsessionrequest.2', res, 400)
    },
  },
  {
    id: 'create-cwd-optional-for-provider', title: 'cwd is optional for the provider engine and not bounded by allowedCwdRoots', section: 'createsessionrequest',
    clauses: ['createsessionrequest.2', 'server-configuration.4'], requires: ['provider'],
    async run(ctx) {
      const s = await ctx.createSession()
      ctx.equal('createsessionrequest.2', s.capabilities?.hostCwd, false, 'capabilities.hostCwd')
      const outside = await ctx.http('POST', '/sessions', { body: { profile: ctx.profile('provider'), cwd: '/' } })
      ctx.status('createsessionrequest.2', outside, 201)
      await ctx.http('DELETE', `/sessions/${outside.json.session.id}`)
    },
  },
  // The create refusals on each CLI engine (conformance/matrix); the provider's are the cases above.
  createRefusalsCase('cli_primary'),
  createRefusalsCase('cli_secondary'),
]
