/**
 * A loopback chat-completions server for the differential tests: it records every request (body
 * text and headers) and answers each with the next queued reply, a recorded SSE body written in
 * pieces, then ended, held open (for aborts) or cut (the socket destroyed mid-body).
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Reply {
  status?: number
  contentType?: string
  /** The body as written, piece by piece (a Buffer may end inside a multi-byte character). */
  pieces: Array<string | Buffer>
  then?: 'end' | 'hang' | 'cut'
  /** Never answer at all, not even the status line. */
  silent?: boolean
}

export interface RecordedRequest {
  url: string
  body: string
  headers: IncomingHttpHeaders
}

export interface ReplayServer {
  baseURL: string
  requests: RecordedRequest[]
  reply(next: Reply): void
  close(): Promise<void>
}

export async function startReplayServer(): Promise<ReplayServer> {
  const queue: Reply[] = []
  const requests: RecordedRequest[] = []
  const open = new Set<ServerResponse>()
  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (text: string) => { body += text })
    req.on('end', () => {
      requests.push({ url: req.url ?? '', body, headers: req.headers })
      const next = queue.shift() ?? { status: 500, contentType: 'text/plain', pieces: ['no reply queued'] }
      void play(res, next, open)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    reply: (next) => queue.push(next),
    close: () => {
      for (const res of open) res.destroy()
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

async function play(res: ServerResponse, reply: Reply, open: Set<ServerResponse>): Promise<void> {
  if (reply.silent) return void open.add(res)
  res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'text/event-stream', 'x-replay': 'yes' })
  for (const piece of reply.pieces) await new Promise<void>((resolve) => res.write(piece, () => resolve()))
  if (reply.then === 'hang') open.add(res)
  else if (reply.then === 'cut') res.socket?.destroy()
  else res.end()
}
