/**
 * Edge cases on WebSocket commands found by generated mutation testing (issue 20): a command
 * naming something the session does not hold.
 */
import type { Case } from '../types.ts'

export const websocketEdgeCases: Case[] = [
  {
    id: 'ws-user-message-unknown-attachment', title: 'a user_message naming an attachment id the session never issued is a protocol_error', section: 'errors',
    clauses: ['errors.12', 'messages-and-attachments.3', 'commands.1'], requires: ['provider', 'attachments'],
    async run(ctx) {
      // messages-and-attachments.3: attachmentIds carry ids an upload returned; an id no upload
      // returned is bad client input, which errors.12 answers with a protocol_error frame.
      const { ws } = await ctx.idleSession()
      const id = `never-uploaded-${Math.floor(ctx.random() * 1e9)}`
      ws.send({ type: 'user_message', text: 'read the file', attachmentIds: [id] })
      await ws.waitFor((f) => f.type === 'protocol_error', ctx.deadlineMs, `a protocol_error for the unknown attachment id ${id}`)
    },
  },
]
