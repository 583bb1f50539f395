/** Cases for session notifications to the webhook (events.24, other-shapes.3). */
import type { Case } from '../types.ts'

export const notificationCases: Case[] = [
  {
    id: 'notifications-turn-and-close', title: 'turn_completed and session_closed are posted in order with the session snapshot', section: 'events',
    clauses: ['events.24', 'other-shapes.3', 'server-configuration.23', 'limits.14', 'what-the-service-does.11'], requires: ['provider', 'notifications', 'receiver'],
    async run(ctx) {
      const session = await ctx.createSession({ prompt: 'scenario:hello' })
      const ws = await ctx.ws(session.id)
      await ws.waitForEvent('turn_result', ctx.deadlineMs)
      await ctx.http('DELETE', `/sessions/${session.id}`)
      const deadline = Date.now() + ctx.deadlineMs
      const mine = () => ctx.receiver!.deliveries.filter((d) => d.body?.sessionId === session.id && d.status < 300).map((d) => d.body)
      while (!mine().some((n) => n.type === 'session_closed') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      const notes = mine()
      ctx.equal('events.24', notes.map((n) => n.type), ['turn_completed', 'session_closed'], 'notification types in order')
      const [turn, closed] = notes
      ctx.check('other-shapes.3', typeof turn.seq === 'number' && typeof turn.ts === 'number' && !turn.preview.includes('\n') && turn.result?.numTurns === 1, 'seq, ts, a one-line preview and result', turn)
      ctx.check('other-shapes.3', typeof closed.reason === 'string' && closed.session?.status === 'closed', 'reason and the snapshot as the event left it', closed)
    },
  },
]
