/** Cases for CreateSessionRequest validation: cwd, forsworn fields, permission modes, grants, bypass policy. */
import { Unsupported, type Case } from '../types.ts'

/**
 * Request fields and the capability-record key that would forswear each (the keys this gateway's
 * records serve; the spec shows no keys beyond hostCwd, clearContext, mcpStatus, mcpServerActions
 * and interactiveApprovals). A field counts as forsworn only when the engine's served record holds
 * its key explicitly `false`: no clause forswears `allowedTools` or any other field by itself.
 */
const FIELD_KEYS: Array<[Record<string, unknown>, string]> = [
  [{ resume: 'some-session' }, 'resume'], [{ forkSession: true }, 'forkSession'], [{ settingSources: ['user'] }, 'settingSources'],
  [{ maxTurns: 2 }, 'budgets'], [{ maxBudgetUsd: 1 }, 'budgets'], [{ reasoningEffort: 'high' }, 'reasoningEffort'],
  [{ allowedTools: ['Bash'] }, 'toolFilters'], [{ disallowedTools: ['Bash'] }, 'toolFilters'],
]

export const createRequestCases: Case[] = [
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
    id: 'create-provider-mcp-servers-400', title: 'a provider session bringing its own mcpServers is a 400', section: 'profiles',
    clauses: ['profiles.6', 'errors.4'], requires: ['provider'],
    async run(ctx) {
      ctx.errorStatus('errors.4', await ctx.http('POST', '/sessions', { body: { profile: ctx.profile('provider'), mcpServers: { x: { type: 'http', url: 'http://127.0.0.1:9/mcp' } } } }), 400)
    },
  },
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
    id: 'create-cwd-required-for-host-engines', title: 'cwd is required for an engine that runs against a host directory', section: 'createsessionrequest',
    clauses: ['createsessionrequest.2', 'errors.4'], requires: [],
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
  {
    id: 'create-cwd-outside-roots-403', title: 'a cwd resolving outside allowedCwdRoots is a 403', section: 'server-configuration',
    clauses: ['server-configuration.4', 'errors.5'], requires: [],
    async run(ctx) {
      const root = ctx.manifest.cwdRoot
      if (!root) throw new Unsupported('the manifest gives no cwdRoot')
      const primary = ctx.profile('cli_primary')
      ctx.errorStatus('errors.5', await ctx.http('POST', '/sessions', { body: { profile: primary, cwd: '/' } }), 403)
      ctx.errorStatus('server-configuration.4', await ctx.http('POST', '/sessions', { body: { profile: primary, cwd: `${root}/../..` } }), 403)
    },
  },
  {
    id: 'create-bypass-disabled-403', title: 'bypassPermissions is refused with 403 when disabled', section: 'server-configuration',
    clauses: ['server-configuration.16', 'errors.5'], requires: ['provider', 'bypassDisabled'],
    async run(ctx) {
      ctx.errorStatus('server-configuration.16', await ctx.http('POST', '/sessions', { body: { profile: ctx.profile('provider'), permissionMode: 'bypassPermissions' } }), 403)
      // session.1 lists canBypassPermissions without requiring it: a target that sends it must send
      // false here (the flag was stripped); one that does not is not failed for the absence.
      const s = await ctx.createSession({ allowDangerouslySkipPermissions: true })
      if ('canBypassPermissions' in s) ctx.equal('server-configuration.16', s.canBypassPermissions, false, 'canBypassPermissions (allowDangerouslySkipPermissions stripped)')
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
    id: 'create-malformed-json-400', title: 'malformed JSON and a non-object body are 400', section: 'errors',
    clauses: ['errors.4', 'errors.11'], requires: [],
    async run(ctx) {
      ctx.errorStatus('errors.11', await ctx.http('POST', '/sessions', { raw: '{"profile":', headers: { 'content-type': 'application/json' } }), 400)
      ctx.errorStatus('errors.11', await ctx.http('POST', '/sessions', { body: [1, 2, 3] }), 400)
    },
  },
  {
    id: 'create-generated-hostile-bodies', title: 'generated hostile create bodies get a 2xx or 4xx, never a 5xx', section: 'errors',
    clauses: ['errors.11', 'createsessionrequest.1'], requires: ['provider'],
    async run(ctx) {
      const fields = ['profile', 'cwd', 'prompt', 'permissionMode', 'model', 'maxTurns', 'capabilities', 'scope', 'meta', 'includePartialMessages', 'approvalTimeoutMs', 'questionBehavior']
      const values = () => [null, 0, -1, 1e308, '', 'x'.repeat(300), [], {}, [1, 'a'], { a: { b: [null] } }, true, '\u0000', 'default'][Math.floor(ctx.random() * 13)]
      for (let i = 0; i < 60; i++) {
        const body: Record<string, unknown> = {}
        for (const f of fields) if (ctx.random() < 0.3) body[f] = values()
        const res = await ctx.http('POST', '/sessions', { body })
        ctx.check('errors.11', res.status < 500, `no 5xx for ${JSON.stringify(body)}`, `HTTP ${res.status} ${res.text.slice(0, 120)}`)
        if (res.status === 201) await ctx.http('DELETE', `/sessions/${res.json.session.id}`)
      }
    },
  },
]
