/**
 * Edge cases on session notifications found by reviewing generated mutation survivors:
 * the kit checked turn_completed and session_closed deliveries, never the
 * permission_requested one that events.24 tells a forwarder to answer an approval from.
 */
import { isDeepStrictEqual } from 'node:util'
import type { CaseContext } from '../harness/context.ts'
import { permissionRequestIdOf } from '../harness/permission-request.ts'
import { Unsupported, type Case } from '../types.ts'
import { openCwdSession } from './cwd-session.ts'

/** This session's notifications the receiver accepted, in arrival order. */
function delivered(ctx: CaseContext, sessionId: string): any[] {
  return ctx.receiver!.deliveries.filter((d) => d.body?.sessionId === sessionId && d.status < 300).map((d) => d.body)
}

async function untilNotified(ctx: CaseContext, found: () => boolean): Promise<void> {
  const deadline = Date.now() + ctx.deadlineMs
  while (!found() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
}

export const notificationEdgeCases: Case[] = [
  {
    id: 'notifications-permission-requested-answerable', title: 'an approval the agent blocks on is notified as permission_requested with the full request, and the notification is enough to answer it', section: 'events',
    clauses: ['events.24', 'other-shapes.3', 'events.13', 'sessions.13'], requires: ['cli_primary', 'notifications', 'receiver'],
    async run(ctx) {
      // events.24: permission_requested is one of the four notification types (default filter: all
      // four, as the features row of the manifest README says); other-shapes.3: it carries `request`,
      // the full permission request, and `seq` (attach with afterSeq = seq - 1 to catch up).
      // "To answer an approval from a notification, POST {behavior} to
      // /sessions/:sessionId/permissions/:requestId": the id is read from the notification alone.
      const { session, ws } = await openCwdSession(ctx, 'cli_primary')
      ws.send({ type: 'user_message', text: 'scenario:permission-write' })
      const asked = await ws.waitForEvent('permission_requested', ctx.deadlineMs)
      await untilNotified(ctx, () => delivered(ctx, session.id).some((n) => n.type === 'permission_requested'))
      const note = delivered(ctx, session.id).find((n) => n.type === 'permission_requested')
      ctx.check('events.24', note !== undefined, 'a permission_requested notification for the session blocked on approval', delivered(ctx, session.id).map((n) => n.type))
      // "full": every field the event's request carries, with the same value (PermissionRequest's shape is not shown, other-shapes.6).
      const full = typeof note.request === 'object' && note.request !== null && Object.entries(asked.request ?? {}).every(([k, v]) => isDeepStrictEqual(note.request[k], v))
      ctx.check('other-shapes.3', full, 'the notification\'s request carries the full permission request of the event', { notified: note.request, event: asked.request })
      ctx.equal('other-shapes.3', note.seq, asked.seq, 'the notification\'s seq (the event\'s, so afterSeq = seq - 1 catches up)')
      ctx.check('other-shapes.3', typeof note.preview === 'string' && !note.preview.includes('\n'), 'a one-line preview', note.preview)
      const requestId = permissionRequestIdOf({ request: note.request })
      if (!requestId) throw new Unsupported(`no request id the kit can read in the notified request: ${JSON.stringify(note.request)}`)
      const answer = await ctx.http('POST', `/sessions/${encodeURIComponent(note.sessionId)}/permissions/${encodeURIComponent(requestId)}`, { body: { behavior: 'deny' } })
      ctx.check('sessions.13', answer.status >= 200 && answer.status < 300, 'the approval answered from the notification (a 2xx)', `HTTP ${answer.status} ${answer.text.slice(0, 200)}`)
      // events.13: the answer resolves the request (permission_resolved's fields beyond resolvedBy are not shown).
      await ws.waitForEvent('permission_resolved', ctx.deadlineMs)
    },
  },
]
