/** Cases for session notifications to the webhook (events.24, other-shapes.3). */
import { exponentialProblem, judgeInRounds, waitsBetween } from '../harness/backoff.ts'
import { Unsupported, type Case } from '../types.ts'

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
  {
    id: 'notifications-retry-backoff', title: 'a notification answered 500 twice is retried with exponential backoff from retryDelayMs, then delivered once', section: 'events',
    clauses: ['events.24', 'limits.14', 'server-configuration.23'], requires: ['provider', 'notifications', 'receiver', 'timer:notificationRetryDelayMs'],
    async run(ctx) {
      const base = Number(ctx.manifest.timers?.notificationRetryDelayMs)
      if (base < 20) throw new Unsupported(`notificationRetryDelayMs ${base} ms is too short to tell a backoff from jitter (20 ms or more)`)
      // Notifications share one configured URL: only this session's deliveries are made to fail.
      const path = new URL(ctx.manifest.webhookUrl ?? ctx.receiver!.url).pathname
      const measure = async () => {
        const session = await ctx.createSession()
        const mine = (body: any) => body?.sessionId === session.id && body?.type === 'turn_completed'
        ctx.receiver!.answerNextWhere(path, mine, [500, 500])
        const ws = await ctx.ws(session.id)
        ws.send({ type: 'user_message', text: 'scenario:hello' })
        await ws.waitForEvent('turn_result', ctx.deadlineMs)
        const attempts = () => ctx.receiver!.deliveries.filter((d) => d.path === path && mine(d.body))
        // Three attempts (the default, limits.14) take base + growth; past that the target gave up early.
        const deadline = Date.now() + ctx.deadlineMs + 8 * base
        while (!attempts().some((d) => d.status < 300) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
        const seen = attempts()
        if (seen.length < 3 && !seen.some((d) => d.status < 300)) throw new Unsupported(`the target stopped after ${seen.length} attempt(s): its notifications.attempts is below the default 3`)
        ctx.equal('events.24', seen.map((d) => d.status), [500, 500, 200], 'attempts of the turn_completed notification (retried after each 500, delivered once)')
        return waitsBetween(seen.map((d) => d.at))
      }
      // Up to three sessions (backoff.ts, judgeInRounds): a loaded machine cannot fail a conforming target.
      const problem = await judgeInRounds(3, measure, (waits) => exponentialProblem(waits, base))
      ctx.check('limits.14', problem === undefined, `retry waits growing exponentially from retryDelayMs ${base} ms`, problem)
    },
  },
]
