/** The cases of § Session (SessionInfo): each case's first clause is `session.N`. */
import { NonStrict, Unsupported, type Case } from '../../types.ts'
import { createHash } from 'node:crypto'
import { compareFixed, sessionStreamCase, projectCase } from '../../harness/case-helpers/index.ts'

export const sessionCases: Case[] = [
  {
    id: 'sessions-title-from-socket-prompt', title: 'a title derives from the first prompt even when it is sent over the socket', section: 'session',
    clauses: ['session.2'], requires: ['provider'],
    async run(ctx) {
      const { session, ws } = await ctx.idleSession()
      const prompt = `Inventory the shed ${Math.floor(ctx.random() * 1e6)}`
      ws.send({ type: 'user_message', text: `${prompt}\nand list the tools` })
      await ws.waitForEvent('turn_result', ctx.deadlineMs)
      const title = (await ctx.http('GET', `/sessions/${session.id}`)).json?.session?.title
      // "derived from the first prompt": the first prompt's opening words, whichever channel carried it.
      ctx.check('session.2', typeof title === 'string' && title.length > 0 && prompt.startsWith(title.replace(/…$/, '').trim().slice(0, 12)), `a title derived from the first prompt "${prompt}…"`, title)
    },
  },
  {
    id: 'ws-activity-count-monotonic', title: 'activityCount grows with transcript rows and never decreases', section: 'session',
    clauses: ['session.4', 'events.22', 'versioning.4'], requires: ['provider'],
    async run(ctx) {
      const { session, ws } = await ctx.idleSession()
      const read = async () => (await ctx.http('GET', `/sessions/${session.id}`)).json.session.activityCount as number
      const counts = [await read()]
      // session.1 lists activityCount without requiring it; session.4 says how it moves when it is there.
      if (typeof counts[0] !== 'number') throw new Unsupported(`SessionInfo carries no activityCount (${JSON.stringify(counts[0])})`)
      for (const text of ['one', 'two']) {
        ws.send({ type: 'user_message', text })
        await ws.waitFor(() => ws.events().filter((e) => e.type === 'turn_result').length === counts.length, ctx.deadlineMs, `turn ${counts.length}'s turn_result`)
        counts.push(await read())
      }
      // A reset is sent only when the session's record offers clear_context (clearContext; absent
      // means false, engine-capability-record.1): the command is not the target's to accept otherwise.
      if (session.capabilities?.clearContext === true) {
        ws.send({ type: 'clear_context' })
        await ws.waitForEvent('conversation_reset', ctx.deadlineMs)
        counts.push(await read())
      }
      ctx.check('session.4', counts.every((c, i) => i === 0 || c >= counts[i - 1]), 'activityCount never decreasing (across a reset too, where the engine offers one)', counts)
      ctx.check('events.22', counts[1] > counts[0] && counts[2] > counts[1], 'activityCount growing with each turn', counts)
    },
  },
  {
    id: 'session-project-and-icon', title: 'project comes from the nearest .gateway.json above cwd; its icon is a content-hash address served by /project/icon', section: 'session',
    clauses: ['session.3', 'sessions.12'], requires: ['cli_primary', 'project'],
    async run(ctx) {
      const project = ctx.manifest.project!
      const session = await ctx.createSession({ profile: ctx.profile('cli_primary'), cwd: project.cwd })
      const info = (await ctx.http('GET', `/sessions/${session.id}`)).json?.session
      ctx.equal('session.3', info?.project?.name, project.name, 'project name')
      ctx.check('session.3', typeof info?.project?.root === 'string' && project.cwd.startsWith(info.project.root), 'the root is an ancestor of cwd', info?.project)
      const icon = info?.project?.icon
      ctx.check('session.3', typeof icon === 'object' && typeof icon.hash === 'string' && typeof icon.mediaType === 'string', 'an icon address (mediaType and hash), never bytes', icon)
      const res = await ctx.http('GET', `/sessions/${session.id}/project/icon`)
      ctx.status('sessions.12', res, 200)
      const digest = createHash('sha256').update(Buffer.from(res.text)).digest('hex')
      ctx.equal('sessions.12', digest, icon.hash, 'sha256 of the served bytes')
      const cached = await ctx.http('GET', `/sessions/${session.id}/project/icon`, { headers: { 'if-none-match': `"${icon.hash}"` } })
      ctx.nonStrict(cached.status === 304, `a conditional request is answered ${cached.status}; protocol 7 answers 304`)
    },
  },
  {
    id: 'compat-session-cwd', title: "protocol-7 client: SessionInfo.cwd is a string ('' for an engine without a host filesystem)", section: 'session',
    clauses: ['session.6', 'createsessionrequest.2'], requires: ['provider'],
    async run(ctx) {
      const session = await ctx.createSession({ profile: ctx.profile('provider') })
      if (session.capabilities?.hostCwd !== false) throw new NonStrict('the provider profile reports hostCwd true')
      ctx.nonStrict(session.cwd === '', `SessionInfo.cwd is ${JSON.stringify(session.cwd)}; the protocol-7 client types it as a string ('' without a host filesystem); the spec does not show its type`)
    },
  },
  {
    id: 'session-cumulative-after-later-events', title: 'numTurns and totalCostUsd keep their values across later events that are not turns', section: 'session',
    clauses: ['session.1', 'events.12', 'commands.4', 'events.6'], requires: ['provider'],
    async run(ctx) {
      // session.1: both are session-cumulative, so only a turn may change them; a permission mode
      // change or a rename is no turn. Whatever the target reports after the turn must stay.
      const { session, ws } = await ctx.idleSession()
      ws.send({ type: 'user_message', text: 'scenario:hello' })
      const result = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'idle' && e.seq > result.seq)
      const read = async () => (await ctx.http('GET', `/sessions/${session.id}`)).json.session
      const after = await read()
      // A mode the session's own record offers, other than the current one (commands.4).
      const modes: unknown = after.capabilities?.permissionModes
      const mode = Array.isArray(modes) ? modes.find((m) => typeof m === 'string' && m !== after.permissionMode && m !== 'bypassPermissions') : undefined
      if (typeof mode === 'string') {
        ws.send({ type: 'set_permission_mode', mode })
        await ws.waitForEvent('permission_mode_changed', ctx.deadlineMs)
        const moved = await read()
        ctx.equal('session.1', moved.numTurns, after.numTurns, 'SessionInfo.numTurns after set_permission_mode (no turn ran)')
        ctx.equal('session.1', moved.totalCostUsd, after.totalCostUsd, 'SessionInfo.totalCostUsd after set_permission_mode (no turn ran)')
      }
      await ctx.http('PATCH', `/sessions/${session.id}`, { body: { title: 'renamed' } })
      const renamed = await read()
      ctx.equal('session.1', renamed.numTurns, after.numTurns, 'SessionInfo.numTurns after a rename (no turn ran)')
      ctx.equal('session.1', renamed.totalCostUsd, after.totalCostUsd, 'SessionInfo.totalCostUsd after a rename (no turn ran)')
    },
  },
  {
    id: 'session-fixed-fields-after-later-events', title: 'scope, canBypassPermissions and the session\'s identity keep their creation values through turns, a mode change, a rename and a re-attach', section: 'session',
    clauses: ['session.1', 'scope.1', 'updatesessionrequest.1'], requires: ['provider', 'principal:tenantA'],
    async run(ctx) {
      // A scoped caller, so the create stamps a scope (sessions.2), and a bypass request the gateway may strip or keep.
      const created = await ctx.createSession({ allowDangerouslySkipPermissions: true }, 'tenantA')
      const read = async (): Promise<Record<string, unknown>> => (await ctx.http('GET', `/sessions/${created.id}`, { as: 'tenantA' })).json?.session
      const ws = await ctx.ws(created.id, { as: 'tenantA' })
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'idle')
      for (const text of ['scenario:hello']) {
        const last = Math.max(0, ...ws.frames.map((f) => (typeof f.event?.seq === 'number' ? f.event.seq : 0)))
        ws.send({ type: 'user_message', text })
        const result = await ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.seq > last)
        await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'idle' && e.seq > result.seq)
      }
      compareFixed(ctx, created, await read(), 'after a turn')
      const now = await read()
      const modes: unknown = (now.capabilities as { permissionModes?: unknown } | undefined)?.permissionModes
      const mode = Array.isArray(modes) ? modes.find((m) => typeof m === 'string' && m !== now.permissionMode && m !== 'bypassPermissions') : undefined
      if (typeof mode === 'string') {
        ws.send({ type: 'set_permission_mode', mode })
        await ws.waitForEvent('permission_mode_changed', ctx.deadlineMs)
        compareFixed(ctx, created, await read(), `after set_permission_mode ${mode}`)
      }
      // updatesessionrequest.1 names only `title`: a scope in the body must not move the session.
      await ctx.http('PATCH', `/sessions/${created.id}`, { as: 'tenantA', body: { title: 'kit renamed', scope: { kit: 'moved' } } })
      compareFixed(ctx, created, await read(), 'after a rename whose body also carried a scope')
      const listed = ((await ctx.http('GET', '/sessions', { as: 'tenantA' })).json?.sessions ?? []).find((s: any) => s?.id === created.id)
      compareFixed(ctx, created, listed, 'in GET /sessions')
      ws.close()
      const again = await ctx.ws(created.id, { as: 'tenantA' })
      const attached = await again.waitFor((f) => f.type === 'attached', ctx.deadlineMs, 'attached')
      compareFixed(ctx, created, attached.session, 'in the attached frame of a second attach')
      again.close()
    },
  },
  // The session's fields and its stream on each engine (conformance/matrix).
  sessionStreamCase('provider'),
  sessionStreamCase('cli_primary'),
  sessionStreamCase('cli_secondary'),
  // The project found from a cli_secondary session's cwd (conformance/matrix).
  projectCase('cli_secondary'),
]
