/** Cases for server-wide behaviour: body limits, fallback, basePath, profiles and unconfigured families. */
import { requireRunningQueue } from './jobs.ts'
import { Unsupported, type Case } from '../types.ts'



/** The permission-mode vocabulary (profile.10). */
const PERMISSION_MODES = ['default', 'acceptEdits', 'bypassPermissions', 'dontAsk', 'auto']
/** `value` as JSON of exactly `bytes` bytes, padded with `x` in the (empty) string field `key` (at any depth). */
function jsonOfBytes(value: Record<string, unknown>, key: string, bytes: number): string {
  const empty = JSON.stringify(value)
  const marker = `"${key}":""`
  if (!empty.includes(marker)) throw new Error(`jsonOfBytes: no empty "${key}" in ${empty}`)
  return empty.replace(marker, `"${key}":"${'x'.repeat(Math.max(0, bytes - Buffer.byteLength(empty)))}"`)
}
export const serverCases: Case[] = [
  {
    id: 'limits-body-over-max-413', title: 'a JSON body over maxBodyBytes is refused (the status is open: 413 as the spec\'s size row, or 500 as protocol 7)', section: 'limits',
    clauses: ['limits.1', 'errors.7', 'server-configuration.15'], requires: [],
    async run(ctx) {
      // One byte over the limit, exactly (limits.1: "maximum JSON body").
      const limit = ctx.manifest.limits?.maxBodyBytes ?? 1024 * 1024
      const res = await ctx.http('POST', '/sessions', { raw: jsonOfBytes({ profile: ctx.manifest.profiles.provider, prompt: '' }, 'prompt', limit + 1), headers: { 'content-type': 'application/json' } })
      if (res.status >= 200 && res.status < 300) await ctx.http('DELETE', `/sessions/${res.json?.session?.id}`)
      ctx.check('limits.1', res.status >= 400, 'the oversized body refused', `HTTP ${res.status}`)
      // errors.7: "status for body overflow: not shown". Protocol 7 answers 500; 413 follows the
      // spec's own row for size caps. Only another status departs from both.
      ctx.observe(res.status === 413 || res.status === 500, `a body over maxBodyBytes answered ${res.status}; protocol 7 answers 500 (and the spec's size row 413)`)
    },
  },
  {
    id: 'limits-body-under-max-accepted', title: 'a body just under maxBodyBytes is accepted', section: 'limits',
    clauses: ['limits.1', 'server-configuration.15'], requires: ['provider'],
    async run(ctx) {
      const limit = ctx.manifest.limits?.maxBodyBytes
      if (!limit) throw new Unsupported('the manifest does not give limits.maxBodyBytes')
      // Exactly maxBodyBytes: the maximum itself is allowed (limits.1).
      const res = await ctx.http('POST', '/sessions', { raw: jsonOfBytes({ profile: ctx.profile('provider'), meta: { pad: '' } }, 'pad', limit), headers: { 'content-type': 'application/json' } })
      ctx.status('limits.1', res, 201)
      await ctx.http('DELETE', `/sessions/${res.json.session.id}`)
    },
  },
  {
    id: 'embedding-fallback-outside-base-path', title: 'requests outside basePath reach the fallback without authentication', section: 'embedding-rules',
    clauses: ['embedding-rules.1', 'embedding-rules.2', 'server-configuration.13', 'what-the-service-does.13'], requires: ['fallback'],
    async run(ctx) {
      const path = ctx.manifest.fallback?.path ?? '/'
      const res = await ctx.http('GET', `${ctx.origin}${path}`, { as: 'none' })
      ctx.check('embedding-rules.1', res.status !== 401, 'no authentication outside basePath', res.status)
      ctx.status('server-configuration.13', res, 200)
    },
  },
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
    id: 'profiles-credentials-never-shown', title: 'no credential value appears in profile responses', section: 'profile',
    clauses: ['profile.5', 'authentication.8'], requires: [],
    async run(ctx) {
      const res = await ctx.http('GET', '/profiles')
      const text = res.text
      ctx.check('profile.5', !/sk-[A-Za-z0-9]{8,}|"apiKey"\s*:/.test(text), 'no key-shaped value or apiKey field', text.slice(0, 200))
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
    id: 'profiles-management-without-store-404', title: 'profile management without a profileStore is 404', section: 'authentication',
    clauses: ['authentication.6', 'profiles.2', 'profiles.4', 'profiles.5', 'errors.3'], requires: ['absent:profileStore', 'principal:manager'],
    async run(ctx) {
      ctx.errorStatus('authentication.6', await ctx.http('POST', '/profiles', { as: 'manager', body: { name: 'new-one', engine: 'provider' } }), 404)
      ctx.errorStatus('authentication.6', await ctx.http('DELETE', `/profiles/${ctx.profile('provider')}`, { as: 'manager' }), 404)
    },
  },
  {
    id: 'unconfigured-queue-404', title: 'job and queue routes answer 404 without a queue', section: 'jobs-and-queue',
    clauses: ['jobs-and-queue.1', 'jobs-and-queue.5', 'errors.3'], requires: ['absent:queue'],
    async run(ctx) {
      for (const path of ['/jobs', '/queue', '/jobs/some-id']) ctx.errorStatus('errors.3', await ctx.http('GET', path), 404)
    },
  },
  {
    id: 'unconfigured-fs-404', title: '/fs routes answer 404 unless host files are configured', section: 'engine-session-stores-and-host-files',
    clauses: ['engine-session-stores-and-host-files.8', 'errors.3'], requires: ['absent:hostFiles'],
    async run(ctx) {
      for (const path of ['/fs/roots', '/fs/list?path=/']) ctx.errorStatus('engine-session-stores-and-host-files.8', await ctx.http('GET', path), 404)
    },
  },
  {
    id: 'executions-unknown-404', title: 'a result for an unknown execution id is 404', section: 'sessions',
    clauses: ['sessions.15', 'errors.3'], requires: [],
    async run(ctx) {
      ctx.errorStatus('errors.3', await ctx.http('POST', '/executions/no-such-execution/result', { body: { status: 'ok', output: { type: 'text', value: 'x' } } }), 404)
    },
  },
]

export const profileDefaultCases: Case[] = [
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
    id: 'ws-unknown-executions-and-requests-harmless', title: 'decisions and tool results for unknown ids never break the session', section: 'commands',
    clauses: ['commands.2', 'commands.8', 'commands.9', 'errors.12'], requires: ['provider'],
    async run(ctx) {
      const { ws } = await ctx.idleSession()
      ws.send({ type: 'permission_decision', requestId: 'no-such-request', behavior: 'allow' })
      ws.send({ type: 'permission_decision', requestId: 'no-such-request', behavior: 'deny', message: 'no', interrupt: false })
      ws.send({ type: 'tool_call_result', executionId: 'no-such-execution', result: { type: 'text', value: 'x' } })
      ws.send({ type: 'tool_call_error', executionId: 'no-such-execution', error: 'boom' })
      ws.send({ type: 'user_message', text: 'still fine?' })
      ctx.equal('commands.2', (await ws.waitForEvent('turn_result', ctx.deadlineMs)).isError, false, 'a turn after the unknown ids')
      ctx.check('errors.12', ws.open, 'the socket still open', 'closed')
    },
  },
]

export const availabilityCases: Case[] = [
  {
    id: 'profile-unavailable-503', title: 'create and job submit on a profile the credential probe reports unavailable answer 503 with its reason', section: 'errors',
    clauses: ['errors.10', 'server-configuration.19', 'server-configuration.20', 'profile.9'], requires: ['requireAvailableProfile', 'profile:unavailable'],
    async run(ctx) {
      const profile = ctx.profile('unavailable')
      // The probe runs after listen, fire-and-forget: wait for its verdict to show.
      let listed: any
      for (const deadline = Date.now() + ctx.deadlineMs; Date.now() < deadline;) {
        listed = (await ctx.http('GET', '/profiles')).json?.profiles?.find((p: any) => p.name === profile)
        if (listed?.available !== undefined) break
        await new Promise((r) => setTimeout(r, 50))
      }
      ctx.check('profile.9', listed?.available === false && typeof listed?.unavailableReason === 'string', 'ProfileInfo available: false with unavailableReason', listed)
      const create = await ctx.http('POST', '/sessions', { body: { profile, cwd: ctx.manifest.cwdRoot, prompt: 'hi' } })
      ctx.errorStatus('errors.10', create, 503)
      // "answers 503 with the probe's reason": somewhere in the body, whose shape is open (errors.16).
      ctx.check('server-configuration.20', typeof listed.unavailableReason === 'string' && (create.text.includes(listed.unavailableReason) || create.text.includes(JSON.stringify(listed.unavailableReason).slice(1, -1))), "the probe's reason in the error", create.text.slice(0, 200))
      if (ctx.manifest.features.includes('queue')) {
        const job = await ctx.http('POST', '/jobs', { body: { session: { profile, cwd: ctx.manifest.cwdRoot, prompt: 'hi' } } })
        ctx.errorStatus('errors.10', job, 503)
      }
      const fine = await ctx.http('POST', '/sessions', { body: { profile: ctx.profile('provider') } })
      ctx.status('server-configuration.20', fine, 201)
      await ctx.http('DELETE', `/sessions/${fine.json?.session?.id}`)
    },
  },
  {
    id: 'build-runner-config-applies-everywhere', title: 'buildRunnerConfig shapes client sessions and queue jobs alike', section: 'server-configuration',
    clauses: ['server-configuration.10'], requires: ['provider', 'buildRunnerConfigStamp'],
    async run(ctx) {
      const stamp = ctx.manifest.buildRunnerConfigStamp!
      const session = await ctx.createSession({})
      const info = (await ctx.http('GET', `/sessions/${session.id}`)).json?.session
      ctx.equal('server-configuration.10', info?.meta?.[stamp.key], stamp.value, 'the hook\'s stamp on a client session')
      if (!ctx.manifest.features.includes('queue')) return
      await requireRunningQueue(ctx)
      const res = await ctx.http('POST', '/jobs', { body: { session: { profile: ctx.profile('provider'), prompt: 'hello' } } })
      const jobId = res.json?.job?.id
      let job: any
      for (const deadline = Date.now() + ctx.deadlineMs; Date.now() < deadline;) {
        job = (await ctx.http('GET', `/jobs/${jobId}`)).json?.job
        if (job?.sessionId) break
        await new Promise((r) => setTimeout(r, 25))
      }
      if (typeof job?.sessionId !== 'string') throw new Unsupported('JobInfo names no sessionId (not a stated field) to read the job session by')
      const jobSession = (await ctx.http('GET', `/sessions/${job?.sessionId}`)).json?.session
      ctx.equal('server-configuration.10', jobSession?.meta?.[stamp.key], stamp.value, 'the hook\'s stamp on a job session')
    },
  },
  {
    id: 'profiles-managed-lifecycle', title: 'a manager creates, edits and deletes managed profiles; declared ones are read-only; credential dirs stay in allowedConfigDirRoots', section: 'profiles',
    clauses: ['server-configuration.6', 'server-configuration.7', 'principal.4', 'profile.3', 'errors.4', 'errors.5', 'errors.6'], requires: ['profileStore', 'principal:manager', 'provider'],
    async run(ctx) {
      const name = ctx.unique('kit-managed')
      const body = { name, engine: 'provider', provider: { id: 'fake', model: ctx.manifest.models?.provider?.[0] ?? 'fake-small' } }
      ctx.errorStatus('principal.4', await ctx.http('POST', '/profiles', { body }), 403)
      const created = await ctx.http('POST', '/profiles', { as: 'manager', body })
      // The spec gives no status for POST /profiles ("Created profile"); protocol 7 answers 200.
      ctx.created('server-configuration.6', created, 200)
      ctx.check('server-configuration.6', created.json?.profile?.managed === true, 'the created profile, managed: true', created.text.slice(0, 200))
      ctx.onCleanup(() => ctx.http('DELETE', `/profiles/${name}`, { as: 'manager' }))
      ctx.errorStatus('errors.6', await ctx.http('POST', '/profiles', { as: 'manager', body }), 409)
      ctx.errorStatus('errors.4', await ctx.http('POST', '/profiles', { as: 'manager', body: { ...body, name: `${name}-bad`, defaults: { permissionMode: 'acceptEdits' } } }), 400)
      const edited = await ctx.http('PATCH', `/profiles/${name}`, { as: 'manager', body: { description: 'edited by the kit' } })
      ctx.equal('server-configuration.6', edited.json?.profile?.description, 'edited by the kit', 'description after PATCH')
      ctx.errorStatus('errors.5', await ctx.http('PATCH', `/profiles/${ctx.profile('provider')}`, { as: 'manager', body: { description: 'x' } }), 403)
      ctx.errorStatus('errors.5', await ctx.http('POST', '/profiles', { as: 'manager', body: { name: `${name}-cli`, engine: 'cli_primary', configDir: '/' } }), 403)
      // Both refusals apply: codexHome on a cli_primary profile is malformed (profile.3, errors.4:
      // startup would refuse it, 400) and '/' is a credential directory outside
      // allowedConfigDirRoots (errors.5, 403). The spec does not rank them: either is right.
      ctx.refusal('profile.3', await ctx.http('POST', '/profiles', { as: 'manager', body: { name: `${name}-codex`, engine: 'cli_primary', codexHome: '/' } }), { allowed: [400, 403], why: 'malformed (400) and outside allowedConfigDirRoots (403), unranked' })
      if (ctx.manifest.cwdRoot) {
        const inside = await ctx.http('POST', '/profiles', { as: 'manager', body: { name: `${name}-cli`, engine: 'cli_primary', configDir: ctx.manifest.cwdRoot } })
        ctx.created('server-configuration.7', inside, 200)
        await ctx.http('DELETE', `/profiles/${name}-cli`, { as: 'manager' })
      }
      const deleted = await ctx.http('DELETE', `/profiles/${name}`, { as: 'manager' })
      ctx.status('server-configuration.6', deleted, 204)
      ctx.errorStatus('server-configuration.6', await ctx.http('GET', `/profiles/${name}`), 404)
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
    id: 'profiles-auto-detected', title: 'a gateway without declared profiles detects default and codex from the engines\' home directories', section: 'server-configuration',
    clauses: ['server-configuration.26'], requires: ['autodetect'],
    async run(ctx) {
      const target = ctx.manifest.autodetect!
      const res = await ctx.http('GET', `${target.baseUrl}/profiles`)
      ctx.status('server-configuration.26', res, 200)
      const detected = Object.fromEntries((res.json?.profiles ?? []).map((p: any) => [p.name, p.engine]))
      ctx.equal('server-configuration.26', detected, target.profiles, 'detected profiles (name → engine)')
      ctx.check('server-configuration.26', (res.json?.profiles ?? []).every((p: any) => p.managed === false), 'declared (read-only) profiles, since that gateway has no profileStore', res.json)
    },
  },
]
