/**
 * Edge cases on event payloads found by generated mutation testing: values whose
 * meaning bounds them, checked against what the client itself observed.
 */
import type { Case } from '../types.ts'

export const eventEdgeCases: Case[] = [
  {
    id: 'turn-result-duration-within-observed', title: 'turn_result.durationMs is a duration no longer than the client saw the turn take', section: 'events',
    clauses: ['events.12'], requires: ['provider'],
    async run(ctx) {
      // events.12: durationMs is the turn's duration. The turn starts after the client's message
      // and ends before its turn_result reaches the client, so it cannot be longer than the
      // client's own measure of that span (monotonic, no clock shared); 1 s of slack for rounding.
      const { ws } = await ctx.idleSession()
      const sent = performance.now()
      ws.send({ type: 'user_message', text: 'scenario:hello' })
      const result = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      const observed = performance.now() - sent
      if (result.durationMs === undefined) return
      ctx.check('events.12', typeof result.durationMs === 'number' && result.durationMs >= 0 && result.durationMs <= observed + 1000,
        `turn_result.durationMs between 0 and the ${Math.round(observed)} ms the client observed`, result.durationMs)
    },
  },
]
