/**
 * Edge cases found by reviewing generated mutation survivors in `gateway serve`'s configuration
 * layer. The kit checked a job webhook's request-supplied headers
 * (authentication.11) but never the headers an operator configures on the notification webhook
 * (server-configuration.23): a gateway that dropped them, or never read their values, passed.
 */
import type { CaseContext } from '../harness/context.ts'
import { Unsupported, type Case } from '../types.ts'

/** This session's turn_completed deliveries, whatever the receiver answered. */
function turnDeliveries(ctx: CaseContext, sessionId: string) {
  return ctx.receiver!.deliveries.filter((d) => d.body?.sessionId === sessionId && d.body?.type === 'turn_completed')
}

export const configurationEdgeCases: Case[] = [
  {
    id: 'notifications-configured-headers', title: 'a notification delivery carries every header the notification webhook is configured with', section: 'events',
    clauses: ['server-configuration.23', 'authentication.11', 'events.24'], requires: ['provider', 'notifications', 'receiver'],
    async run(ctx) {
      // server-configuration.23: notifications `{webhook?: {url, headers?, events?}}`; authentication.11:
      // deliveries carry the configured headers. Which headers a target has is its operator's choice:
      // the manifest names them, and only those are demanded (others may come too).
      const expected = ctx.manifest.notificationHeaders
      if (!expected || !Object.keys(expected).length) throw new Unsupported('the manifest names no notificationHeaders (the headers the notification webhook is configured to send)')
      const session = await ctx.createSession({ prompt: 'scenario:hello' })
      const ws = await ctx.ws(session.id)
      await ws.waitForEvent('turn_result', ctx.deadlineMs)
      const deadline = Date.now() + ctx.deadlineMs
      while (!turnDeliveries(ctx, session.id).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      const deliveries = turnDeliveries(ctx, session.id)
      ctx.check('events.24', deliveries.length > 0, 'a turn_completed notification for the session', ctx.receiver!.deliveries.filter((d) => d.body?.sessionId === session.id).map((d) => d.body?.type))
      // Names only in the report: a configured header may be a credential (authentication.11).
      const wrong = (headers: Record<string, string | string[] | undefined>) =>
        Object.entries(expected).filter(([name, value]) => headers[name.toLowerCase()] !== value).map(([name]) => `${name}: ${headers[name.toLowerCase()] === undefined ? 'missing' : 'another value'}`)
      const problems = deliveries.map((d) => wrong(d.headers)).filter((p) => p.length)
      ctx.check('server-configuration.23', problems.length === 0, `every delivery carries the configured header(s) ${Object.keys(expected).join(', ')} with the configured value`, problems[0])
    },
  },
]
