/**
 * The kit's HTTP client (undici), logging each exchange into the case's wire log. Each case
 * brings its own dispatcher (CaseContext), so a target that resets one connection (after an
 * oversized body, say) never breaks a request of another case.
 */
import { request, type Dispatcher } from 'undici'
import type { Principal } from '../types.ts'
import type { WireLog } from './wire-log.ts'

export interface HttpAnswer {
  status: number
  headers: Record<string, string>
  text: string
  /** Parsed JSON body, or undefined when the body is not JSON. */
  json: any
}

export interface HttpOptions {
  token?: string
  body?: unknown
  raw?: string | Buffer
  headers?: Record<string, string>
  /** Whose credential this is, for the wire log. */
  who?: Principal
  dispatcher?: Dispatcher
}

export async function httpRequest(log: WireLog, method: string, url: string, options: HttpOptions = {}): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...options.headers }
  if (options.token) headers.authorization = `Bearer ${options.token}`
  let body: string | Buffer | undefined = options.raw
  if (options.body !== undefined) {
    body = JSON.stringify(options.body)
    headers['content-type'] ??= 'application/json'
  }
  log.add('request', `${method} ${url}`, typeof body === 'string' ? body : body ? `<${body.length} bytes>` : undefined, options.who)
  const res = await request(url, { method: method as 'GET', headers, body, dispatcher: options.dispatcher })
  const text = await res.body.text()
  const flat: Record<string, string> = {}
  for (const [key, value] of Object.entries(res.headers)) if (value !== undefined) flat[key] = Array.isArray(value) ? value.join(', ') : value
  log.add('response', `${res.statusCode} ${method} ${new URL(url).pathname}`, text, options.who)
  let json: unknown
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  return { status: res.statusCode, headers: flat, text, json }
}
