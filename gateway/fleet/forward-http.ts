/**
 * Forwards one REST request to the process that runs its session and streams the answer back
 * unchanged (status, headers, body). The client's Authorization travels with it: the owner
 * authenticates and checks scope again. Hop-by-hop headers are not forwarded.
 */
import { request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import { sendRefusal } from '../server/http.ts'
import { refuse } from '../server/refusal.ts'
import { FORWARD_SECRET, FORWARDED_BY, forwardHeaders } from './forward-auth.ts'

export const OWNER_UNREACHABLE = refuse('session_owner_unreachable', 'the process running this session could not be reached; try again')

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host', FORWARDED_BY, FORWARD_SECRET])

export function passHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value
  }
  return out
}

/**
 * `target` is the owner's address (origin plus basePath); the request's own path already carries
 * the basePath, so only the origin is used. Resolves once the answer is sent (or refused).
 */
export function forwardRequest(req: IncomingMessage, res: ServerResponse, target: string, processId: string, secret: string): Promise<void> {
  return new Promise((resolve) => {
    const url = new URL(target)
    const upstream = request({
      host: url.hostname, port: url.port, method: req.method, path: req.url,
      headers: { ...passHeaders(req.headers), host: url.host, ...forwardHeaders(processId, secret) },
    }, (answer) => {
      const headers = passHeaders(answer.headers)
      res.writeHead(answer.statusCode ?? 502, headers)
      answer.pipe(res)
      answer.on('end', resolve)
      answer.on('error', () => { res.destroy(); resolve() })
    })
    // A client that went away ends the forwarded request too (the owner then sees its close).
    res.on('close', () => { if (!res.writableFinished) upstream.destroy() })
    upstream.on('error', () => {
      if (!res.headersSent) sendRefusal(res, OWNER_UNREACHABLE)
      else res.destroy()
      resolve()
    })
    req.pipe(upstream)
  })
}

/**
 * One request to a peer with the client's credentials and the forward marker, answered in full
 * (the fleet's list, an execution result looking for its session); undefined when it failed.
 */
export function askPeer(req: IncomingMessage, target: string, call: { method: string; path: string; body?: string; headers?: Record<string, string> },
  processId: string, secret: string, timeoutMs: number): Promise<{ status: number; body: string } | undefined> {
  return new Promise((resolve) => {
    const url = new URL(target)
    const headers: Record<string, string | string[]> = { ...passHeaders(req.headers), host: url.host, ...call.headers, ...forwardHeaders(processId, secret) }
    delete headers['content-length']
    if (call.body !== undefined) headers['content-length'] = String(Buffer.byteLength(call.body))
    const upstream = request({ host: url.hostname, port: url.port, method: call.method, path: call.path, timeout: timeoutMs, headers }, (answer) => {
      let text = ''
      answer.setEncoding('utf8')
      answer.on('data', (chunk: string) => { text += chunk })
      answer.on('end', () => resolve({ status: answer.statusCode ?? 502, body: text }))
      answer.on('error', () => resolve(undefined))
    })
    upstream.on('timeout', () => upstream.destroy())
    upstream.on('error', () => resolve(undefined))
    upstream.end(call.body)
  })
}
