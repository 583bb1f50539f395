/**
 * The issue-23 compatibility cases against a target with the shapes this gateway sent before
 * (minted execution ids, `<reason>: <error>` on execution_failed, a message-less deny resolved
 * without a message, attach views ignored and no result route). Every departure is `non-strict`,
 * never `fail` or `error`: the spec is open on each of these shapes.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocketServer, type WebSocket } from 'ws'
import { ALL_CASES } from '../cases/index.ts'

/** The four shapes protocol 7's own client library reads, driven over the kit's client. */
const P7_SHAPES = ['compat-execution-id-tool-use-id', 'compat-execution-failed-bare-error', 'compat-deny-default-message', 'compat-truncate-results']
const compatibilityP7Cases = ALL_CASES.filter((c) => P7_SHAPES.includes(c.id))
import { runCases } from '../runner.ts'
import type { TargetManifest } from '../types.ts'

let server: Server
let manifest: TargetManifest

function oldShapesTarget(): Server {
  const sessions = new Set<string>()
  const http = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      const send = (status: number, body: unknown) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(body)) }
      if (req.method === 'POST' && req.url === '/v1/sessions') {
        const id = `s${sessions.size + 1}`
        sessions.add(id)
        return send(201, { session: { id, status: 'starting', lastSeq: 0 } })
      }
      if (req.method === 'DELETE') return send(200, { session: { id: 'x', status: 'closed' } })
      send(404, { error: 'not found' })
    })
  })
  const wss = new WebSocketServer({ noServer: true })
  http.on('upgrade', (req, socket, head) => {
    const id = /^\/v1\/sessions\/([^/]+)\/ws/.exec(req.url ?? '')?.[1] ?? ''
    if (!sessions.has(id)) return socket.destroy()
    wss.handleUpgrade(req, socket, head, (ws) => play(ws, id, new URL(req.url ?? '', 'http://x').searchParams.get('afterSeq') !== null))
  })
  return http
}

/** One scripted session per socket; a re-attach with afterSeq replays the bridged turn as it was logged. */
const logs = new Map<string, Array<Record<string, unknown>>>()
function play(ws: WebSocket, id: string, replayOnly: boolean): void {
  const log = logs.get(id) ?? []
  logs.set(id, log)
  const event = (body: Record<string, unknown>) => {
    const e = { ...body, seq: log.length + 1, ts: Date.now() }
    log.push(e)
    ws.send(JSON.stringify({ type: 'event', event: e }))
  }
  const turn = () => event({ type: 'turn_result', subtype: 'success', isError: false, durationMs: 1, numTurns: 1, totalCostUsd: 0, result: 'done' })
  ws.send(JSON.stringify({ type: 'attached', protocolVersion: 7, session: { id, status: 'idle', lastSeq: log.length }, replayingFrom: 0 }))
  if (replayOnly) {
    for (const e of log) ws.send(JSON.stringify({ type: 'event', event: e }))
    return
  }
  event({ type: 'status_changed', status: 'idle' })
  ws.on('message', (data) => {
    const command = JSON.parse(data.toString())
    if (command.type === 'user_message' && command.text === 'scenario:bridge') {
      event({ type: 'assistant_message', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'client_eval', input: { code: '6 * 7' } }] }, parentToolUseId: null })
      event({ type: 'execution_dispatched', executionId: '5c1d2e7a-0000-4000-8000-000000000001', toolName: 'client_eval', backend: 'browser' })
      ws.send(JSON.stringify({ type: 'tool_call_request', executionId: '5c1d2e7a-0000-4000-8000-000000000001', toolName: 'client_eval', input: { code: '6 * 7' } }))
    } else if (command.type === 'tool_call_result') {
      event({ type: 'execution_result', executionId: command.executionId, output: command.output })
      event({ type: 'user_message', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: JSON.stringify(command.output.value) }] }, parentToolUseId: null, synthetic: true })
      turn()
    } else if (command.type === 'tool_call_error') {
      event({ type: 'execution_failed', executionId: command.executionId, reason: command.reason, error: `${command.reason}: ${command.error}` })
      turn()
    } else if (command.type === 'user_message' && command.text === 'scenario:permission-write') {
      event({ type: 'permission_requested', request: { id: 'req-1', toolName: 'Bash', input: { command: 'echo hello' } } })
    } else if (command.type === 'permission_decision') {
      event({ type: 'permission_resolved', requestId: command.requestId, behavior: command.behavior, resolvedBy: 'client', ...(command.message ? { message: command.message } : {}) })
    }
  })
}

beforeAll(async () => {
  server = oldShapesTarget()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  manifest = { baseUrl: `http://127.0.0.1:${port}/v1`, tokens: { operator: 't' }, profiles: { provider: 'default', cli_primary: 'primary' }, cwdRoot: '/tmp', features: ['provider', 'bridge', 'cli_primary'], absent: [] }
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

describe('issue-23 compatibility cases against a target with the earlier shapes', () => {
  it('reports each of the four departures as non-strict, never fail', async () => {
    const results = await runCases({ manifest, cases: compatibilityP7Cases, concurrency: 2, timeoutMs: 3000, seed: 1, repeat: 1 })
    const outcomes = Object.fromEntries(results.map((r) => [r.id, `${r.outcome}: ${r.message ?? ''}`]))
    expect(Object.keys(outcomes).sort()).toEqual(['compat-deny-default-message', 'compat-execution-failed-bare-error', 'compat-execution-id-tool-use-id', 'compat-truncate-results'])
    for (const [id, outcome] of Object.entries(outcomes)) expect(outcome, id).toMatch(/^non-strict: /)
    expect(outcomes['compat-execution-id-tool-use-id']).toContain('is not the id of the tool_use block')
    expect(outcomes['compat-execution-failed-bare-error']).toContain('"unsupported: no sandbox in this client"')
    expect(outcomes['compat-deny-default-message']).toContain('carries undefined')
    expect(outcomes['compat-truncate-results']).toContain('truncated: true')
    expect(outcomes['compat-truncate-results']).toContain('answered 404')
  })
})
