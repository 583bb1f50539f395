/** Case helpers: engine startup. Shared by the cases of every section through case-helpers/index.ts. */
import { openCwdSession } from './cwd-session.ts'
import type { CaseContext } from '../context.ts'
import type { WsClient } from '../ws-client.ts'
import type { Case } from '../../types.ts'

export async function messageAtOnce(ctx: CaseContext, ws: WsClient): Promise<void> {
  // No wait: the frame leaves right behind the upgrade, before any status the engine reports.
  ws.send({ type: 'user_message', text: 'scenario:hello' })
  const answer = await ws.waitFor((f) => f.type === 'protocol_error' || (f.type === 'event' && f.event?.type === 'turn_result'), ctx.deadlineMs,
    'the turn of the message sent during start-up, or a protocol_error refusing it')
  if (answer.type === 'protocol_error') return
  ctx.check('commands.1', ws.events().some((e) => e.type === 'user_message' || e.type === 'assistant_message' || e.type === 'stream_delta'), 'the turn ran for the message (its user_message or the reply)', ws.events().map((e) => e.type))
  // The session settles: a later message runs a turn of its own.
  await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'idle' && e.seq > answer.event.seq)
  ws.send({ type: 'user_message', text: 'scenario:hello' })
  await ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.seq > answer.event.seq)
}

export const startupCase = (role: 'provider' | 'cli_primary' | 'cli_secondary'): Case => ({
  id: `ws-user-message-during-startup-${role.replace('_', '-')}`, title: `${role}: a user_message sent at once after the attach, while the engine starts, runs its turn or is refused, never dropped`, section: 'commands',
  clauses: ['commands.1', 'commands.10', 'errors.12', 'events.12'], requires: [role],
  async run(ctx) {
    if (role === 'provider') {
      const session = await ctx.createSession()
      const ws = await ctx.ws(session.id)
      return messageAtOnce(ctx, ws)
    }
    const { ws } = await openCwdSession(ctx, role)
    return messageAtOnce(ctx, ws)
  },
})
