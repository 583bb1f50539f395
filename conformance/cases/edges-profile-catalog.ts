/**
 * Edge cases on what a profile grants, found by reviewing generated mutation survivors in
 * gateway/protocol: an acceptance the kit checked only through its refusal.
 * A grant the profile gives must be accepted by name, for each of the four the spec names.
 */
import type { CaseContext } from '../harness/context.ts'
import { Unsupported, type Case } from '../types.ts'

/** profile.8 / embedding-rules.6 name exactly these provider grants. */
const NAMED_GRANTS = ['web_fetch', 'web_search', 'download', 'deliver_file']

/** The declared provider profile's `provider` block, so a managed copy runs where it runs. */
async function providerBlock(ctx: CaseContext): Promise<Record<string, unknown>> {
  const res = await ctx.http('GET', `/profiles/${encodeURIComponent(ctx.profile('provider'))}`)
  const provider = res.json?.profile?.provider
  if (typeof provider?.id !== 'string' || typeof provider?.model !== 'string') {
    throw new Unsupported(`the provider profile's ProfileInfo shows no provider {id, model} to copy (${res.text.slice(0, 160)})`)
  }
  return { id: provider.id, model: provider.model, ...(typeof provider.apiKeyEnv === 'string' ? { apiKeyEnv: provider.apiKeyEnv } : {}) }
}

export const profileCatalogEdgeCases: Case[] = [
  {
    id: 'create-capabilities-each-named-grant', title: 'a create naming any one grant its profile gives is accepted, for each of the four named grants', section: 'profiles',
    clauses: ['profiles.6', 'profiles.2', 'profile.8', 'embedding-rules.6', 'embedding-rules.7'], requires: ['provider', 'profileStore', 'principal:manager'],
    async run(ctx) {
      // create-capabilities-only-narrow checks the refusal side on the declared 'alt' profile; a
      // gateway that no longer knows one grant by name refuses it even where the profile gives it.
      // mcpServers: [] means none (embedding-rules.7); absent would mean every server the host wired.
      const name = ctx.unique('kit-all-grants')
      const created = await ctx.http('POST', '/profiles', { as: 'manager', body: { name, engine: 'provider', provider: await providerBlock(ctx), session: { capabilities: NAMED_GRANTS, mcpServers: [] } } })
      if (created.status < 300) ctx.onCleanup(() => ctx.http('DELETE', `/profiles/${encodeURIComponent(name)}`, { as: 'manager' }))
      // profile.8 names these four values; the spec gives no status for a profile create.
      ctx.created('profiles.2', created, 200)
      for (const grant of [...NAMED_GRANTS.map((g) => [g]), NAMED_GRANTS]) {
        // profiles.6: capabilities may only narrow the profile's grant; naming what it grants narrows.
        const res = await ctx.http('POST', '/sessions', { body: { profile: name, capabilities: grant } })
        if (res.status === 201) await ctx.http('DELETE', `/sessions/${encodeURIComponent(res.json?.session?.id)}`)
        ctx.check('profiles.6', res.status === 201, `201 for capabilities ${JSON.stringify(grant)} on a profile granting ${NAMED_GRANTS.join(', ')}`, `HTTP ${res.status} ${res.text.slice(0, 200)}`)
      }
    },
  },
  {
    id: 'profiles-managed-missing-config-dir-refused', title: 'a managed cli_primary profile whose configDir does not exist is refused, as startup would refuse it', section: 'errors',
    clauses: ['errors.4', 'profile.2', 'errors.15'], requires: ['profileStore', 'principal:manager', 'cli_primary'],
    async run(ctx) {
      // profile.2 / errors.15: a configDir that does not exist fails startup; errors.4: a profile
      // create that startup would refuse is 400. The directory is named inside the kit's cwdRoot
      // (inside allowedConfigDirRoots), so the roots rule (errors.5, 403) is not what refuses it; a
      // target that cannot place a missing directory inside its roots may still answer that 403.
      const cwd = ctx.manifest.cwdRoot
      if (!cwd) throw new Unsupported('the manifest gives no cwdRoot inside allowedConfigDirRoots')
      const name = ctx.unique('kit-missing-dir')
      const res = await ctx.http('POST', '/profiles', { as: 'manager', body: { name, engine: 'cli_primary', configDir: `${cwd.replace(/\/$/, '')}/${name}-does-not-exist` } })
      if (res.status < 300) ctx.onCleanup(() => ctx.http('DELETE', `/profiles/${encodeURIComponent(name)}`, { as: 'manager' }))
      ctx.check('errors.4', res.status === 400 || res.status === 403, 'the create refused: 400 (errors.4), or 403 where the missing directory cannot be placed inside allowedConfigDirRoots (errors.5)', `HTTP ${res.status} ${res.text.slice(0, 200)}`)
    },
  },
]
