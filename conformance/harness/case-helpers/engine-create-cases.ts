/**
 * Case helpers: the create-time and per-session route rules tried on each engine
 * (conformance/matrix): refusals by the engine's record, bypass disabled, the MCP status route and
 * the project found from cwd. One case per engine.
 */
import type { Case } from '../../types.ts'
import { Unsupported } from '../../types.ts'
import type { Engine } from '../../matrix/dimensions.ts'
import { FIELD_KEYS } from './create-request.ts'
import { createBody } from './session-states.ts'

const slug = (engine: Engine) => engine.replace('_', '-')

export const createRefusalsCase = (engine: Engine): Case => ({
  id: `create-refusals-${slug(engine)}`,
  title: `${engine}: a create naming a field the record forswears, a mode outside the record, or no cwd where the engine needs one is a 400; a field the record holds true is taken`,
  section: 'createsessionrequest',
  clauses: ['createsessionrequest.3', 'createsessionrequest.2', 'createsessionrequest.1', 'sessions.2', 'profile.10', 'errors.4'],
  requires: [engine],
  async run(ctx) {
    const profile = ctx.profile(engine)
    const record = (await ctx.http('GET', `/profiles/${encodeURIComponent(profile)}`)).json?.profile?.capabilities
    if (!record) throw new Unsupported(`GET /profiles/${profile} shows no capability record`)
    const body = createBody(ctx, engine)
    const refused = async (clause: string, extra: Record<string, unknown>, why: string, base: Record<string, unknown> = body) => {
      const res = await ctx.http('POST', '/sessions', { body: { ...base, ...extra } })
      if (res.status >= 200 && res.status < 300) await ctx.http('DELETE', `/sessions/${res.json?.session?.id}`)
      ctx.check(clause, res.status === 400, `400 for ${why}`, `HTTP ${res.status} ${res.text.slice(0, 120)}`)
    }
    for (const [field, key] of FIELD_KEYS.filter(([, k]) => record[k] === false)) await refused('createsessionrequest.3', field, `${Object.keys(field)[0]} (the record has ${key}: false)`)
    await refused('profile.10', { permissionMode: 'kit-no-such-mode' }, 'a permission mode outside the record')
    const modes: unknown = record.permissionModes
    for (const mode of Array.isArray(modes) ? ['default', 'acceptEdits', 'bypassPermissions', 'dontAsk', 'auto'].filter((m) => !modes.includes(m)) : []) await refused('profile.10', { permissionMode: mode }, `${mode}, outside the record ${JSON.stringify(modes)}`)
    if (record.hostCwd === true) await refused('createsessionrequest.2', {}, 'a create without cwd on an engine with hostCwd', { profile })
    // The other side of createsessionrequest.3: a listed field (createsessionrequest.1) whose key the
    // record holds explicitly `true` is taken (sessions.2: 201), not refused as forsworn. Not resume
    // or forkSession: those name an engine session the kit would have to make first.
    for (const [field, key] of FIELD_KEYS.filter(([f, k]) => record[k] === true && !('resume' in f) && !('forkSession' in f))) {
      const res = await ctx.http('POST', '/sessions', { body: { ...body, ...field } })
      if (res.status >= 200 && res.status < 300) await ctx.http('DELETE', `/sessions/${res.json?.session?.id}`)
      ctx.check('createsessionrequest.1', res.status === 201, `201 for ${JSON.stringify(field)} (the record has ${key}: true)`, `HTTP ${res.status} ${res.text.slice(0, 120)}`)
    }
  },
})

export const bypassDisabledCase = (engine: Engine): Case => ({
  id: `create-bypass-disabled-403-${slug(engine)}`,
  title: `${engine}: bypassPermissions is refused with 403 when disabled`,
  section: 'server-configuration',
  clauses: ['server-configuration.16', 'errors.5'],
  requires: [engine, 'bypassDisabled'],
  async run(ctx) {
    const res = await ctx.http('POST', '/sessions', { body: { ...createBody(ctx, engine), permissionMode: 'bypassPermissions' } })
    if (res.status >= 200 && res.status < 300) await ctx.http('DELETE', `/sessions/${res.json?.session?.id}`)
    ctx.errorStatus('server-configuration.16', res, 403)
  },
})

export const mcpStatusCase = (engine: Engine): Case => ({
  id: `sessions-mcp-status-${slug(engine)}`,
  title: `${engine}: GET /sessions/:id/mcp answers a server list where the record has mcpStatus, else 501`,
  section: 'sessions',
  clauses: ['sessions.9', 'errors.9'],
  requires: [engine],
  async run(ctx) {
    const session = await ctx.createSession(createBody(ctx, engine))
    const ws = await ctx.ws(session.id)
    // Wait for the engine to be up (idle), not for an event the spec obliges no engine to emit.
    await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'idle')
    const res = await ctx.http('GET', `/sessions/${session.id}/mcp`)
    if (session.capabilities?.mcpStatus === false) return ctx.errorStatus('errors.9', res, 501)
    ctx.status('sessions.9', res, 200)
    ctx.check('sessions.9', res.json !== undefined && typeof res.json === 'object', 'a McpServersResponse (JSON)', res.text.slice(0, 200))
  },
})

export const projectCase = (engine: Engine): Case => ({
  id: `session-project-${slug(engine)}`,
  title: `${engine}: project comes from the nearest .gateway.json above cwd, its icon an address`,
  section: 'session',
  clauses: ['session.3'],
  requires: [engine, 'project'],
  async run(ctx) {
    const project = ctx.manifest.project!
    const session = await ctx.createSession({ profile: ctx.profile(engine), cwd: project.cwd })
    const info = (await ctx.http('GET', `/sessions/${session.id}`)).json?.session
    ctx.equal('session.3', info?.project?.name, project.name, 'project name')
    ctx.check('session.3', typeof info?.project?.root === 'string' && project.cwd.startsWith(info.project.root), 'the root is an ancestor of cwd', info?.project)
    const icon = info?.project?.icon
    ctx.check('session.3', icon === undefined || (typeof icon === 'object' && (typeof icon.hash === 'string' || typeof icon.glyph === 'string' || typeof icon.name === 'string')), 'an icon address, never bytes', icon)
  },
})
