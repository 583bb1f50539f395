/**
 * Commands inside an engine's start-up window ("protocol races inside an engine's
 * handshake window"). Every other case waits for `idle` before its first command, so a gateway that
 * drops a message sent while its engine is still starting (a CLI's initialize, codex's thread/start)
 * passed. An attach allows user_message at once (commands.10); the spec does not say whether one
 * sent during start-up is queued or refused, so the case accepts either, but not silence: a message
 * the gateway took must produce its turn, and one it did not take must get a protocol_error (errors.12).
 */
import type { CaseContext } from '../harness/context.ts'
import type { WsClient } from '../harness/ws-client.ts'
import type { Case } from '../types.ts'
import { openCwdSession } from './cwd-session.ts'

async function messageAtOnce(ctx: CaseContext, ws: WsClient): Promise<void> {
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

const startupCase = (role: 'provider' | 'cli_primary' | 'cli_secondary'): Case => ({
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

export const handshakeCases: Case[] = [startupCase('provider'), startupCase('cli_primary'), startupCase('cli_secondary')]
