/**
 * The compatibility cases against a target speaking the shapes this gateway used before the compatibility pass
 * (a legacy target: `tool_call_result` needs `result`, PermissionRequest has only `requestId`,
 * REST answers say `resolvedBy: 'rest'` without the deny message, `stream_delta` carries
 * `{type:'text_delta', text}`, SessionInfo has no `cwd`). Every departure is `non-strict`, never
 * `fail` or `error`: the spec is open on each of these shapes.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocketServer, type WebSocket } from 'ws'
import { ALL_CASES } from '../cases/index.ts'
import { runCases } from '../runner.ts'
import type { TargetManifest } from '../types.ts'

let server: Server
let manifest: TargetManifest

/** One scripted session per create; just enough of the legacy wire for the compatibility flows. */
function legacyTarget(): Server {
  const sessions = new Map<string, { body: Record<string, any>; seq: number }>()
  const http = createServer((req, res) => {
    let raw = ''
    req.on('data', (c) => { raw += c })
    req.on('end', () => {
      const send = (status: number, body: unknown) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(body)) }
      const path = req.url ?? ''
      if (req.method === 'POST' && path === '/v1/sessions') {
        const id = `s${sessions.size + 1}`
        const body = JSON.parse(raw || '{}')
        sessions.set(id, { body, seq: 0 })
        return send(201, { session: { id, status: 'starting', lastSeq: 0, pendingPermissionCount: 0, capabilities: { hostCwd: body.profile !== 'primary' ? false : true } } })
      }
      const permission = /^\/v1\/sessions\/([^/]+)\/permissions\/([^/]+)$/.exec(path)
      if (req.method === 'POST' && permission) {
        // The legacy target only knows requests by their requestId, which protocol-7 clients do not have.
        return permission[2] === 'req-1' ? send(200, { resolved: true }) : send(404, { error: 'permission request not found' })
      }
      if (req.method === 'DELETE') return send(200, { session: { id: 'x', status: 'closed' } })
      send(404, { error: 'not found' })
    })
  })
  const wss = new WebSocketServer({ noServer: true })
  http.on('upgrade', (req, socket, head) => {
    const id = /^\/v1\/sessions\/([^/]+)\/ws/.exec(req.url ?? '')?.[1] ?? ''
    const session = sessions.get(id)
    if (!session) return socket.destroy()
    wss.handleUpgrade(req, socket, head, (ws) => play(ws, id, session))
  })
  return http
}

function play(ws: WebSocket, id: string, session: { body: Record<string, any>; seq: number }): void {
  const event = (body: Record<string, unknown>) => ws.send(JSON.stringify({ type: 'event', event: { ...body, seq: ++session.seq, ts: Date.now() } }))
  const turn = (result: string) => event({ type: 'turn_result', subtype: 'success', isError: false, durationMs: 1, numTurns: 1, totalCostUsd: 0, result })
  ws.send(JSON.stringify({ type: 'attached', protocolVersion: 7, session: { id, status: 'idle', lastSeq: 0 }, replayingFrom: 0 }))
  event({ type: 'status_changed', status: 'idle' })
  ws.on('message', (data) => {
    const command = JSON.parse(data.toString())
    if (command.type === 'user_message' && command.text === 'scenario:bridge') {
      ws.send(JSON.stringify({ type: 'tool_call_request', executionId: 'e1', toolName: 'client_eval', input: { code: '6 * 7' } }))
    } else if (command.type === 'tool_call_result') {
      if (command.result === undefined) ws.send(JSON.stringify({ type: 'protocol_error', message: 'invalid tool_call_result command: result: result is required' }))
    } else if (command.type === 'tool_call_error') {
      event({ type: 'execution_failed', executionId: 'e1', reason: 'failed', error: command.error })
      turn(`The client answered: ${command.error}`)
    } else if (command.type === 'user_message' && command.text === 'scenario:permission-write') {
      event({ type: 'permission_requested', request: { requestId: 'req-1', toolName: 'Bash', input: { command: 'touch kit-permission-write.txt' } } })
    } else if (command.type === 'user_message' && command.text === 'scenario:long-text') {
      for (const text of ['Hello, ', 'world!']) event({ type: 'stream_delta', event: { type: 'text_delta', text } })
      event({ type: 'assistant_message', message: { role: 'assistant', content: [{ type: 'text', text: 'Hello, world!' }] } })
      turn('Hello, world!')
    }
  })
}

beforeAll(async () => {
  server = legacyTarget()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  manifest = { baseUrl: `http://127.0.0.1:${port}/v1`, tokens: { operator: 't' }, profiles: { provider: 'default', cli_primary: 'primary' }, cwdRoot: '/tmp', features: ['provider', 'bridge', 'cli_primary'], absent: [] }
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

describe('compatibility cases against a target with the pre-issue-16 shapes', () => {
  it('reports each departure from protocol 7 as non-strict, never fail', async () => {
    const wanted = ['compat-tool-call-result-output', 'compat-tool-call-error', 'compat-permission-request-id', 'compat-permission-rest-by-id', 'compat-stream-delta-provider', 'compat-session-cwd']
    const cases = ALL_CASES.filter((c) => wanted.includes(c.id))
    expect(cases.map((c) => c.id).sort()).toEqual([...wanted].sort())
    const results = await runCases({ manifest, cases, concurrency: 2, timeoutMs: 3000, seed: 1, repeat: 1 })
    const outcomes = Object.fromEntries(results.map((r) => [r.id, `${r.outcome}: ${r.message ?? ''}`]))
    for (const id of wanted) expect(outcomes[id], id).toMatch(/^non-strict: /)
    expect(outcomes['compat-tool-call-result-output']).toContain('protocol_error')
    expect(outcomes['compat-permission-request-id']).toContain('`id`')
    expect(outcomes['compat-stream-delta-provider']).toContain('raw Messages-API stream event')
    expect(outcomes['compat-session-cwd']).toContain('SessionInfo.cwd')
  })
})
