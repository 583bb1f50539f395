/** The cases of § UpdateSessionRequest: each case's first clause is `updatesessionrequest.N`. */
import type { Case } from '../../types.ts'

export const updatesessionrequestCases: Case[] = [
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
]
