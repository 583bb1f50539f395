/**
 * Edge cases on SessionInfo found by generated mutation testing: rules that hold after
 * later events, not only on their first occurrence.
 */
import type { Case } from '../types.ts'

export const sessionEdgeCases: Case[] = [
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
]
