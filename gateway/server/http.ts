/** Response writers and the bounded JSON body reader. */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { parseClientJson } from './json-limits.ts'
import { refuse, type Refusal } from './refusal.ts'

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  sendRawJson(res, status, JSON.stringify(body))
}

/** For bodies serialised ahead of time (the session list caches row JSON and whole bodies). */
export function sendRawJson(res: ServerResponse, status: number, json: string | Buffer): void {
  if (res.headersSent) return
  // One writeHead merges headers already set (CORS) with these, without a setHeader call each.
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) })
  res.end(json)
}

export function sendRefusal(res: ServerResponse, refusal: Refusal): void {
  if (refusal.code === 'body_too_large' && !res.headersSent) res.setHeader('connection', 'close')
  sendJson(res, refusal.status, { error: refusal.error, code: refusal.code })
}

export type BodyResult = { ok: true; value: unknown } | { ok: false; refusal: Refusal }

/**
 * Reads a JSON body of at most `limit` bytes. An overflow is 413 (protocol 7 answered 500; see
 * docs/compatibility.md), malformed or too deeply nested JSON is 400, an empty body is `undefined`.
 */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  const raw = await readRawBody(req, limit)
  if (!raw.ok) return raw
  if (raw.value.byteLength === 0) return { ok: true, value: undefined }
  return parseClientJson(raw.value.toString('utf8'))
}

/** The whole body as bytes, refused with 413 past `limit` (attachments use their own cap). */
export function readRawBody(req: IncomingMessage, limit: number, tooLarge?: Refusal): Promise<{ ok: true; value: Buffer } | { ok: false; refusal: Refusal }> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length'])
    if (Number.isFinite(declared) && declared > limit) {
      drainAndRefuse(req, resolve, limit, tooLarge)
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    let done = false
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        done = true
        req.off('data', onData)
        drainAndRefuse(req, resolve, limit, tooLarge)
        return
      }
      chunks.push(chunk)
    }
    req.on('data', onData)
    req.on('error', () => {
      if (done) return
      done = true
      resolve({ ok: false, refusal: refuse('invalid_request', 'request body could not be read') })
    })
    req.on('end', () => {
      if (done) return
      done = true
      resolve({ ok: true, value: Buffer.concat(chunks) })
    })
  })
}

/**
 * Keeps reading (discarding) so the client sees the 413 instead of a reset connection, and
 * answers only once the body is through: the refusal closes the connection, Node closes it as soon
 * as the answer is written, and a socket closed while bytes are still arriving is reset, which can
 * take the answer with it (a 10 MiB attachment lost its 413 about one time in three).
 */
function drainAndRefuse(req: IncomingMessage, resolve: (r: { ok: false; refusal: Refusal }) => void, limit: number, tooLarge?: Refusal): void {
  // Drain a bounded amount so the client can read the 413, then cut off a sender that keeps going.
  let drained = 0
  const cap = limit * 4 + 1024 * 1024
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length
    if (drained > cap) req.socket.destroy()
  })
  const refused = () => resolve({ ok: false, refusal: tooLarge ?? refuse('body_too_large', `request body is larger than ${limit} bytes`) })
  req.resume()
  // A body declared past what is drained is cut anyway: answered at once, for a client that reads while it sends.
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > cap) return refused()
  // 'close' too: a sender cut off (or gone) never ends its body, and the handler must still finish.
  req.once('end', refused)
  req.once('close', refused)
}

/**
 * The status line and headers of every file download (scratch files, produced files,
 * attachments): an attachment disposition naming the file and `nosniff`, so nothing a session
 * wrote or uploaded can render as a page on the gateway's origin.
 */
export function writeDownloadHead(res: ServerResponse, name: string, contentType: string, size: number): void {
  res.writeHead(200, {
    'content-type': contentType,
    'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(name)}`,
    'x-content-type-options': 'nosniff',
    'content-length': size,
  })
}

/**
 * A request Node's parser refused before any route saw it still gets the `{error, code}` body:
 * headers over `maxHeaderSize` are 431 (RFC 6585), a request too slow to arrive 408, anything else malformed is 400 (a
 * 64 KiB Authorization header got an empty 400). The connection closes: the parser's state is lost.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || err.code === 'ECONNRESET') return void socket.destroy()
  const refusal = err.code === 'HPE_HEADER_OVERFLOW' ? refuse('headers_too_large', 'request headers are too large')
    : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? refuse('request_timeout', 'the request did not arrive in time')
    : refuse('invalid_request', 'malformed HTTP request')
  const body = JSON.stringify({ error: refusal.error, code: refusal.code })
  const reason = { 431: 'Request Header Fields Too Large', 408: 'Request Timeout' }[refusal.status as 431 | 408] ?? 'Bad Request'
  socket.end(`HTTP/1.1 ${refusal.status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
}
