/**
 * The `fetch` the AI SDK providers are given (their documented `fetch` setting): the request
 * through `node:http`/`node:https` on a keep-alive agent, the response body as a plain web
 * `ReadableStream` fed by the socket's reads.
 *
 * Why (issue 25, bench/README.md): on the provider streaming path the global `fetch` (undici)
 * cost the gateway more CPU per delta than everything else it does for that delta: a model
 * streaming at reading pace hands over one SSE event per read, and each read went through
 * undici's wasm parser, its fetch controller and a byte stream before the SDK saw it. The SDK's
 * own pipeline (SSE parsing, chunk validation, its parts) is unchanged: it reads this body as it
 * reads undici's.
 *
 * What the SDK relies on is kept: a refused connection rejects with `TypeError('fetch failed')`
 * and its cause (which the SDK turns into a retryable APICallError, as for undici), an abort
 * rejects or errors the body with the signal's reason (an `AbortError`), headers and status are a
 * `Response`'s. Anything this does not carry (a body other than a string or bytes, a `Request`
 * object, a redirect) goes to the global `fetch`, so no request behaves differently.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'

const httpAgent = new HttpAgent({ keepAlive: true })
const httpsAgent = new HttpsAgent({ keepAlive: true })
/** undici's defaults for a response's headers and for silence between body reads. */
const HEADERS_TIMEOUT_MS = 300_000
const BODY_TIMEOUT_MS = 300_000
const REDIRECTS = new Set([301, 302, 303, 307, 308])
const NULL_BODY = new Set([101, 204, 205, 304])

export function httpFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const body = init.body
  const plainBody = body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array
  if (input instanceof Request || !plainBody) return fetch(input, init)
  const url = typeof input === 'string' ? new URL(input) : input
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return fetch(input, init)
  const signal = init.signal ?? undefined
  if (signal?.aborted) return Promise.reject(abortReason(signal))
  const headers: Record<string, string> = {}
  new Headers(init.headers).forEach((value, name) => { headers[name] = value })
  return new Promise<Response>((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest
    const req = send(url, { method: init.method ?? 'GET', headers, agent: url.protocol === 'https:' ? httpsAgent : httpAgent })
    let settled = false
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined
    // The body is over (ended, errored, aborted or cancelled): later socket events change nothing.
    let finished = false
    const onAbort = () => {
      const reason = abortReason(signal!)
      req.destroy(reason as Error)
      if (!settled) { settled = true; reject(reason) } else if (!finished) { finished = true; controller?.error(reason) }
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    const done = () => signal?.removeEventListener('abort', onAbort)
    req.setTimeout(HEADERS_TIMEOUT_MS, () => req.destroy(new Error(`no response within ${HEADERS_TIMEOUT_MS} ms`)))
    req.on('error', (err) => {
      done()
      if (!settled) { settled = true; reject(new TypeError('fetch failed', { cause: err })) }
    })
    req.on('response', (response) => {
      const status = response.statusCode ?? 0
      if (REDIRECTS.has(status) && response.headers.location) {
        // Redirects keep the global fetch's rules (method changes, cross-origin headers).
        settled = true
        done()
        response.resume()
        req.setTimeout(0)
        resolve(fetch(input, init))
        return
      }
      settled = true
      const responseHeaders = new Headers()
      for (let i = 0; i < response.rawHeaders.length; i += 2) responseHeaders.append(response.rawHeaders[i], response.rawHeaders[i + 1])
      if (NULL_BODY.has(status) || init.method === 'HEAD') {
        done()
        response.resume()
        resolve(new Response(null, { status, statusText: response.statusMessage, headers: responseHeaders }))
        return
      }
      req.setTimeout(BODY_TIMEOUT_MS)
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          controller = c
          // The HTTP parser hands over each chunk of a chunked body on its own, several per
          // socket read when the model streams fast: they are joined and enqueued once per read
          // (at the end of the tick), so the SDK's stream stages run once per read, not per chunk.
          let pending: Buffer[] = []
          const flush = () => {
            const chunks = pending
            pending = []
            if (finished || !chunks.length) return
            const joined = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)
            c.enqueue(new Uint8Array(joined.buffer, joined.byteOffset, joined.byteLength))
            // Backpressure: stop reading the socket until the consumer pulls again.
            if ((c.desiredSize ?? 1) <= 0) response.pause()
          }
          response.on('data', (chunk: Buffer) => {
            if (pending.push(chunk) === 1) process.nextTick(flush)
          })
          response.on('end', () => {
            flush()
            if (finished) return
            finished = true
            done()
            c.close()
          })
          // A connection lost mid-body (or the body timeout) errors the body as undici's does.
          response.on('close', () => {
            if (finished) return
            finished = true
            done()
            c.error(new TypeError('terminated', { cause: new Error('the response ended before its end') }))
          })
          response.on('error', () => {
            // Reported by 'close', which follows.
          })
        },
        pull() {
          if (response.isPaused()) response.resume()
        },
        cancel(reason) {
          finished = true
          done()
          req.destroy(reason instanceof Error ? reason : undefined)
        },
      }, { highWaterMark: 16 })
      resolve(new Response(stream, { status, statusText: response.statusMessage, headers: responseHeaders }))
    })
    req.end(body ?? undefined)
  })
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError')
}
