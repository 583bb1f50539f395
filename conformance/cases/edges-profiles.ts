/**
 * Edge cases on managed profiles found by generated mutation testing (issue 20): a field the
 * spec gives to one engine must be accepted there, not only refused elsewhere.
 */
import { Unsupported, type Case } from '../types.ts'

export const profileEdgeCases: Case[] = [
  {
    id: 'profiles-managed-codex-home-accepted', title: 'a managed cli_secondary profile may pin codexHome inside allowedConfigDirRoots', section: 'profile',
    clauses: ['profile.3', 'server-configuration.6', 'server-configuration.7'], requires: ['profileStore', 'principal:manager', 'cli_secondary'],
    async run(ctx) {
      // profile.3: codexHome is for cli_secondary only; server-configuration.7: a managed profile's
      // credential directory may be in allowedConfigDirRoots. The kit's cwdRoot is inside them.
      if (!ctx.manifest.cwdRoot) throw new Unsupported('the manifest gives no cwdRoot inside allowedConfigDirRoots')
      const name = ctx.unique('kit-codex-home')
      const created = await ctx.http('POST', '/profiles', { as: 'manager', body: { name, engine: 'cli_secondary', codexHome: ctx.manifest.cwdRoot } })
      if (created.status < 300) ctx.onCleanup(() => ctx.http('DELETE', `/profiles/${name}`, { as: 'manager' }))
      ctx.created('profile.3', created, 200)
    },
  },
]
