/**
 * Forwards a session WebSocket upgrade to the process that runs the session, at the byte level:
 * the client's upgrade request is written to the owner (with the forward marker), and from then on
 * both sockets are piped, so the handshake answer, every frame (replay after `afterSeq`, commands,
 * permission and tool-bridge answers) and the close code pass untouched. The owner authenticates,
 * checks scope and applies its socket caps itself.
 */
import type { IncomingMessage } from 'node:http'
import { connect } from 'node:net'
import type { Duplex } from 'node:stream'
import { abortHandshake } from '../server/ws/abort-handshake.ts'
import { forwardHeaders, FORWARD_SECRET, FORWARDED_BY } from './forward-auth.ts'
import { OWNER_UNREACHABLE } from './forward-http.ts'

export function forwardUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, target: string, processId: string, secret: string): void {
  const url = new URL(target)
  const upstream = connect({ host: url.hostname, port: Number(url.port || 80) })
  let connected = false
  upstream.once('connect', () => {
    connected = true
    const lines = [`${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/1.1`]
    const raw = req.rawHeaders
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i].toLowerCase()
      if (name === FORWARDED_BY || name === FORWARD_SECRET) continue
      lines.push(`${raw[i]}: ${raw[i + 1]}`)
    }
    for (const [name, value] of Object.entries(forwardHeaders(processId, secret))) lines.push(`${name}: ${value}`)
    upstream.write(lines.join('\r\n') + '\r\n\r\n')
    if (head.length) upstream.write(head)
    upstream.pipe(socket)
    socket.pipe(upstream)
  })
  upstream.on('error', () => {
    if (!connected) abortHandshake(socket, OWNER_UNREACHABLE)
    else socket.destroy()
  })
  upstream.on('close', () => { if (connected) socket.end() })
  socket.on('error', () => upstream.destroy())
  socket.on('close', () => upstream.destroy())
}
