/** The cases of § Profiles: each case's first clause is `profiles.N`. */
import { Unsupported, type Case } from '../../types.ts'
import { NAMED_GRANTS, offeredTools, providerBlock, PERMISSION_MODES } from '../../harness/case-helpers/index.ts'

export const profilesCases: Case[] = [
  {
    id: 'create-provider-mcp-servers-400', title: 'a provider session bringing its own mcpServers is a 400', section: 'profiles',
    clauses: ['profiles.6', 'errors.4'], requires: ['provider'],
    async run(ctx) {
      ctx.errorStatus('errors.4', await ctx.http('POST', '/sessions', { body: { profile: ctx.profile('provider'), mcpServers: { x: { type: 'http', url: 'http://127.0.0.1:9/mcp' } } } }), 400)
    },
  },
  {
    id: 'create-capabilities-only-narrow', title: 'a create request\'s capabilities may only narrow the profile grant', section: 'profiles',
    clauses: ['profiles.6', 'profile.8', 'errors.4', 'embedding-rules.7'], requires: ['provider'],
    async run(ctx) {
      const alt = ctx.manifest.profiles.providerAlt
      const profile = (await ctx.http('GET', `/profiles/${alt ?? ctx.profile('provider')}`)).json?.profile
      const granted: string[] | undefined = profile?.session?.capabilities
      if (!alt || !granted) throw new Unsupported('no provider profile with an explicit grant list in the manifest')
      const notGranted = ['web_fetch', 'web_search', 'download', 'deliver_file'].find((g) => !granted!.includes(g))!
      ctx.errorStatus('profiles.6', await ctx.http('POST', '/sessions', { body: { profile: alt, capabilities: [notGranted] } }), 400)
      const narrowed = await ctx.http('POST', '/sessions', { body: { profile: alt, capabilities: [] } })
      ctx.status('profiles.6', narrowed, 201)
      await ctx.http('DELETE', `/sessions/${narrowed.json.session.id}`)
    },
  },
  {
    id: 'profiles-list', title: 'GET /profiles lists ProfileInfo with capabilities and models, and canManage', section: 'profiles',
    clauses: ['profiles.1', 'profile.9', 'profile.4', 'profile.6', 'engine-capability-record.1', 'what-the-service-does.4', 'server-configuration.5'], requires: [],
    async run(ctx) {
      const res = await ctx.http('GET', '/profiles')
      ctx.status('profiles.1', res, 200)
      ctx.check('profiles.1', Array.isArray(res.json?.profiles) && typeof res.json?.canManage === 'boolean', '{profiles, canManage}', res.text.slice(0, 200))
      for (const p of res.json.profiles) {
        // `managed` is "true for store-backed": a declared profile may leave it out.
        ctx.check('profile.9', typeof p.capabilities === 'object' && Array.isArray(p.models) && (p.managed === undefined || typeof p.managed === 'boolean'), `ProfileInfo ${p.name} with capabilities and models (managed a boolean when present)`, p)
        // "The record also lists supported permission modes" without naming the key (protocol 7's
        // client reads `permissionModes`): some list of permission modes, under any key.
        const listsModes = Object.values(p.capabilities ?? {}).some((v) => Array.isArray(v) && v.length > 0 && v.every((m) => PERMISSION_MODES.includes(m as string)))
        ctx.check('engine-capability-record.1', listsModes && typeof p.capabilities.hostCwd === 'boolean', 'a capability record with hostCwd and a list of permission modes', p.capabilities)
        ctx.check('profile.4', ['cli_primary', 'cli_secondary', 'provider'].includes(p.engine), 'engine one of cli_primary, cli_secondary, provider', p.engine)
        ctx.check('profile.6', p.description === undefined || typeof p.description === 'string', 'description a string when present', p.description)
      }
      const provider = res.json.profiles.find((p: any) => p.name === ctx.manifest.profiles.provider)
      if (provider) ctx.check('profile.9', provider.models.length > 0, 'a static model catalog served from the first request', provider.models)
    },
  },
  {
    id: 'profiles-get-one', title: 'GET /profiles/:name reads one profile; an unknown name is 404', section: 'profiles',
    clauses: ['profiles.3', 'profile.1', 'errors.3'], requires: [],
    async run(ctx) {
      const name = ctx.profile('provider')
      const res = await ctx.http('GET', `/profiles/${name}`)
      ctx.status('profiles.3', res, 200)
      ctx.equal('profiles.3', res.json?.profile?.name, name, 'profile.name')
      ctx.status('profiles.3', await ctx.http('GET', '/profiles/no-such-profile'), 404)
    },
  },
  {
    id: 'compat-profile-create-status', title: 'protocol 7: POST /profiles answers 200 {profile}', section: 'profiles',
    clauses: ['profiles.2'], requires: ['profileStore', 'principal:manager', 'provider'],
    async run(ctx) {
      const name = `kit-compat-${Math.floor(ctx.random() * 1e9)}`
      const created = await ctx.http('POST', '/profiles', { as: 'manager', body: { name, engine: 'provider', provider: { id: 'fake', model: ctx.manifest.models?.provider?.[0] ?? 'fake-small' } } })
      ctx.onCleanup(() => ctx.http('DELETE', `/profiles/${name}`, { as: 'manager' }))
      ctx.check('profiles.2', created.status === 200 || created.status === 201, 'the profile created', `HTTP ${created.status} ${created.text.slice(0, 200)}`)
      // profiles.2 gives no status: another 2xx is an observation; the {profile} answer is protocol 7's shape.
      ctx.observe(created.status === 200, `POST /profiles answered ${created.status}; protocol 7 answers 200`)
      ctx.nonStrict(created.json?.profile?.name === name, `POST /profiles answered ${created.text.slice(0, 120)}; protocol 7 answers {profile}`)
    },
  },
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
    id: 'provider-each-grant-offers-a-tool', title: 'a provider session narrowed to one wired grant offers more tools than one narrowed to none, for each named grant', section: 'profiles',
    clauses: ['profiles.6', 'embedding-rules.6', 'embedding-rules.8', 'profile.8', 'events.2'], requires: ['provider', 'profile:providerAllGrants'],
    async run(ctx) {
      // The providerAllGrants role declares a profile granting all four with each backend wired
      // (embedding-rules.8: the host wires, the profile grants). Grants are added one at a time
      // (embedding-rules.6), so a session narrowed to one grant must offer something a session
      // narrowed to none does not; which tool names a grant brings is the target's own.
      const profile = ctx.profile('providerAllGrants')
      const none = new Set(await offeredTools(ctx, profile, []))
      for (const grant of NAMED_GRANTS) {
        const tools = await offeredTools(ctx, profile, [grant])
        const added = tools.filter((t) => !none.has(t))
        ctx.check('embedding-rules.6', added.length > 0, `a session narrowed to ['${grant}'] offers a tool a session narrowed to [] does not`, `the same tools: ${tools.join(', ')}`)
      }
    },
  },
]
