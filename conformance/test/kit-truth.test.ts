/**
 * The kit's judgement made true and exact: backoff and doubling judged exactly but with
 * jitter tolerance; JobEvents and permission requests read in any layout the spec allows; a
 * refusal the spec does not rank accepted either way; a missing maxConcurrency never a fail; and
 * the cases that sent what a record forswears or waited for an unobliged event, run against small
 * stub targets that take the other legal choice.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { WebSocketServer } from 'ws'
import { ALL_CASES } from '../cases/index.ts'
import { doublingProblem, exponentialProblem, judgeInRounds, judgeRetryWaits, waitsBetween } from '../harness/backoff.ts'
import { parked } from '../harness/case-helpers/index.ts'
import { CaseContext } from '../harness/context.ts'
import type { HttpAnswer } from '../harness/http-client.ts'
import { jobEventJobId, jobEventMentions, jobEventType } from '../harness/job-event.ts'
import { permissionRequestIdOf } from '../harness/permission-request.ts'
import { runCases } from '../runner.ts'
import { ClauseViolation, type TargetManifest } from '../types.ts'

describe('retry waits, judged exactly with jitter tolerance (job-status.7, limits.12-14)', () => {
  it('accepts doubling from the base, jittered by less than half the base', () => {
    expect(doublingProblem([250, 500], 250)).toBeUndefined()
    expect(doublingProblem([290, 560], 250)).toBeUndefined()
    expect(doublingProblem([250, 500, 1000], 250)).toBeUndefined()
  })

  it('rejects a constant delay, no delay, a tripled delay and doubling that starts at twice the base', () => {
    expect(doublingProblem([250, 250], 250)).toMatch(/^wait 2 was 250 ms, under its due 500 ms/)
    // A constant delay long enough to clear every lower bound still fails on the growth.
    expect(doublingProblem([400, 400], 250)).toMatch(/doubling makes it 250 ms longer/)
    expect(doublingProblem([5, 6], 250)).toMatch(/under its due 250 ms/)
    expect(doublingProblem([250, 750], 250)).toMatch(/exceeds wait 1 by 500 ms/)
    expect(doublingProblem([500, 1000], 250)).toMatch(/exceeds wait 1 by 500 ms/)
  })

  it('judges a noisy timing in rounds: a conforming target stretched by load passes a later round, a constant delay fails them all', async () => {
    // Seen under a full npm test: a 150 ms base whose first retry arrived 192 ms late.
    const stretched = [[342, 307], [150, 300]]
    expect(await judgeInRounds(3, async (round) => stretched[round], (w) => exponentialProblem(w, 150))).toBeUndefined()
    let rounds = 0
    const constant = await judgeInRounds(3, async () => { rounds++; return [150, 160] }, (w) => exponentialProblem(w, 150))
    expect(rounds).toBe(3)
    expect(constant).toMatch(/not exponential \(waits per round: \[\[150,160\],\[150,160\],\[150,160\]\]\)$/)
  })

  it('calls growth from the base exponential and a constant delay not', () => {
    expect(exponentialProblem(waitsBetween([0, 150, 450]), 150)).toBeUndefined()
    expect(exponentialProblem([160, 470], 150)).toBeUndefined()
    expect(exponentialProblem([150, 150], 150)).toMatch(/not exponential/)
    expect(exponentialProblem([10, 300], 150)).toMatch(/under the base 150 ms/)
  })
})

describe('retry waits with a base as small as the jitter (limits.13-14)', () => {
  // Arrivals at the kit carry each end's scheduling latency: a wait is due + L(i+1) - L(i), with
  // L drawn here from 0-25 ms (a loaded loopback). A deterministic PRNG keeps the rates exact.
  function jittered(seed: number, due: (i: number) => number): (round: number) => Promise<number[]> {
    let state = seed
    const latency = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 25
    return async () => {
      const arrivals = [0]
      let at = 0
      for (let i = 0; i < 2; i++) arrivals.push((at += due(i)))
      return waitsBetween(arrivals.map((a) => a + latency()))
    }
  }
  const base = 20
  const rate = async (judgeOne: (measure: (round: number) => Promise<number[]>) => Promise<string | undefined>, due: (i: number) => number) => {
    let passed = 0
    for (let seed = 1; seed <= 400; seed++) if (await judgeOne(jittered(seed, due)) === undefined) passed++
    return passed / 400
  }
  const exponential = (w: number[]) => exponentialProblem(w, base)

  it('one lucky round of three passed a constant 20 ms delay often (the judge this replaces)', async () => {
    expect(await rate((m) => judgeInRounds(3, m, exponential), () => base)).toBeGreaterThan(0.2)
  })

  it('judgeRetryWaits rejects a constant delay and accepts doubling, at a 20 ms base with 25 ms of jitter', async () => {
    expect(await rate((m) => judgeRetryWaits(base, m, exponential), () => base)).toBeLessThan(0.05)
    expect(await rate((m) => judgeRetryWaits(base, m, exponential), (i) => base * 2 ** i)).toBeGreaterThan(0.95)
  })
})

describe('layouts the spec leaves open', () => {
  it('reads a JobEvent\'s type and job id with jobId at the top, job.id nested, or inside a queue frame', () => {
    const layouts = [
      { type: 'job_started', jobId: 'j1' },
      { type: 'job_started', job: { id: 'j1', status: 'running' } },
      { type: 'job_event', event: { type: 'job_started', jobId: 'j1' } },
      { type: 'job_event', event: { type: 'job_started', job: { id: 'j1' } } },
      { type: 'job_event', payload: { event: 'job_started', job_id: 'j1' } },
    ]
    for (const e of layouts) {
      expect(jobEventType(e), JSON.stringify(e)).toBe('job_started')
      expect(jobEventJobId(e), JSON.stringify(e)).toBe('j1')
    }
    expect(jobEventType({ type: 'job_event' })).toBeUndefined()
    expect(jobEventMentions({ type: 'job_parked', job: { parked: { executionId: 'x-9' } } }, 'x-9')).toBe(true)
  })

  it('answers a permission request by its requestId or its id', () => {
    expect(permissionRequestIdOf({ request: { requestId: 'r1' } })).toBe('r1')
    expect(permissionRequestIdOf({ request: { id: 'r2', toolName: 'Bash' } })).toBe('r2')
    expect(permissionRequestIdOf({ requestId: 'r3', request: { toolName: 'Bash' } })).toBe('r3')
  })

  it('accepts either status where two refusals apply unranked, and fails any other', () => {
    const ctx = new CaseContext({ baseUrl: 'http://127.0.0.1:1/v1', tokens: { operator: 't' }, profiles: {}, features: [], absent: [] }, 1, 1000)
    const answer = (status: number): HttpAnswer => ({ status, headers: {}, text: '{"error":"no"}', json: { error: 'no' } }) as HttpAnswer
    ctx.refusal('profile.3', answer(400), { allowed: [400, 403] })
    ctx.refusal('profile.3', answer(403), { allowed: [400, 403] })
    expect(() => ctx.refusal('profile.3', answer(409), { allowed: [400, 403] })).toThrow(ClauseViolation)
    ctx.refusal('server-configuration.8', answer(403), { protocol7: 404 })
    // An open status taken otherwise than protocol 7 is an observation, never an outcome (conformance/variants).
    expect(ctx.observations).toEqual(['refused with 403 where protocol 7 answers 404 (the spec does not fix the status)'])
    expect(ctx.nonStrictNotes).toEqual([])
  })
})

/** A stub gateway: REST answers from `routes`, session WebSockets from `onAttach`. */
function stub(routes: (method: string, path: string) => { status: number; body: unknown } | undefined, onAttach?: (send: (frame: unknown) => void, commands: unknown[]) => void) {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    req.resume()
    req.on('end', () => {
      const answer = routes(req.method ?? 'GET', url.pathname) ?? { status: 404, body: { error: 'not found' } }
      res.writeHead(answer.status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(answer.body))
    })
  })
  const wss = new WebSocketServer({ server })
  wss.on('connection', (ws) => {
    // Each socket its own command queue, as each attach is its own session.
    const commands: unknown[] = []
    const send = (frame: unknown) => ws.send(JSON.stringify(frame))
    ws.on('message', (data) => commands.push(JSON.parse(data.toString())))
    onAttach?.(send, commands)
  })
  return { server, wss }
}

let open: Array<{ server: Server; wss: WebSocketServer }> = []
afterEach(async () => {
  for (const s of open) { s.wss.close(); s.server.closeAllConnections(); await new Promise((r) => s.server.close(r)) }
  open = []
})

async function manifestFor(target: { server: Server; wss: WebSocketServer }, extra: Partial<TargetManifest> = {}): Promise<TargetManifest> {
  open.push(target)
  await new Promise<void>((resolve) => target.server.listen(0, '127.0.0.1', resolve))
  const { port } = target.server.address() as AddressInfo
  return { baseUrl: `http://127.0.0.1:${port}/v1`, tokens: { operator: 't' }, profiles: { provider: 'p' }, features: ['provider', 'queue'], absent: [], ...extra }
}

const caseById = (id: string) => ALL_CASES.find((c) => c.id === id)!

describe('parked() measures the park of its own execution', () => {
  it('skips a non-deferred dispatch of the same turn and waits for the deferred one', async () => {
    let seq = 0
    const session = { id: 's1', status: 'idle', profile: 'p' }
    let status = 'running'
    const target = stub((method, path) => {
      if (method === 'POST' && path === '/v1/sessions') return { status: 201, body: { session } }
      if (method === 'GET' && path === '/v1/sessions/s1') return { status: 200, body: { session: { ...session, status } } }
      if (method === 'PATCH' && path === '/v1/sessions/s1') return status === 'parked' ? { status: 409, body: { error: 'parked' } } : { status: 200, body: { session } }
      if (method === 'DELETE') return { status: 200, body: { session } }
      return undefined
    }, (send, commands) => {
      const event = (e: Record<string, unknown>) => send({ type: 'event', event: { ...e, seq: ++seq, ts: Date.now() } })
      send({ type: 'attached', protocolVersion: 7, session, replayingFrom: 0 })
      const timer = setInterval(() => {
        if ((commands.shift() as any)?.type !== 'user_message') return
        // A local tool call first, then the deferred one the session parks on.
        event({ type: 'execution_dispatched', executionId: 'local-call', deferred: false })
        setTimeout(() => { event({ type: 'execution_dispatched', executionId: 'deferred-call', deferred: true }); status = 'parked' }, 50)
      }, 5)
      setTimeout(() => clearInterval(timer), 3000)
    })
    const manifest = await manifestFor(target)
    const ctx = new CaseContext(manifest, 1, 2000)
    try {
      const { dispatched } = await parked(ctx)
      expect(dispatched.executionId).toBe('deferred-call')
    } finally {
      await ctx.cleanup()
    }
  })
})

describe('cases against targets that take the other legal choice', () => {
  it('jobs-concurrency-and-queued-cancel is unsupported, never failed, without queue.maxConcurrency (the target\'s configured value)', async () => {
    const manifest = await manifestFor(stub((_, path) => path === '/v1/queue' ? { status: 200, body: { stats: { running: 0, parked: 0, paused: false } } } : undefined))
    const [result] = await runCases({ manifest, cases: [caseById('jobs-concurrency-and-queued-cancel')], concurrency: 1, timeoutMs: 2000, seed: 1, repeat: 1 })
    expect(result.outcome).toBe('unsupported')
    expect(result.message).toMatch(/queue\.maxConcurrency/)
  })

  it('ws-activity-count-monotonic sends no clear_context to a session whose record lacks clearContext (absent means false)', async () => {
    let seq = 0
    let activity = 0
    const session = { id: 's1', status: 'idle', profile: 'p', capabilities: { hostCwd: false } }
    const target = stub((method, path) => {
      if (method === 'POST' && path === '/v1/sessions') return { status: 201, body: { session } }
      if (method === 'GET' && path === '/v1/sessions/s1') return { status: 200, body: { session: { ...session, activityCount: activity } } }
      if (method === 'DELETE') return { status: 200, body: { session } }
      return undefined
    }, (send, commands) => {
      const event = (e: Record<string, unknown>) => send({ type: 'event', event: { ...e, seq: ++seq, ts: Date.now() } })
      send({ type: 'attached', protocolVersion: 7, session, replayingFrom: 0 })
      event({ type: 'status_changed', status: 'idle' })
      const timer = setInterval(() => {
        const command: any = commands.shift()
        if (command?.type === 'user_message') { activity += 2; event({ type: 'turn_result', subtype: 'success', isError: false, durationMs: 1, result: 'ok' }) }
        if (command?.type === 'clear_context') event({ type: 'protocol_error_marker' })
      }, 5)
      setTimeout(() => clearInterval(timer), 3000)
    })
    const manifest = await manifestFor(target)
    const [result] = await runCases({ manifest, cases: [caseById('ws-activity-count-monotonic')], concurrency: 1, timeoutMs: 2000, seed: 1, repeat: 1 })
    expect(result.outcome, result.message).toBe('pass')
    expect(result.wireLog.filter((w) => w.kind === 'ws-out').map((w) => w.body ?? w.summary).join('\n')).not.toContain('clear_context')
  })

  it('provider-mcp-identity runs and passes against a target that emits no system_init (its tool is bound by the fake model, not found in system_init)', async () => {
    let seq = 0
    let n = 0
    const target = stub((method, path) => {
      if (method === 'POST' && path === '/v1/sessions') return n < 2 ? { status: 201, body: { session: { id: `s${++n}`, status: 'idle', profile: 'mcp' } } } : { status: 500, body: { error: 'mcp server did not connect' } }
      if (method === 'GET' && /\/v1\/sessions\/s\d\/mcp$/.test(path)) return { status: 200, body: { servers: [{ name: 'fake', status: 'connected' }] } }
      if (method === 'DELETE') return { status: 200, body: {} }
      return undefined
    }, (send, commands) => {
      const caller = `c${Math.floor(Math.random() * 1e6)}`
      const event = (e: Record<string, unknown>) => send({ type: 'event', event: { ...e, seq: ++seq, ts: Date.now() } })
      send({ type: 'attached', protocolVersion: 7, session: { id: 'sX', status: 'idle' }, replayingFrom: 0 })
      event({ type: 'status_changed', status: 'idle' })
      const timer = setInterval(() => {
        const command: any = commands.shift()
        if (command?.type !== 'user_message') return
        // What a target's MCP tool answers, as the fake MCP server does: the query and the caller.
        const query = /"query":"(\w+)"/.exec(command.text)?.[1]
        event({ type: 'turn_result', subtype: 'success', isError: false, durationMs: 1, result: `found ${query} for caller ${caller}` })
      }, 5)
      setTimeout(() => clearInterval(timer), 3000)
    })
    const manifest = await manifestFor(target, { profiles: { provider: 'p', providerMcp: 'mcp', providerMcpBroken: 'broken' }, features: ['provider', 'mcp'] })
    const [result] = await runCases({ manifest, cases: [caseById('provider-mcp-identity')], concurrency: 1, timeoutMs: 2000, seed: 1, repeat: 1 })
    expect(`${result.outcome}: ${result.message ?? ''}`).toMatch(/^(pass|non-strict)/)
    expect(result.wireLog.some((w) => w.kind === 'ws-out' && (w.body ?? w.summary).includes('lookup'))).toBe(true)
  })
})
