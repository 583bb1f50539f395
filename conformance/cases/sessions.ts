/** Cases for the Sessions endpoints (sessions.*), the SessionInfo resource and UpdateSessionRequest. */
import { Unsupported, type Case } from '../types.ts'

const UNKNOWN_ID = '00000000-0000-4000-8000-00000000dead'

export const sessionCases: Case[] = [
  {
    id: 'sessions-create-201', title: 'POST /sessions creates a session: 201 with SessionInfo', section: 'sessions',
    clauses: ['sessions.2', 'session.1', 'what-the-service-does.3', 'what-the-service-does.5'], requires: ['provider'],
    async run(ctx) {
      const s = await ctx.createSession()
      // session.1 states `profile` is always the resolved name and `id` differs from sdkSessionId.
      // It lists the other fields without saying which are present at creation (no model yet, no
      // engine id, no turn yet), and the protocol-7 reference states no SessionInfo at creation:
      // an absent one is neither a fail nor a note.
      for (const field of ['id', 'status', 'profile']) ctx.check('session.1', field in s, `SessionInfo with field ${field}`, Object.keys(s))
      ctx.equal('session.1', s.profile, ctx.profile('provider'), 'profile (the resolved name)')
      if ('engine' in s) ctx.equal('what-the-service-does.5', s.engine, 'provider', 'engine')
      ctx.check('session.1', s.id !== s.sdkSessionId, 'a server id different from sdkSessionId', s)
    },
  },
  {
    id: 'sessions-implicit-default-profile', title: 'a profile named default is implicit when several are declared', section: 'sessions',
    clauses: ['sessions.2'], requires: ['provider'],
    async run(ctx) {
      if (ctx.profile('provider') !== 'default') throw new Unsupported('the manifest\'s provider profile is not named default; cannot observe the implicit rule')
      const res = await ctx.http('POST', '/sessions', { body: {} })
      ctx.status('sessions.2', res, 201)
      ctx.equal('sessions.2', res.json.session.profile, 'default', 'the implicit profile')
      await ctx.http('DELETE', `/sessions/${res.json.session.id}`)
    },
  },
  {
    id: 'sessions-unknown-profile-400', title: 'an unknown profile is a 400', section: 'sessions',
    clauses: ['errors.4', 'sessions.2'], requires: [],
    async run(ctx) {
      ctx.errorStatus('errors.4', await ctx.http('POST', '/sessions', { body: { profile: `no-such-profile-${Math.floor(ctx.random() * 1e6)}` } }), 400)
    },
  },
  {
    id: 'sessions-get-and-list', title: 'GET /sessions/:id reads it and GET /sessions lists it', section: 'sessions',
    clauses: ['sessions.1', 'sessions.3', 'what-the-service-does.3'], requires: ['provider'],
    async run(ctx) {
      const s = await ctx.createSession()
      const one = await ctx.http('GET', `/sessions/${s.id}`)
      ctx.status('sessions.3', one, 200)
      ctx.equal('sessions.3', one.json?.session?.id, s.id, 'session.id')
      const list = await ctx.http('GET', '/sessions')
      ctx.status('sessions.1', list, 200)
      ctx.check('sessions.1', Array.isArray(list.json?.sessions) && list.json.sessions.some((x: any) => x.id === s.id), 'the new session in {sessions}', list.text.slice(0, 200))
    },
  },
  {
    id: 'sessions-title-three-state', title: 'title derives from the first prompt; PATCH sets, keeps and clears meta.title', section: 'updatesessionrequest',
    clauses: ['updatesessionrequest.1', 'session.2', 'sessions.4'], requires: ['provider'],
    async run(ctx) {
      const s = await ctx.createSession({ prompt: 'Plan the garden\nwith details' })
      const derived = (await ctx.http('GET', `/sessions/${s.id}`)).json.session.title
      ctx.check('session.2', typeof derived === 'string' && derived.startsWith('Plan the garden'), 'a title derived from the first prompt', derived)
      const set = await ctx.http('PATCH', `/sessions/${s.id}`, { body: { title: 'Renamed' } })
      ctx.status('sessions.4', set, 200)
      ctx.equal('updatesessionrequest.1', set.json?.session?.title, 'Renamed', 'title after a string')
      const kept = await ctx.http('PATCH', `/sessions/${s.id}`, { body: {} })
      ctx.equal('updatesessionrequest.1', kept.json?.session?.title, 'Renamed', 'title after an omitted title')
      const cleared = await ctx.http('PATCH', `/sessions/${s.id}`, { body: { title: null } })
      ctx.equal('updatesessionrequest.1', cleared.json?.session?.title, derived, 'title after null (the derived one)')
    },
  },
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
    id: 'sessions-rename-never-reaches-model', title: 'a rename never reaches the model', section: 'updatesessionrequest',
    clauses: ['updatesessionrequest.1'], requires: ['provider'],
    async run(ctx) {
      const { session, ws } = await ctx.idleSession()
      const before = ws.frames.length
      await ctx.http('PATCH', `/sessions/${session.id}`, { body: { title: 'secret rename' } })
      ws.send({ type: 'user_message', text: 'what is my title?' })
      const result = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      const after = ws.frames.slice(before).map((f) => JSON.stringify(f)).join('\n')
      ctx.check('updatesessionrequest.1', !after.includes('secret rename'), 'no event mentioning the new title', after.slice(0, 300))
      ctx.check('updatesessionrequest.1', result.isError === false, 'the turn to complete', result)
    },
  },
  {
    id: 'sessions-delete-closes-and-removes', title: 'DELETE closes and removes the session', section: 'sessions',
    clauses: ['sessions.5', 'what-the-service-does.3'], requires: ['provider'],
    async run(ctx) {
      const { session, ws } = await ctx.idleSession()
      const del = await ctx.http('DELETE', `/sessions/${session.id}`)
      ctx.check('sessions.5', del.status >= 200 && del.status < 300, 'a 2xx', del.status)
      await ws.waitForEvent('session_closed', ctx.deadlineMs)
      ctx.status('sessions.5', await ctx.http('GET', `/sessions/${session.id}`), 404)
    },
  },
  {
    id: 'sessions-unknown-id-404', title: 'an unknown session id is a 404 on every /sessions/:id route', section: 'sessions',
    clauses: ['errors.3', 'sessions.3', 'sessions.4', 'sessions.5', 'sessions.13'], requires: [],
    async run(ctx) {
      for (const [method, suffix, body] of [['GET', ''], ['PATCH', '', { title: 'x' }], ['DELETE', ''], ['POST', '/permissions/r1', { behavior: 'allow' }]] as const) {
        ctx.errorStatus('errors.3', await ctx.http(method, `/sessions/${UNKNOWN_ID}${suffix}`, { body }), 404)
      }
    },
  },
  {
    id: 'sessions-permission-unknown-request-404', title: 'resolving an unknown permission request is a 404', section: 'permission-request',
    clauses: ['permission-request.1', 'sessions.13', 'errors.3', 'other-shapes.2'], requires: ['provider'],
    async run(ctx) {
      const s = await ctx.createSession()
      const bad = await ctx.http('POST', `/sessions/${s.id}/permissions/no-such-request`, { body: { behavior: 'maybe' } })
      ctx.check('other-shapes.2', bad.status === 400 || bad.status === 404, 'a behavior other than allow/deny refused', `HTTP ${bad.status}`)
      ctx.errorStatus('permission-request.1', await ctx.http('POST', `/sessions/${s.id}/permissions/no-such-request`, { body: { behavior: 'allow' } }), 404)
    },
  },
  {
    id: 'sessions-mcp-status', title: 'GET /sessions/:id/mcp answers per the record; actions without mcpServerActions are 501', section: 'sessions',
    clauses: ['sessions.9', 'sessions.10', 'errors.9'], requires: ['provider'],
    async run(ctx) {
      const s = await ctx.createSession()
      const status = await ctx.http('GET', `/sessions/${s.id}/mcp`)
      if (s.capabilities?.mcpStatus === false) ctx.status('errors.9', status, 501)
      else ctx.status('sessions.9', status, 200)
      if (s.capabilities?.mcpServerActions === false) {
        ctx.errorStatus('errors.9', await ctx.http('POST', `/sessions/${s.id}/mcp/anything`, { body: { action: 'reconnect' } }), 501)
      }
    },
  },
  {
    id: 'sessions-wrong-method-405', title: 'a method the route lacks is refused (405 in protocol 7)', section: 'sessions',
    clauses: ['sessions.1'], requires: [],
    async run(ctx) {
      const res = await ctx.http('PUT', '/sessions', { body: {} })
      ctx.check('sessions.1', res.status >= 400 && res.status < 500, 'a 4xx', res.status)
      ctx.observe(res.status === 405, `PUT /sessions answered ${res.status}; protocol 7 answers 405 (the spec gives no status)`)
    },
  },
]
