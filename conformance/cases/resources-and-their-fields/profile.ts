/** The cases of § Profile (declared or managed): each case's first clause is `profile.N`. */
import { Unsupported, type Case } from '../../types.ts'
import { SECRET_MIN_CHARS } from '../../harness/case-helpers/index.ts'

export const profileCases: Case[] = [
  {
    id: 'create-permission-mode-outside-record-400', title: 'a permission mode outside the engine record is a 400', section: 'profile',
    clauses: ['profile.10', 'errors.4'], requires: ['provider'],
    async run(ctx) {
      for (const mode of ['acceptEdits', 'auto', 'nonsense']) {
        const res = await ctx.http('POST', '/sessions', { body: { profile: ctx.profile('provider'), permissionMode: mode } })
        ctx.check('profile.10', res.status === 400, `400 for permissionMode ${mode} on the provider engine`, `HTTP ${res.status}`)
      }
      for (const mode of ['default', 'dontAsk']) {
        const res = await ctx.http('POST', '/sessions', { body: { profile: ctx.profile('provider'), permissionMode: mode } })
        ctx.status('profile.10', res, 201)
        // SessionInfo.permissionMode is listed, not required (session.1): compared when present.
        if ('permissionMode' in (res.json?.session ?? {})) ctx.equal('profile.10', res.json.session.permissionMode, mode, 'permissionMode')
        await ctx.http('DELETE', `/sessions/${res.json.session.id}`)
      }
    },
  },
  {
    id: 'create-model-outside-catalog-refused', title: 'a model outside the provider profile\'s catalog is accepted or refused as bad input (no clause requires either), not a server error', section: 'profile',
    clauses: ['profile.5', 'errors.11'], requires: ['provider'],
    async run(ctx) {
      // profile.5 gives the catalog (`models` defaults to `model`) but no clause says a create
      // naming another model must be refused: a 2xx and a 4xx both conform.
      const res = await ctx.http('POST', '/sessions', { body: { profile: ctx.profile('provider'), model: 'no-such-model-in-the-catalog' } })
      if (res.status >= 200 && res.status < 300) await ctx.http('DELETE', `/sessions/${res.json?.session?.id}`)
      ctx.nonStrict(res.status < 500, `a model outside the catalog answered ${res.status}: the spec does not say whether such a create is refused, but a server error answers neither way`)
    },
  },
  {
    id: 'profiles-credentials-never-shown', title: 'no credential value appears in profile responses', section: 'profile',
    clauses: ['profile.5', 'authentication.8'], requires: [],
    async run(ctx) {
      const res = await ctx.http('GET', '/profiles')
      const text = res.text
      ctx.check('profile.5', !/sk-[A-Za-z0-9]{8,}|"apiKey"\s*:/.test(text), 'no key-shaped value or apiKey field', text.slice(0, 200))
    },
  },
  {
    id: 'profiles-defaults-fill-unset-fields', title: 'profile defaults fill unset request fields; an explicit value wins', section: 'profile',
    clauses: ['profile.7', 'profile.8', 'server-configuration.5'], requires: ['provider'],
    async run(ctx) {
      const profiles = (await ctx.http('GET', '/profiles')).json?.profiles ?? []
      const withDefault = profiles.find((p: any) => p.engine === 'provider' && p.defaults?.permissionMode)
      if (!withDefault) throw new Unsupported('no provider profile declares defaults.permissionMode')
      const filled = await ctx.http('POST', '/sessions', { body: { profile: withDefault.name } })
      ctx.status('profile.7', filled, 201)
      ctx.onCleanup(() => ctx.http('DELETE', `/sessions/${filled.json?.session?.id}`))
      // SessionInfo.permissionMode is listed, not required (session.1): without it the fill cannot be seen.
      if (!('permissionMode' in (filled.json?.session ?? {}))) throw new Unsupported('SessionInfo carries no permissionMode to observe the default by')
      ctx.equal('profile.7', filled.json.session.permissionMode, withDefault.defaults.permissionMode, 'permissionMode filled from the profile default')
      const explicit = await ctx.http('POST', '/sessions', { body: { profile: withDefault.name, permissionMode: 'default' } })
      ctx.status('profile.7', explicit, 201)
      ctx.equal('profile.7', explicit.json.session.permissionMode, 'default', 'an explicit permissionMode')
      for (const res of [filled, explicit]) await ctx.http('DELETE', `/sessions/${res.json.session.id}`)
    },
  },
  {
    id: 'profile-config-snapshot', title: 'GET /profiles/:name shows operators a view-only config snapshot with environment variable names only', section: 'profile',
    clauses: ['profile.9', 'profiles.3'], requires: ['cli_primary', 'principal:tenantA'],
    async run(ctx) {
      const name = ctx.profile('cli_primary')
      const res = await ctx.http('GET', `/profiles/${name}`)
      ctx.status('profiles.3', res, 200)
      const config = res.json?.config
      ctx.check('profile.9', typeof config === 'object' && Array.isArray(config.skills) && Array.isArray(config.agents) && Array.isArray(config.commands), 'a config snapshot with skills, agents and commands', res.json)
      const settings = config?.settings
      if (settings) ctx.check('profile.9', !('env' in settings) && Array.isArray(settings.envNames) && settings.envNames.every((n: unknown) => typeof n === 'string'), 'environment variable names only, never values', settings)
      const scoped = await ctx.http('GET', `/profiles/${name}`, { as: 'tenantA' })
      ctx.check('profile.9', scoped.status !== 200 || scoped.json?.config === undefined, 'no config snapshot for a non-operator', scoped.json)
    },
  },
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
  {
    id: 'profile-config-snapshot-env-names', title: 'GET /profiles/:name names the environment variables of the profile\'s settings file, never their values', section: 'profile',
    clauses: ['profile.9', 'profiles.3', 'engine-session-stores-and-host-files.5'], requires: ['cli_primary', 'hostFiles'],
    async run(ctx) {
      // profile.9: the config snapshot shows "settings highlights … environment variable names
      // only, never values". The kit reads the settings file the profile's engine loads
      // (<configDir>/settings.json, through /fs/read) and looks for each of its `env` names in the
      // answer, wherever the (not shown) snapshot layout puts them, and for none of its values.
      const name = ctx.profile('cli_primary')
      const res = await ctx.http('GET', `/profiles/${encodeURIComponent(name)}`)
      ctx.status('profiles.3', res, 200)
      const configDir = res.json?.profile?.configDir ?? res.json?.configDir
      if (typeof configDir !== 'string') throw new Unsupported('the profile answer names no configDir to read its settings from')
      const read = await ctx.http('GET', `/fs/read?path=${encodeURIComponent(`${configDir.replace(/\/$/, '')}/settings.json`)}`)
      if (read.status !== 200 || typeof read.json?.content !== 'string') throw new Unsupported(`the profile's settings.json is not readable through /fs/read (HTTP ${read.status})`)
      const text = read.json.encoding === 'base64' ? Buffer.from(read.json.content, 'base64').toString('utf8') : read.json.content
      let env: Record<string, unknown>
      try {
        const settings = JSON.parse(text)
        env = settings && typeof settings.env === 'object' && settings.env !== null ? settings.env : {}
      } catch {
        throw new Unsupported('the profile\'s settings.json is not JSON')
      }
      const names = Object.keys(env)
      if (names.length === 0) throw new Unsupported('the profile\'s settings.json sets no environment variables')
      const missing = names.filter((n) => !res.text.includes(JSON.stringify(n)))
      ctx.check('profile.9', missing.length === 0, `the config snapshot names the settings file's environment variables (${names.join(', ')})`, missing.length ? `missing: ${missing.join(', ')}; answer: ${res.text.slice(0, 400)}` : 'all named')
      const leaked = names.filter((n) => typeof env[n] === 'string' && (env[n] as string).length >= SECRET_MIN_CHARS && res.text.includes(env[n] as string))
      ctx.check('profile.9', leaked.length === 0, 'no environment variable value in the answer', leaked.length ? `the value of ${leaked.join(', ')} is in the answer` : 'none')
    },
  },
]
