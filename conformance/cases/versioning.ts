/** The cases of § Versioning: each case's first clause is `versioning.N`. */
import type { Case } from '../types.ts'

export const versioningCases: Case[] = [
  {
    id: 'versioning-base-path-prefix', title: 'routes carry the basePath prefix', section: 'versioning',
    clauses: ['versioning.2', 'server-configuration.12'], requires: [],
    async run(ctx) {
      const base = new URL(ctx.manifest.baseUrl).pathname.replace(/\/$/, '')
      ctx.check('versioning.2', base.length > 0, 'a non-empty route prefix', base)
      ctx.status('versioning.2', await ctx.http('GET', '/sessions'), 200)
      const outside = await ctx.http('GET', `${ctx.origin}/sessions`)
      ctx.check('versioning.2', outside.status !== 200 || !Array.isArray(outside.json?.sessions), 'no session list outside the prefix', outside.status)
    },
  },
]
