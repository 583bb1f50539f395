/**
 * Edge cases on message attachments found by reviewing generated mutation survivors:
 * the kit checked an attachment's id on the message, never the name it was uploaded as.
 */
import { Unsupported, type Case } from '../types.ts'

export const attachmentEdgeCases: Case[] = [
  {
    id: 'attachments-name-from-upload', title: 'an attachment sent with a message carries the name it was uploaded under', section: 'sessions',
    clauses: ['sessions.7', 'messages-and-attachments.2', 'messages-and-attachments.3'], requires: ['provider', 'attachments'],
    async run(ctx) {
      // sessions.7: the upload names the file (`?name=<filename>`); messages-and-attachments.2: the
      // MessageAttachment a user_message carries has `id` and `name` (plus media type and size).
      const { session, ws } = await ctx.idleSession()
      const kinds = session.capabilities?.attachments
      if (Array.isArray(kinds) && !kinds.includes('text')) throw new Unsupported(`the session's capability record accepts no text attachments (${kinds.join(', ')})`)
      const name = `kit-notes-${Math.floor(ctx.random() * 1e9)}.txt`
      const up = await ctx.http('POST', `/sessions/${session.id}/attachments?name=${encodeURIComponent(name)}`, { raw: 'a few words', headers: { 'content-type': 'text/plain' } })
      ctx.check('sessions.7', up.status >= 200 && up.status < 300, 'the upload accepted (a 2xx)', `HTTP ${up.status} ${up.text.slice(0, 200)}`)
      const meta = up.json?.attachment ?? up.json
      ctx.check('sessions.7', typeof meta?.id === 'string', 'an UploadAttachmentResponse containing the attachment id', up.json)
      ws.send({ type: 'user_message', text: 'read the file', attachmentIds: [meta.id] })
      const user = await ws.waitForEvent('user_message', ctx.deadlineMs, (e) => Array.isArray(e.attachments))
      const sent = user.attachments.find((a: any) => a?.id === meta.id)
      ctx.check('messages-and-attachments.3', sent !== undefined, 'the user_message names the attachment by id', user.attachments)
      ctx.equal('messages-and-attachments.2', sent.name, name, 'MessageAttachment.name (the name it was uploaded under)')
    },
  },
]
