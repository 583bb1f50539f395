/**
 * Edge cases on managed profiles found by generated mutation testing: a field the
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
  {
    id: 'profile-default-model-learned-after-read', title: 'ProfileInfo.defaultModel follows what a session learned, also after the profile was read before', section: 'profile',
    clauses: ['profile.9', 'events.4'], requires: ['cli_primary', 'profileStore', 'principal:manager'],
    async run(ctx) {
      // profile.9: defaultModel is learned from sessions. A fresh managed profile is read first (a
      // gateway may cache the answer), then a session on it reports its default (events.4): a later
      // read must show it, not the answer from before.
      const cwd = ctx.manifest.cwdRoot
      if (!cwd) throw new Unsupported('the manifest gives no cwdRoot inside allowedConfigDirRoots')
      const name = ctx.unique('kit-learned')
      const created = await ctx.http('POST', '/profiles', { as: 'manager', body: { name, engine: 'cli_primary', configDir: cwd } })
      if (created.status >= 300) throw new Unsupported(`no managed cli_primary profile could be created (HTTP ${created.status})`)
      ctx.onCleanup(() => ctx.http('DELETE', `/profiles/${name}`, { as: 'manager' }))
      await ctx.http('GET', `/profiles/${name}`)
      const session = await ctx.createSession({ profile: name, cwd, prompt: 'hello cli' })
      const ws = await ctx.ws(session.id)
      const caps = await ws.waitForEvent('capabilities', ctx.deadlineMs)
      if (typeof caps.defaultModel !== 'string') throw new Unsupported('the capabilities event names no defaultModel')
      await ws.waitForEvent('turn_result', ctx.deadlineMs)
      let seen: unknown
      for (const until = Date.now() + 2000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
        seen = (await ctx.http('GET', `/profiles/${name}`)).json?.profile?.defaultModel
        if (seen === caps.defaultModel) break
      }
      ctx.equal('profile.9', seen, caps.defaultModel, 'ProfileInfo.defaultModel after a session reported its default')
    },
  },
]
