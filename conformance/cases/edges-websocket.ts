/**
 * Edge cases on WebSockets found by generated mutation testing: a command naming
 * something the session does not hold, and a refusal checked on one upgrade route but not another.
 */
import WebSocket from 'ws'
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
  {
    id: 'auth-401-queue-ws-upgrade', title: 'a /queue/ws upgrade without credentials is 401, like every other route', section: 'authentication',
    clauses: ['authentication.1', 'errors.2'], requires: ['queue'],
    async run(ctx) {
      // authentication.1: authenticate covers every route, WebSocket upgrades included; a falsy result is 401.
      // The session socket's refusal is checked elsewhere (auth-401-ws-upgrade); this is the queue's.
      const ws = new WebSocket(ctx.url('/queue/ws').replace(/^http/, 'ws'), { handshakeTimeout: ctx.deadlineMs })
      ctx.onCleanup(() => ws.terminate())
      const status = await new Promise<number | string>((resolve) => {
        ws.once('open', () => resolve('an open socket'))
        ws.once('unexpected-response', (_req, res) => { resolve(res.statusCode ?? 0); res.resume() })
        ws.once('error', (err) => resolve(err.message))
      })
      ctx.check('authentication.1', status === 401, 'the /queue/ws upgrade refused with 401', status)
    },
  },
]
