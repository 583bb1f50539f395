/**
 * A JSON POST over `node:http`/`node:https` whose successful response is read as a plain Node
 * stream (no web-stream stages). Failures are the errors the AI SDK's `postJsonToApi` raises for
 * the same cases, so its retry policy treats them alike: an unreachable server is a retryable
 * APICallError "Cannot connect to API: …", a non-2xx status an APICallError carrying the status,
 * the body and the server's message (the OpenAI error shape), an abort the signal's reason.
 */
import { APICallError } from 'ai'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'

export interface PostResult {
  response: IncomingMessage
  headers: Record<string, string>
}

export interface PostInput {
  url: string
  headers: Record<string, string>
  /** The body's values, as the SDK's errors carry them. */
  values: unknown
  signal?: AbortSignal
  /** Silence before the response's headers that fails the call (undici's headersTimeout: 300 s). */
  timeoutMs: number
}

/** undici's default headersTimeout and bodyTimeout, which the SDK's fetch runs under. */
export const DEFAULT_TIMEOUT_MS = 300_000

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError')
}

/** Resolves on a 2xx response's headers; rejects with the SDK's errors otherwise. */
export function postJson(input: PostInput): Promise<PostResult> {
  const { url, signal } = input
  if (signal?.aborted) return Promise.reject(abortReason(signal))
  const body = JSON.stringify(input.values)
  const send = url.startsWith('https:') ? httpsRequest : httpRequest
  return new Promise<PostResult>((resolve, reject) => {
    const req = send(url, { method: 'POST', headers: { ...input.headers, 'content-length': Buffer.byteLength(body) } })
    const onAbort = () => {
      req.destroy()
      reject(abortReason(signal!))
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    // A server that never answers fails the call (retryable) instead of holding the turn forever.
    req.setTimeout(input.timeoutMs, () => req.destroy(new Error('Headers Timeout Error')))
    req.on('error', (cause) => {
      signal?.removeEventListener('abort', onAbort)
      reject(new APICallError({ message: `Cannot connect to API: ${cause.message}`, cause, url, requestBodyValues: input.values, isRetryable: true }))
    })
    req.on('response', (response) => {
      signal?.removeEventListener('abort', onAbort)
      req.setTimeout(0)
      const headers = headersOf(response)
      const status = response.statusCode ?? 0
      if (status >= 200 && status < 300) return resolve({ response, headers })
      failure(response, { url, values: input.values, headers }).then(reject, reject)
    })
    req.end(body)
  })
}

/** Response headers as fetch's `Headers` list them: lower-case names, repeated values joined. */
function headersOf(response: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return headers
}

/** The SDK's JSON error handler (createJsonErrorResponseHandler with the OpenAI error shape). */
async function failure(response: IncomingMessage, ctx: { url: string; values: unknown; headers: Record<string, string> }): Promise<APICallError> {
  let responseBody: string
  try {
    responseBody = await readText(response)
  } catch (cause) {
    return new APICallError({ message: 'Failed to process error response', cause, statusCode: response.statusCode, url: ctx.url, responseHeaders: ctx.headers, requestBodyValues: ctx.values })
  }
  const base = { url: ctx.url, requestBodyValues: ctx.values, statusCode: response.statusCode, responseHeaders: ctx.headers, responseBody }
  const data = errorData(responseBody)
  return data ? new APICallError({ ...base, message: data.error.message, data }) : new APICallError({ ...base, message: response.statusMessage ?? '' })
}

function readText(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    response.setEncoding('utf8')
    response.on('data', (chunk: string) => { text += chunk })
    response.on('end', () => resolve(text))
    response.on('error', reject)
  })
}

/** `{error: {message, type?, param?, code?}}` with only those keys kept, as the SDK's schema keeps them; else undefined. */
export function errorData(text: string): { error: Record<string, unknown> & { message: string } } | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  const error = (value as { error?: unknown } | null)?.error as Record<string, unknown> | undefined
  if (typeof value !== 'object' || Array.isArray(value) || typeof error !== 'object' || error === null || Array.isArray(error)) return undefined
  if (typeof error.message !== 'string') return undefined
  if (error.type != null && typeof error.type !== 'string') return undefined
  if (error.code != null && typeof error.code !== 'string' && typeof error.code !== 'number') return undefined
  const kept: Record<string, unknown> & { message: string } = { message: error.message }
  for (const key of ['type', 'param', 'code']) if (key in error) kept[key] = error[key]
  return { error: kept }
}
