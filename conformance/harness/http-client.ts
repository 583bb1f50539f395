/** The kit's HTTP client (undici), logging each exchange into the case's wire log. */
import { Agent, request } from 'undici'
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
}

const dispatcher = new Agent({ connections: 32, keepAliveTimeout: 4000 })

export async function httpRequest(log: WireLog, method: string, url: string, options: HttpOptions = {}): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...options.headers }
  if (options.token) headers.authorization = `Bearer ${options.token}`
  let body: string | Buffer | undefined = options.raw
  if (options.body !== undefined) {
    body = JSON.stringify(options.body)
    headers['content-type'] ??= 'application/json'
  }
  log.add('request', `${method} ${url}`, typeof body === 'string' ? body : body ? `<${body.length} bytes>` : undefined)
  const res = await request(url, { method: method as 'GET', headers, body, dispatcher })
  const text = await res.body.text()
  const flat: Record<string, string> = {}
  for (const [key, value] of Object.entries(res.headers)) if (value !== undefined) flat[key] = Array.isArray(value) ? value.join(', ') : value
  log.add('response', `${res.statusCode} ${method} ${new URL(url).pathname}`, text)
  let json: unknown
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  return { status: res.statusCode, headers: flat, text, json }
}
