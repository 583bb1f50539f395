/** The cases of § Server configuration (createGatewayServer options): each case's first clause is `server-configuration.N`. */
import { scripted } from '../../harness/scripted-engine.ts'
import { Unsupported, type Case } from '../../types.ts'
import { primary, cwdRoot, outsideRefused, postJob, requireRunningQueue, bypassDisabledCase } from '../../harness/case-helpers/index.ts'

export const serverConfigurationCases: Case[] = [
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
    id: 'ws-bypass-refused-when-disabled', title: 'set_permission_mode refuses bypassPermissions when disabled', section: 'server-configuration',
    clauses: ['server-configuration.16', 'errors.12'], requires: ['provider', 'bypassDisabled'],
    async run(ctx) {
      const { session, ws } = await ctx.idleSession()
      ws.send({ type: 'set_permission_mode', mode: 'bypassPermissions' })
      await ws.waitFor((f) => f.type === 'protocol_error', ctx.deadlineMs, 'a protocol_error')
      ctx.check('server-configuration.16', (await ctx.http('GET', `/sessions/${session.id}`)).json.session.permissionMode !== 'bypassPermissions', 'the mode unchanged', 'bypassPermissions')
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
    id: 'profiles-managed-lifecycle', title: 'a manager creates, edits and deletes managed profiles; declared ones are read-only; credential dirs stay in allowedConfigDirRoots', section: 'server-configuration',
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
  {
    id: 'cli-primary-approval-timeout', title: 'an unanswered approval is denied at approvalTimeoutMs with resolvedBy timeout, and the session ends idle', section: 'server-configuration',
    clauses: ['server-configuration.17', 'limits.7', 'permission-request.1'], requires: ['cli_primary'],
    async run(ctx) {
      const { session, ws } = await primary(ctx, { approvalTimeoutMs: 150 })
      ws.send({ type: 'user_message', text: 'scenario:permission-write' })
      const resolved = await ws.waitForEvent('permission_resolved', ctx.deadlineMs)
      ctx.equal('server-configuration.17', [resolved.behavior, resolved.resolvedBy], ['deny', 'timeout'], 'behavior and resolvedBy')
      // Not before approvalTimeoutMs: both events' `ts` are on the target's clock (a millisecond of rounding).
      const requested = ws.events().find((e) => e.type === 'permission_requested')
      ctx.check('limits.7', resolved.ts - requested.ts >= 150 - 1, 'the denial no sooner than approvalTimeoutMs (150 ms) after the request', `${resolved.ts - requested.ts} ms`)
      await ws.waitForEvent('turn_result', ctx.deadlineMs)
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'idle' && e.seq > resolved.seq)
      ctx.equal('permission-request.1', (await ctx.http('GET', `/sessions/${session.id}`)).json?.session?.status, 'idle', 'status after the timed-out approval')
    },
  },
  {
    id: 'cli-primary-require-api-key', title: 'with requireApiKey, a session signed in with a subscription (oauth) is terminated with session_error', section: 'server-configuration',
    clauses: ['server-configuration.18', 'session-status-values.10'], requires: ['cli_primary', 'requireApiKey', 'profile:cliPrimarySubscription', scripted('cli_primary', 'subscription-login')],
    async run(ctx) {
      const cwd = ctx.manifest.cwdRoot
      if (!cwd) throw new Unsupported('the manifest gives no cwdRoot')
      // Attached before the turn starts, so every event is seen live: a replay may compact
      // superseded events (websocket-framing.1 is judged by the cases that read replays).
      const session = await ctx.createSession({ profile: ctx.profile('cliPrimarySubscription'), cwd })
      const ws = await ctx.ws(session.id)
      ws.send({ type: 'user_message', text: 'hello' })
      const init = await ws.waitForEvent('system_init', ctx.deadlineMs)
      ctx.equal('session-status-values.10', init.apiKeySource, 'oauth', 'apiKeySource of the subscription profile')
      const error = await ws.waitForEvent('session_error', ctx.deadlineMs)
      ctx.check('server-configuration.18', typeof error.message === 'string', 'a session_error', error)
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'failed')
      ctx.check('session-status-values.10', !ws.events().some((e) => e.type === 'turn_result'), 'no turn ran on the refused login', ws.events().map((e) => e.type))
    },
  },
  {
    id: 'create-cwd-sibling-of-root-refused', title: 'a cwd that shares the root\'s name as a prefix (root-x beside root) is outside the root', section: 'server-configuration',
    clauses: ['server-configuration.4', 'errors.5'], requires: ['cli_primary'],
    async run(ctx) {
      const root = cwdRoot(ctx)
      const profile = ctx.profile('cli_primary')
      for (const cwd of [`${root}-x`, `${root}x/inner`]) {
        const res = await ctx.http('POST', '/sessions', { body: { profile, cwd } })
        if (res.status === 201 && typeof res.json?.session?.id === 'string') ctx.onCleanup(() => ctx.http('DELETE', `/sessions/${res.json.session.id}`))
        outsideRefused(ctx, res, `POST /sessions cwd ${cwd}`)
      }
      // The root itself is inside it: the boundary is not outside.
      const inside = await ctx.http('POST', '/sessions', { body: { profile, cwd: root } })
      if (typeof inside.json?.session?.id === 'string') ctx.onCleanup(() => ctx.http('DELETE', `/sessions/${inside.json.session.id}`))
      ctx.status('server-configuration.4', inside, 201)
      const listed = await ctx.http('GET', `/sdk-sessions?profile=${encodeURIComponent(profile)}&dir=${encodeURIComponent(`${root}-x`)}`)
      ctx.refusal('server-configuration.4', listed, { protocol7: 403, why: '/sdk-sessions dir beside the root, not inside it' })
    },
  },
  {
    id: 'jobs-create-cwd-outside-roots-403', title: 'POST /jobs refuses a session.cwd outside allowedCwdRoots, as POST /sessions does', section: 'server-configuration',
    clauses: ['server-configuration.4', 'errors.5', 'other-shapes.4'], requires: ['cli_primary', 'queue'],
    async run(ctx) {
      const root = cwdRoot(ctx)
      await requireRunningQueue(ctx)
      const profile = ctx.profile('cli_primary')
      ctx.errorStatus('server-configuration.4', await postJob(ctx, { profile, cwd: '/', prompt: 'hello' }), 403)
      ctx.errorStatus('server-configuration.4', await postJob(ctx, { profile, cwd: `${root}/../..`, prompt: 'hello' }), 403)
      outsideRefused(ctx, await postJob(ctx, { profile, cwd: `${root}-x`, prompt: 'hello' }), `POST /jobs session.cwd ${root}-x`)
    },
  },
  {
    id: 'jobs-create-bypass-disabled-403', title: 'POST /jobs refuses a bypassPermissions session when bypass is disabled, as POST /sessions does', section: 'server-configuration',
    clauses: ['server-configuration.16', 'errors.5', 'other-shapes.4'], requires: ['provider', 'queue', 'bypassDisabled'],
    async run(ctx) {
      await requireRunningQueue(ctx)
      ctx.errorStatus('server-configuration.16', await postJob(ctx, { profile: ctx.profile('provider'), prompt: 'hello', permissionMode: 'bypassPermissions' }), 403)
    },
  },
  // Bypass disabled on each CLI engine (conformance/matrix); the provider's is the case above.
  bypassDisabledCase('cli_primary'),
  bypassDisabledCase('cli_secondary'),
]
