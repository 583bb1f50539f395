/**
 * httpFetch, the providers' HTTP client (issue 25): what the AI SDK relies on from a `fetch`
 * holds — the body's bytes in order, the status and headers, a refused connection as
 * `TypeError('fetch failed')` with its cause, an abort as the signal's AbortError (before the
 * response and mid-body), a connection lost mid-body as an error of the body, redirects followed.
 */
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { httpFetch } from './http-fetch.ts'

let server: Server
let base: string
/** Responses left open by the `/hold` route, ended by the tests. */
const held: ServerResponse[] = []

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => { body += c })
    req.on('end', () => {
      if (req.url === '/echo') {
        res.writeHead(201, { 'content-type': 'application/json', 'x-seen-auth': String(req.headers.authorization) })
        res.end(JSON.stringify({ method: req.method, body }))
      } else if (req.url === '/events') {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        // Many small writes: chunks of a chunked body, several per socket read.
        for (let i = 0; i < 200; i++) res.write(`data: ${i}\n\n`)
        res.end()
      } else if (req.url === '/hold') {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.write('data: first\n\n')
        held.push(res)
      } else if (req.url === '/moved') {
        res.writeHead(307, { location: '/echo' })
        res.end()
      } else if (req.url === '/missing') {
        res.writeHead(404, { 'content-type': 'application/json' })
        res.end('{"error":{"message":"no such model"}}')
      } else {
        res.writeHead(500).end()
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  for (const res of held) res.destroy()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

describe('httpFetch', () => {
  it('sends method, headers and body; answers status, headers and body as a Response', async () => {
    const res = await httpFetch(`${base}/echo`, { method: 'POST', headers: { authorization: 'Bearer k', 'content-type': 'application/json' }, body: '{"a":1}' })
    expect(res.status).toBe(201)
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(res.headers.get('x-seen-auth')).toBe('Bearer k')
    expect(await res.json()).toEqual({ method: 'POST', body: '{"a":1}' })
  })

  it('delivers a streamed body whole and in order, the chunks of one read joined', async () => {
    const res = await httpFetch(`${base}/events`, { method: 'POST', body: '{}' })
    const expected = Array.from({ length: 200 }, (_, i) => `data: ${i}\n\n`).join('')
    const chunks: Uint8Array[] = []
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk)
    expect(Buffer.concat(chunks).toString()).toBe(expected)
    // The server wrote all 200 before this process read any: a few reads, not one chunk each.
    expect(chunks.length).toBeLessThan(20)
  })

  it('answers an error status with its body, as fetch does', async () => {
    const res = await httpFetch(`${base}/missing`, { method: 'POST', body: '{}' })
    expect(res.status).toBe(404)
    expect(res.ok).toBe(false)
    expect(await res.text()).toContain('no such model')
  })

  it('follows a redirect', async () => {
    const res = await httpFetch(`${base}/moved`, { method: 'POST', body: 'x' })
    expect(res.status).toBe(201)
    expect(await res.json()).toEqual({ method: 'POST', body: 'x' })
  })

  it("rejects a refused connection with TypeError('fetch failed') and the cause", async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const err = await httpFetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }).then(() => undefined, (e: unknown) => e)
    expect(err).toBeInstanceOf(TypeError)
    expect((err as TypeError).message).toBe('fetch failed')
    expect(((err as TypeError).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED')
  })

  it('rejects at once when the signal is already aborted', async () => {
    const err = await httpFetch(`${base}/echo`, { method: 'POST', body: '{}', signal: AbortSignal.abort() }).then(() => undefined, (e: unknown) => e)
    expect((err as Error).name).toBe('AbortError')
  })

  it('errors the body with the AbortError when aborted mid-body', async () => {
    const abort = new AbortController()
    const res = await httpFetch(`${base}/hold`, { method: 'POST', body: '{}', signal: abort.signal })
    const reader = res.body!.getReader()
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n')
    abort.abort()
    const err = await reader.read().then(() => undefined, (e: unknown) => e)
    expect((err as Error).name).toBe('AbortError')
  })

  it('errors the body when the server drops the connection mid-body', async () => {
    const res = await httpFetch(`${base}/hold`, { method: 'POST', body: '{}' })
    const reader = res.body!.getReader()
    await reader.read()
    held.at(-1)!.destroy()
    const err = await reader.read().then(() => undefined, (e: unknown) => e)
    expect(err).toBeInstanceOf(TypeError)
    expect((err as TypeError).message).toBe('terminated')
  })
})
