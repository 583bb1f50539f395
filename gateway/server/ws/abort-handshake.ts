/** Refuses an upgrade with one complete HTTP response, then closes the socket (style-examples 10). */
import type { Duplex } from 'node:stream'
import { STATUS_CODES } from '../node-http.ts'
import type { Refusal } from '../refusal.ts'

export function abortHandshake(socket: Duplex, refusal: Refusal): void {
  if (socket.destroyed) return
  const body = JSON.stringify({ error: refusal.error, code: refusal.code })
  socket.end(
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? ''}\r\n` +
      'Connection: close\r\n' +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  )
}
