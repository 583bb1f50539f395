/**
 * A shutdown resets nothing at the moment the listener closes. Several clients fire requests
 * without pause across that moment, on new connections and on keep-alive ones, through 40
 * shutdowns: 20 of a gateway in this process (the path SIGTERM takes: `shutdown`) and 20 SIGTERMs
 * to `gateway serve` as a child process. Every request is answered (its result, or 503
 * `shutting_down`) or its connection refused (ECONNREFUSED: nothing was sent, a client retries
 * elsewhere); a connection reset (ECONNRESET, EPIPE, "socket hang up") is a failure, whether or
 * not the gateway had accepted the connection: the kernel resets the connections it queued, and
 * the handshakes it answered, that the process had not accepted when the listener closed.
 */
import { Agent, request } from 'node:http'
import { connect } from 'node:net'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startFakeModelServer } from '../../fake-engines/provider-model/server.ts'
import { createToken } from '../config/principals.ts'
import { serveGateway } from './gateway-command.ts'
import { startTestGateway, TOKENS } from './harness.ts'

const cleanups: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** What became of one request, and when (`Date.now()`) it ended. */
type Outcome = ({ status: number; code?: string } | { error: string }) & { at: number }

/** One request; `agent` false opens a connection for it, else the agent's keep-alive socket is reused. */
function fire(url: string, token: string, agent: Agent | false, post: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    const body = post ? JSON.stringify({ prompt: 'hi' }) : undefined
    const headers: Record<string, string | number> = { authorization: `Bearer ${token}` }
    if (body) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
    const req = request(`${url}${post ? '/sessions' : '/profiles'}`, { method: post ? 'POST' : 'GET', headers, agent }, (res) => {
      let text = ''
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => {
        let code: string | undefined
        try { code = JSON.parse(text).code } catch { /* a result */ }
        resolve({ status: res.statusCode!, code, at: Date.now() })
      })
      res.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message, at: Date.now() }))
    })
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message, at: Date.now() }))
    req.end(body)
  })
}

/**
 * `loops` clients, half on fresh connections and half on keep-alive agents, each firing until its
 * connection is refused; resolves with every outcome once `stopped()` and all were refused.
 */
function fireContinuously(url: string, token: string, loops: number): { outcomes: Outcome[]; done: Promise<void> } {
  const outcomes: Outcome[] = []
  const done = Promise.all(Array.from({ length: loops }, async (_, i) => {
    const agent = i % 2 === 0 ? false : new Agent({ keepAlive: true, maxSockets: 1 })
    for (let n = 0; ; n++) {
      const outcome = await fire(url, token, agent, n % 4 === 3)
      outcomes.push(outcome)
      if ('error' in outcome && outcome.error === 'ECONNREFUSED') break
    }
    if (agent) agent.destroy()
  })).then(() => {})
  return { outcomes, done }
}

/**
 * No request ending from `since` (the stop's start) on was reset. One ending before is not the
 * stop's doing: on a machine this loaded the gateway can stall longer than Node's 5 s
 * keep-alive timeout, which then closes a kept-alive socket with a request already in its
 * buffer.
 */
function expectNoReset(outcomes: Outcome[], since: number): void {
  const failures = outcomes.filter((o) => 'error' in o && o.error !== 'ECONNREFUSED' && o.at >= since)
  expect(failures).toEqual([])
  const answered = outcomes.filter((o): o is Outcome & { status: number; code?: string } => 'status' in o)
  expect(answered.length).toBeGreaterThan(0)
  expect(answered.filter((o) => ![200, 201].includes(o.status) && !(o.status === 503 && o.code === 'shutting_down'))).toEqual([])
}

/** The number of requests the gateway has answered (its access to its own metrics would be a request too). */
async function answeredAtLeast(outcomes: Outcome[], n: number): Promise<void> {
  while (outcomes.filter((o) => 'status' in o).length < n) await new Promise((r) => setTimeout(r, 5))
}

describe('the listener closes without resetting a connection', () => {
  it('20 in-process shutdowns under continuous load: every request answered or refused, 0 resets', { timeout: 120_000 }, async () => {
    const round = async () => {
      const gw = await startTestGateway()
      cleanups.push(() => gw.close())
      // A client that sent half its headers, and one idle on a keep-alive connection since before the stop.
      const partial = rawClient(gw.url, 'GET /v1/profiles HTTP/1.1\r\nhost: x\r\n')
      const idle = rawClient(gw.url, 'GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n')
      const load = fireContinuously(gw.url, TOKENS.operator, 6)
      await answeredAtLeast(load.outcomes, 20)
      const since = Date.now()
      await gw.gateway.shutdown({ graceMs: 100 })
      await load.done
      expectNoReset(load.outcomes, since)
      // Neither is reset: each gets the closing 503 and then the end of its connection.
      expect(await partial).toMatchObject({ error: undefined, last: expect.stringContaining('"code":"shutting_down"') })
      expect(await idle).toMatchObject({ error: undefined, last: expect.stringMatching(/^HTTP\/1\.1 503 .*"code":"shutting_down"/s) })
    }
    // Rounds in parallel keep the test short; each has its own gateway and clients.
    for (let batch = 0; batch < 20; batch += 5) await Promise.all(Array.from({ length: 5 }, round))
  })

  // A child process meets what the in-process rounds may not: the gateway and its clients scheduled
  // apart on a busy machine, so handshakes are in progress at any moment of the stop.
  it('20 SIGTERMs to gateway serve under continuous load: every request answered or refused, 0 resets', { timeout: 240_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gw-boundary-'))
    cleanups.push(() => rm(dir, { recursive: true, force: true }))
    const model = await startFakeModelServer({ host: '127.0.0.1', port: 0 })
    cleanups.push(() => model.close())
    const token = await createToken(join(dir, 'principals.json'), { id: 'ops', operator: true })
    const config = join(dir, 'gateway.json')
    await writeFile(config, JSON.stringify({
      auth: { principalsFile: 'principals.json' },
      profiles: [{ name: 'default', engine: 'provider', provider: { id: 'openai-compatible', baseURL: model.baseURL, model: 'fake-small' } }],
      shutdown: { graceMs: 200 },
    }))
    const round = async () => {
      const gw = await serveGateway(config)
      cleanups.push(() => void gw.child.kill('SIGKILL'))
      const load = fireContinuously(gw.url, token, 4)
      await answeredAtLeast(load.outcomes, 20)
      const since = Date.now()
      gw.child.kill('SIGTERM')
      expect(await gw.exited).toEqual({ code: 0, signal: null })
      await load.done
      return { outcomes: load.outcomes, since }
    }
    // Four gateways at a time keep the test short and the machine busy.
    const rounds: Array<{ outcomes: Outcome[]; since: number }> = []
    for (let batch = 0; batch < 20; batch += 4) rounds.push(...(await Promise.all(Array.from({ length: 4 }, round))))
    for (const { outcomes, since } of rounds) expectNoReset(outcomes, since)
  })
})

/** A raw connection that sends `text` once; resolves with what it last received and any error, when it closes. */
function rawClient(url: string, text: string): Promise<{ error?: string; last: string }> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => socket.write(text))
    let last = ''
    let error: string | undefined
    socket.on('data', (chunk) => (last = chunk.toString()))
    socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message))
    socket.on('close', () => resolve({ error, last }))
  })
}
