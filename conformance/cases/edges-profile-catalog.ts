/**
 * Edge cases on what a profile grants and what it learns, found by reviewing generated mutation
 * survivors in gateway/host and gateway/protocol (issue 20, Deliver 1). Two classes the kit
 * missed: an acceptance checked only through its refusal (a grant the profile gives must be
 * accepted by name, each of the four the spec names), and a value that must follow later events
 * (ProfileInfo.defaultModel is learned from sessions, so it is not frozen at the first read).
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
    id: 'profile-default-model-learned', title: "ProfileInfo.defaultModel follows what a session on the profile learned, even after the profile was read before", section: 'profile',
    clauses: ['profile.9', 'events.4', 'profiles.3'], requires: ['cli_primary'],
    async run(ctx) {
      const cwd = ctx.manifest.cwdRoot
      if (!cwd) throw new Unsupported('the manifest gives no cwdRoot')
      const profile = ctx.profile('cli_primary')
      const path = `/profiles/${encodeURIComponent(profile)}`
      // Read first: a gateway that keeps the answer it built here must still show what it learns next.
      ctx.status('profiles.3', await ctx.http('GET', path), 200)
      const session = await ctx.createSession({ profile, cwd, prompt: 'hello cli' })
      const ws = await ctx.ws(session.id)
      const caps = await ws.waitForEvent('capabilities', ctx.deadlineMs)
      if (typeof caps.defaultModel !== 'string') throw new Unsupported(`the capabilities event carries no defaultModel (${JSON.stringify(caps.defaultModel)}); cli-primary-turn-events judges that`)
      // profile.9: defaultModel is learned from sessions; events.4: the event's defaultModel is the
      // wire id the profile's default resolves to. Learning may lag the event: poll to the deadline.
      const until = Date.now() + ctx.deadlineMs
      let shown: unknown
      for (;;) {
        shown = (await ctx.http('GET', path)).json?.profile?.defaultModel
        if (shown === caps.defaultModel || Date.now() > until) break
        await new Promise((done) => setTimeout(done, 100))
      }
      ctx.equal('profile.9', shown, caps.defaultModel, `defaultModel of profile ${profile} after a session reported its default`)
    },
  },
]
