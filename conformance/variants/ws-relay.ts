/**
 * The variation proxy's WebSocket side: each client upgrade opens one upstream socket (never a
 * second attach: the gateway's single-attach rules stay the client's own) and relays frames both
 * ways, rewriting server frames per the switched-on variations. An upstream refusal is answered
 * to the client with the same status line and body.
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import WebSocket, { WebSocketServer } from 'ws'
import { parseAfterSeq } from './event-numbering.ts'
import { jobEvent, scopedRefusal, sessionEvent, sessionInfo, toolFrame, type ShapeContext } from './shapes.ts'

/** Headers a client's upgrade carries that the gateway may read (credentials, CORS-exempt origin). */
const FORWARDED = ['authorization', 'cookie', 'origin', 'sec-fetch-site', 'user-agent']
/** How long an `attached` frame waits for the replay to reach its `lastSeq` before it is sent anyway. */
const ATTACHED_HOLD_MS = 1000

export function relayUpgrade(c: ShapeContext, wss: WebSocketServer, upstreamBase: URL, basePath: string, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  const url = new URL(req.url ?? '/', 'http://proxy.invalid')
  const route = url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : url.pathname
  const session = /^\/sessions\/([^/]+)\/ws$/.exec(route)
  const sessionId = session ? decodeURIComponent(session[1]) : undefined
  const renumber = sessionId !== undefined && c.on.has('provider-events-dropped')
  const clientAfter = parseAfterSeq(url.searchParams.get('afterSeq'))
  // Renumbering needs every dropped upstream seq below the client's afterSeq. When an earlier stream
  // showed them all, the client's afterSeq is passed on as its upstream seq, so whatever the gateway
  // replays (a fault included: an event at or below afterSeq) reaches the client as the gateway sent
  // it. Otherwise the proxy replays from 0 and filters, which would hide such a fault.
  const upstreamAfter = renumber && clientAfter > 0 ? c.numbering.unmap(sessionId, clientAfter) : 0
  const direct = renumber && upstreamAfter <= c.numbering.seenThrough(sessionId)
  const upstreamFrom = direct ? upstreamAfter : 0
  const filtering = renumber && !direct
  if (renumber) url.searchParams.set('afterSeq', String(upstreamFrom))
  const target = new URL(upstreamBase.origin)
  target.protocol = upstreamBase.protocol === 'https:' ? 'wss:' : 'ws:'
  target.pathname = url.pathname
  target.search = url.search
  const headers: Record<string, string> = {}
  for (const h of FORWARDED) if (typeof req.headers[h] === 'string') headers[h] = req.headers[h] as string
  const upstream = new WebSocket(target, { headers })
  const pending: Array<{ data: WebSocket.RawData; binary: boolean }> = []
  let client: WebSocket | undefined
  let engine: unknown
  let held: { frame: any; lastSeq: number; timer: NodeJS.Timeout } | undefined
  const queued: string[] = [] // frames after a held `attached`, sent once it is released

  const send = (text: string) => {
    if (held) queued.push(text)
    else if (client?.readyState === WebSocket.OPEN) client.send(text)
  }
  const release = () => {
    if (!held) return
    clearTimeout(held.timer)
    const frame = { ...held.frame, session: sessionInfo(held.frame.session, c) }
    held = undefined
    client?.send(JSON.stringify(frame))
    for (const text of queued.splice(0)) client?.send(text)
  }
  const onServerFrame = (data: WebSocket.RawData, binary: boolean) => {
    if (binary) return client?.send(data, { binary: true })
    let frame: any
    try { frame = JSON.parse(data.toString()) } catch { return send(data.toString()) }
    if (frame?.type === 'attached' && sessionId !== undefined) {
      engine = frame.session?.engine
      if (renumber) frame.replayingFrom = clientAfter
      const lastSeq = typeof frame.session?.lastSeq === 'number' ? frame.session.lastSeq : 0
      // Its lastSeq is renumbered only once the replay has shown which seqs below it are dropped.
      if (renumber && lastSeq > c.numbering.seenThrough(sessionId)) held = { frame, lastSeq, timer: setTimeout(release, ATTACHED_HOLD_MS) }
      else client?.send(JSON.stringify({ ...frame, session: sessionInfo(frame.session, c) }))
      return
    }
    if (frame?.type === 'event' && sessionId !== undefined) {
      const upstreamSeq = frame.event?.seq
      const event = sessionEvent(sessionId, engine, frame.event, c)
      if (typeof upstreamSeq === 'number') c.numbering.relayed(sessionId, upstreamFrom, upstreamSeq)
      if (held && typeof upstreamSeq === 'number' && upstreamSeq >= held.lastSeq) {
        if (event && !(filtering && event.seq <= clientAfter)) queued.push(JSON.stringify({ ...frame, event }))
        return release()
      }
      if (!event || (filtering && typeof event.seq === 'number' && event.seq <= clientAfter)) return
      return send(JSON.stringify({ ...frame, event }))
    }
    if (held) release()
    if (frame?.type === 'job_event') return send(JSON.stringify({ ...frame, event: jobEvent(frame.event, c) }))
    send(JSON.stringify(toolFrame(frame, c)))
  }

  upstream.on('message', (data, binary) => {
    if (client) onServerFrame(data, binary)
    else pending.push({ data, binary })
  })
  upstream.once('unexpected-response', (_req, res) => {
    const chunks: Buffer[] = []
    res.on('data', (chunk: Buffer) => chunks.push(chunk))
    res.on('end', () => {
      const body = Buffer.concat(chunks)
      const status = scopedRefusal(route, req.headers.authorization, res.statusCode ?? 502, c) ? 403 : res.statusCode ?? 502
      const type = res.headers['content-type'] ? `content-type: ${res.headers['content-type']}\r\n` : ''
      socket.end(Buffer.concat([Buffer.from(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${type}content-length: ${body.length}\r\nconnection: close\r\n\r\n`), body]))
    })
  })
  upstream.once('error', () => {
    if (!client) socket.destroy()
  })
  upstream.once('open', () => {
    wss.handleUpgrade(req, socket, head, (ws) => {
      client = ws
      for (const { data, binary } of pending.splice(0)) onServerFrame(data, binary)
      ws.on('message', (data, binary) => {
        if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary })
      })
      ws.on('close', () => upstream.close())
      ws.on('error', () => upstream.terminate())
    })
  })
  upstream.on('close', () => {
    if (held) release()
    client?.close()
  })
}
