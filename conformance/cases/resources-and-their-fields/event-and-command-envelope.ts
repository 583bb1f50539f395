/** The cases of § Event and command envelope: each case's first clause is `event-and-command-envelope.N`. */
import type { Case } from '../../types.ts'

export const eventAndCommandEnvelopeCases: Case[] = [
  {
    id: 'ws-seq-and-ts', title: 'every event carries seq from 1, increasing by one, and ts in epoch milliseconds', section: 'event-and-command-envelope',
    clauses: ['event-and-command-envelope.1', 'events.1'], requires: ['provider'],
    async run(ctx) {
      const session = await ctx.createSession({ prompt: 'count with me' })
      // Attached from afterSeq 0, so the replay holds the session's first event (websocket-framing.1).
      const ws = await ctx.ws(session.id, { afterSeq: 0 })
      await ws.waitForEvent('turn_result', ctx.deadlineMs)
      const events = ws.events()
      // "starts at 1" is exact: the first event's seq is 1. "increases monotonically" allows gaps,
      // so a gap is never blamed here (a replay that drops events is ws-replay-after-seq's business).
      ctx.check('event-and-command-envelope.1', events[0]?.seq === 1, 'the first event\'s seq = 1', events[0]?.seq)
      events.forEach((e, i) => {
        if (i) ctx.check('event-and-command-envelope.1', Number.isInteger(e.seq) && e.seq > events[i - 1].seq, 'seq increasing monotonically', [events[i - 1].seq, e.seq])
        ctx.check('event-and-command-envelope.1', Number.isInteger(e.ts) && Math.abs(e.ts - Date.now()) < 3_600_000, 'ts in epoch milliseconds', e.ts)
      })
    },
  },
]
