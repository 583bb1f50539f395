/** Cases for message attachments (sessions.7-8/16, messages-and-attachments.*, limits.2-3, errors.7-8). */
import type { CaseContext } from '../harness/context.ts'
import { Unsupported, type Case } from '../types.ts'

function upload(ctx: CaseContext, id: string, body: string, type: string, name = 'notes.txt') {
  return ctx.http('POST', `/sessions/${id}/attachments?name=${encodeURIComponent(name)}`, { raw: body, headers: { 'content-type': type } })
}

export const attachmentCases: Case[] = [
  {
    id: 'attachments-upload-serve-send', title: 'an uploaded attachment is served back by id and sent with a message as metadata only', section: 'sessions',
    clauses: ['sessions.7', 'sessions.8', 'messages-and-attachments.2', 'messages-and-attachments.3', 'server-configuration.11', 'what-the-service-does.9'], requires: ['provider', 'attachments'],
    async run(ctx) {
      const marker = `marker-${Math.floor(ctx.random() * 1e9)}`
      const { session, ws } = await ctx.idleSession()
      const kinds = session.capabilities?.attachments
      if (Array.isArray(kinds) && !kinds.includes('text')) throw new Unsupported(`the session's capability record accepts no text attachments (${kinds.join(', ')})`)
      const up = await upload(ctx, session.id, `the file says ${marker}`, 'text/plain')
      // sessions.7 gives no status for the upload; protocol 7 answers 201 {attachment}.
      ctx.created('sessions.7', up, 201)
      const meta = up.json?.attachment ?? up.json
      ctx.check('sessions.7', typeof meta?.id === 'string', 'an UploadAttachmentResponse containing the attachment id', up.json)
      ctx.noteNonStrict(meta.name === 'notes.txt' && typeof meta.mediaType === 'string', `upload response without protocol 7's {attachment: {id, name, mediaType, bytes}}: ${up.text.slice(0, 160)}`)
      const back = await ctx.http('GET', `/sessions/${session.id}/attachments/${meta.id}`)
      ctx.equal('sessions.8', back.text, `the file says ${marker}`, 'the bytes served back')
      ctx.check('sessions.8', /^attachment/.test(back.headers['content-disposition'] ?? '') && back.headers['x-content-type-options'] === 'nosniff', 'attachment disposition and nosniff', back.headers)
      ws.send({ type: 'user_message', text: 'read the file', attachmentIds: [meta.id] })
      const user = await ws.waitForEvent('user_message', ctx.deadlineMs, (e) => Array.isArray(e.attachments))
      ctx.check('messages-and-attachments.3', user.attachments.some((a: any) => a.id === meta.id), 'the user_message names the attachment by id', user)
      // The model may quote the file back; what must not carry the bytes is the message that names the attachment.
      ctx.check('messages-and-attachments.2', !JSON.stringify(ws.events().filter((e) => e.type === 'user_message')).includes(marker), 'no attachment bytes in the user_message', 'the marker inside a user_message')
    },
  },
  {
    id: 'attachments-refusals', title: 'an unaccepted media type is 415; a file or session over its cap is 413', section: 'errors',
    clauses: ['errors.8', 'errors.7', 'sessions.16', 'limits.2', 'limits.3'], requires: ['provider', 'attachments'],
    async run(ctx) {
      const fileCap = ctx.manifest.limits?.attachmentMaxFileBytes
      const sessionCap = ctx.manifest.limits?.attachmentMaxSessionBytes
      if (!fileCap || !sessionCap || sessionCap / fileCap > 16) throw new Unsupported('the manifest gives no small attachment caps (limits.attachmentMaxFileBytes / attachmentMaxSessionBytes)')
      const session = await ctx.createSession({})
      ctx.errorStatus('errors.8', await upload(ctx, session.id, 'PK', 'application/zip', 'a.zip'), 415)
      const kinds = session.capabilities?.attachments
      if (Array.isArray(kinds) && !(kinds.includes('image') && kinds.includes('text'))) throw new Unsupported(`the capability record does not accept images and text (${kinds.join(', ')})`)
      ctx.created('sessions.16', await upload(ctx, session.id, 'GIF89a', 'image/gif', 'a.gif'), 201)
      ctx.errorStatus('limits.2', await upload(ctx, session.id, 'x'.repeat(fileCap + 1), 'text/plain'), 413)
      let total = 6
      let last
      while (total <= sessionCap) {
        last = await upload(ctx, session.id, 'y'.repeat(fileCap), 'text/plain')
        total += fileCap
        // Exact: every upload that keeps the session within its cap is accepted.
        if (last.status < 200 || last.status >= 300) {
          ctx.check('limits.3', total > sessionCap, `uploads within the session cap (${sessionCap} bytes) accepted`, `refused at ${total} bytes: HTTP ${last.status}`)
          break
        }
      }
      ctx.errorStatus('limits.3', last!, 413)
    },
  },
]
