/**
 * A shutdown drops nothing. Requests are fired without pause through the end
 * of the grace; every request whose headers reached the gateway gets an answer (its result, or
 * 503 `shutting_down`) and no connection is reset. Refused connections after the listener stops
 * are fine: no request was sent on them.
 */
import { request, type IncomingMessage } from 'node:http'
import { connect } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { startTestGateway, TOKENS, type TestGateway } from './harness.ts'

let gw: TestGateway | undefined
afterEach(async () => { await gw?.close(); gw = undefined })

interface Outcome { status?: number; code?: string; error?: string; port?: number }

/** One request on its own connection (no keep-alive reuse, so a reset can only be the server's doing). */
function fire(url: URL, method: string, body?: string, { partialBody = false } = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { authorization: `Bearer ${TOKENS.operator}`, 'content-type': 'application/json' }
    if (body !== undefined) headers['content-length'] = Buffer.byteLength(body) + (partialBody ? 100 : 0)
    let port: number | undefined
    const req = request(url, { method, headers, agent: false }, (res: IncomingMessage) => {
      let text = ''
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => {
        let code: string | undefined
        try { code = JSON.parse(text).code } catch { /* a success body */ }
        resolve({ status: res.statusCode, code })
      })
      res.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message, port }))
    })
    req.on('socket', (socket) => socket.once('connect', () => { port = socket.localPort }))
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message, port }))
    if (body !== undefined) req.write(body)
    if (!partialBody) req.end() // a partial body stays open: the request is received, its body never completes
  })
}

describe('graceful shutdown drops nothing', { timeout: 60_000 }, () => {
  it('answers every request fired through the grace boundary: 0 resets', async () => {
    let holdCreates = true
    gw = await startTestGateway({
      // A create whose hook never returns is a request in flight when the grace ends.
      buildRunnerConfig: async (config) => {
        if (config.prompt === 'hold' && holdCreates) await new Promise(() => {})
        return config
      },
    })
    const base = new URL(gw.url)
    const at = (path: string) => new URL(`${base.pathname}${path}`, base.origin)
    const busy = await gw.createSession({ prompt: 'scenario:hang' })
    for (let i = 0; (await gw.request('GET', `/sessions/${busy.id}`)).body.session.status !== 'running'; i++) {
      if (i > 500) throw new Error('the turn never started')
      await new Promise((r) => setTimeout(r, 10))
    }
    const held = [fire(at('/sessions'), 'POST', JSON.stringify({ prompt: 'hold' })), fire(at('/sessions'), 'POST', JSON.stringify({ prompt: 'hold' }))]
    const partial = fire(at('/sessions'), 'POST', '{"prompt":"partial', { partialBody: true })

    // An idle keep-alive socket from before the stop: the gateway closes it.
    const idle = connect(Number(base.port), base.hostname)
    const idleClosed = new Promise<void>((done) => idle.on('close', () => done()))
    idle.on('error', () => {})
    await new Promise<void>((done) => idle.once('connect', () => done()))
    idle.write(`GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: keep-alive\r\n\r\n`)
    await new Promise<void>((done) => idle.once('data', () => done()))

    // Several clients firing without pause until the listener is gone.
    const accepted = new Set<number>()
    gw.gateway.server.on('connection', (socket) => accepted.add(socket.remotePort!))
    let stopped = false
    const outcomes: Outcome[] = []
    const loops = Array.from({ length: 6 }, async (_, i) => {
      while (!stopped) {
        const outcome = i % 3 === 0
          ? await fire(at('/sessions'), 'POST', JSON.stringify({ prompt: 'hi' }))
          : await fire(at(i % 3 === 1 ? `/sessions/${busy.id}` : '/profiles'), 'GET')
        outcomes.push(outcome)
        if (outcome.error === 'ECONNREFUSED') return
      }
    })
    await new Promise((r) => setTimeout(r, 50)) // some requests before the stop
    await gw.gateway.shutdown({ graceMs: 400 })
    stopped = true
    await Promise.all(loops)
    holdCreates = false

    const heldAnswers = await Promise.all(held)
    expect(heldAnswers).toEqual([{ status: 503, code: 'shutting_down' }, { status: 503, code: 'shutting_down' }])
    expect(await partial).toEqual({ status: 503, code: 'shutting_down' })
    await idleClosed

    // No connection is reset: neither one the gateway accepted, nor one the kernel had completed
    // but the process not yet accepted when the listener closed (listener-stop.ts). Refused
    // connections carried nothing.
    const failed = outcomes.filter((o) => o.error && o.error !== 'ECONNREFUSED')
    expect(failed).toEqual([])
    expect(accepted.size).toBeGreaterThan(0)
    const answered = outcomes.filter((o) => o.status)
    expect(answered.length).toBeGreaterThan(20)
    // Before the stop, results; during the drain, creates are refused and reads still answered.
    expect(answered.some((o) => o.status === 200)).toBe(true)
    expect(answered.some((o) => o.status === 503 && o.code === 'shutting_down')).toBe(true)
    expect(answered.every((o) => [200, 201, 503].includes(o.status!))).toBe(true)
  })
})
