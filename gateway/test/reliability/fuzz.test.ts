/**
 * Property-based fuzzing of every route and every WebSocket command: generated requests
 * (realistic ones from faker, hostile ones from fast-check) from every principal. Properties: no
 * 5xx (501 for an engine without the feature is spec'd and counted apart), no hang, every error a
 * JSON `{error, code}`, the server healthy afterwards and listing working for every principal.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMemoryProfileStore } from '../../host/profile-store.ts'
import { startTestGateway, TOKENS, type TestGateway, type Who } from '../harness.ts'
import { announce, realisticInputs, scaled, SEED } from './scale.ts'

const REQUESTS = scaled(1500, 10_000)
const WS_FRAMES = scaled(1000, 5000)
const HANG_MS = 15_000
const PRINCIPALS: Who[] = ['operator', 'tenantA', 'tenantB', 'restricted', 'manager', 'nobody']

let gw: TestGateway
const sessionIds: string[] = []
beforeAll(async () => {
  gw = await startTestGateway({ queue: { webhookRetryDelayMs: 10 }, profileStore: createMemoryProfileStore(), hostFiles: { write: true }, parking: { parkDelayMs: 20 } },
    { deferredTools: { deferred_task: {} }, bridgedTools: { client_eval: { expiresInMs: 200 } } })
  for (const who of ['operator', 'tenantA', 'tenantB'] as const) sessionIds.push((await gw.createSession({ prompt: 'hello' }, who)).id)
})
afterAll(async () => { await gw?.close() })

const inputs = realisticInputs(SEED)
const hostileSegment = fc.oneof(fc.constantFrom('..', '%2e%2e', '%2F', '%00', '%E0%A4', '%', '~', '.', '%252e', '\u2215'), fc.webSegment(), fc.string({ maxLength: 30 }).map(encodeURIComponent))
const anId = fc.oneof(fc.constantFrom(...['s0', 's1', 's2']), hostileSegment)
const deep = fc.integer({ min: 1, max: 3000 }).map((d) => '['.repeat(d) + ']'.repeat(d))
const hostileJson = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }),
  deep,
  fc.dictionary(fc.constantFrom('profile', 'cwd', 'prompt', 'permissionMode', 'model', 'scope', 'meta', 'mcpServers', 'capabilities', 'title', 'session', 'webhook', 'name', 'engine', 'status', 'output', 'behavior', 'action', 'path', 'content', 'expectedHash', '__proto__'),
    fc.oneof(fc.jsonValue({ maxDepth: 3 }), deep.map((d) => JSON.parse(d))), { maxKeys: 6 }).map((o) => JSON.stringify(o)),
)
/** Realistic bodies for a route: what a client that means well sends, with faker's titles, meta and multilingual prompts. */
function realisticBody(route: string): string | undefined {
  if (route === '/sessions') return JSON.stringify({ prompt: inputs.prompt(), title: inputs.title(), meta: inputs.meta() })
  if (route === '/sessions/{id}') return JSON.stringify({ title: inputs.title() })
  if (route === '/jobs') return JSON.stringify({ session: { prompt: inputs.prompt(), meta: inputs.meta() } })
  if (route === '/fs/write') return JSON.stringify({ path: `{root}/${inputs.fileName()}`, content: inputs.prompt() })
  if (route.startsWith('/profiles')) return JSON.stringify({ name: inputs.fileName().replace(/\W/g, '-'), engine: 'provider', provider: { id: 'fake', model: 'fake-small' } })
  if (route.includes('/result')) return JSON.stringify({ status: 'ok', output: { type: 'text', value: inputs.prompt() } })
  if (route.includes('/permissions/')) return JSON.stringify({ behavior: 'allow' })
  if (route.includes('/mcp/')) return JSON.stringify({ action: 'reconnect' })
  return undefined
}
/** Each route with the methods it answers; one request in five takes any method instead. */
const ROUTES: Array<[string, string]> = [
  ['GET', '/sessions'], ['POST', '/sessions'], ['GET', '/sessions/{id}'], ['PATCH', '/sessions/{id}'], ['DELETE', '/sessions/{seg}'],
  ['GET', '/sessions/{id}/files'], ['GET', '/sessions/{id}/files/{seg}'], ['POST', '/sessions/{id}/attachments?name={seg}'], ['GET', '/sessions/{id}/attachments/{seg}'],
  ['GET', '/sessions/{id}/mcp'], ['POST', '/sessions/{id}/mcp/{seg}'], ['GET', '/sessions/{id}/produced'], ['GET', '/sessions/{id}/produced/{seg}'], ['GET', '/sessions/{id}/project/icon'],
  ['POST', '/sessions/{id}/permissions/{seg}'], ['GET', '/sessions/{id}/ws'], ['POST', '/executions/{seg}/result'],
  ['GET', '/profiles'], ['POST', '/profiles'], ['GET', '/profiles/{seg}'], ['PATCH', '/profiles/{seg}'], ['DELETE', '/profiles/{seg}'],
  ['GET', '/sdk-sessions?dir={path}&limit={seg}'], ['GET', '/fs/roots'], ['GET', '/fs/list?path={path}'], ['GET', '/fs/find?path={path}&q={seg}'], ['GET', '/fs/read?path={path}'], ['PUT', '/fs/write'],
  ['GET', '/jobs'], ['POST', '/jobs'], ['GET', '/jobs/{seg}'], ['DELETE', '/jobs/{seg}'], ['GET', '/queue'], ['GET', '/{seg}/{seg}'],
]
/** Paths for the /fs routes: under the root (realistic names), traversal spellings, and hostile text. */
const fsPath = fc.oneof(
  fc.integer().map(() => encodeURIComponent(`{root}/${inputs.fileName()}`)),
  fc.constantFrom('{root}', '{root}/..', '{root}/../../etc/passwd', '/etc/passwd', '{root}/%2e%2e/x', 'relative').map(encodeURIComponent),
  hostileSegment,
)
const request = fc.record({
  who: fc.constantFrom(...PRINCIPALS),
  pair: fc.constantFrom(...ROUTES),
  anyMethod: fc.option(fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS'), { freq: 4, nil: undefined }),
  id: anId,
  seg: hostileSegment,
  path: fsPath,
  body: fc.oneof({ arbitrary: fc.constant('REALISTIC'), weight: 3 }, { arbitrary: hostileJson, weight: 2 }, { arbitrary: fc.constant(undefined), weight: 1 }),
})

interface Tally { statuses: Record<number, number>; findings: string[] }

type GeneratedRequest = { who: Who; pair: [string, string]; anyMethod?: string; id: string; seg: string; path: string; body?: string }

async function send(r: GeneratedRequest, tally: Tally): Promise<void> {
  const id = r.id.startsWith('s') && r.id.length === 2 ? sessionIds[Number(r.id[1])] ?? r.id : r.id
  const method = r.anyMethod ?? r.pair[0]
  const path = r.pair[1].replaceAll('{id}', id).replaceAll('{seg}', r.seg).replaceAll('{path}', r.path).replaceAll(encodeURIComponent('{root}'), encodeURIComponent(gw.cwdRoot))
  const r2 = { ...r, method }
  const headers: Record<string, string> = r.who === 'nobody' ? {} : { authorization: `Bearer ${TOKENS[r.who]}` }
  if (r.body !== undefined) headers['content-type'] = 'application/json'
  const started = Date.now()
  let res: Response
  try {
    res = await fetch(`${gw.origin}/v1${path}`, { method, headers, body: method === 'GET' || method === 'OPTIONS' ? undefined : r.body?.replaceAll('{root}', gw.cwdRoot), signal: AbortSignal.timeout(HANG_MS) })
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause
    tally.findings.push(`${r2.method} ${path} as ${r.who} with ${r.body === undefined ? 'no body' : `a ${r.body.length}-char body ${JSON.stringify(r.body.slice(0, 60))}`}: no answer (${(err as Error).name}: ${cause?.code ?? cause?.message ?? ''}) after ${Date.now() - started} ms`)
    return
  }
  const text = await res.text()
  tally.statuses[res.status] = (tally.statuses[res.status] ?? 0) + 1
  if (res.status >= 500 && res.status !== 501) tally.findings.push(`${r2.method} ${path} as ${r.who}: ${res.status} ${text.slice(0, 200)}`)
  if (res.status >= 400 && res.status !== 426) {
    let body: any
    try { body = JSON.parse(text) } catch { body = undefined }
    if (typeof body?.error !== 'string' || typeof body?.code !== 'string') tally.findings.push(`${r2.method} ${path}: ${res.status} without a JSON {error, code} body`)
  }
  if (r2.method === 'POST' && path === '/sessions' && res.status === 201) {
    // Keep the registry from growing without bound; a delete of a fuzzed session must work too.
    const created = JSON.parse(text).session.id
    const del = await fetch(`${gw.url}/sessions/${created}`, { method: 'DELETE', headers })
    if (del.status !== 200) tally.findings.push(`DELETE of a fuzz-created session: ${del.status}`)
  }
}

async function healthy(): Promise<string[]> {
  const problems: string[] = []
  for (const who of PRINCIPALS) {
    const res = await gw.request('GET', '/sessions', { who })
    const expected = who === 'nobody' ? 401 : 200
    if (res.status !== expected) problems.push(`GET /sessions as ${who}: ${res.status}`)
  }
  return problems
}

describe('fuzzing every route and WS command', () => {
  it(`${REQUESTS} generated requests from every principal: no 5xx, no hang, JSON errors, healthy after`, async () => {
    const tally: Tally = { statuses: {}, findings: [] }
    // Realistic bodies are drawn here, in sample order, so a seed replays the same requests.
    const requests = fc.sample(request, { numRuns: REQUESTS, seed: SEED }).map((r) => ({ ...r, body: r.body === 'REALISTIC' ? realisticBody(r.pair[1]) : r.body }))
    let next = 0
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next < requests.length) await send(requests[next++], tally)
    }))
    tally.findings.push(...(await healthy()))
    announce('fuzz-http', { requests: REQUESTS, statuses: tally.statuses, findings: tally.findings.length })
    for (const f of tally.findings.slice(0, 20)) console.log(`[reliability] finding: ${f}`)
    expect(tally.findings).toEqual([])
  }, scaled(120_000, 900_000))

  it(`${WS_FRAMES} generated commands on a session socket: protocol_error or accepted, socket open, session healthy`, async () => {
    const command = fc.oneof(
      fc.record({
        type: fc.constantFrom('user_message', 'permission_decision', 'interrupt', 'set_permission_mode', 'set_model', 'clear_context', 'tool_call_result', 'tool_call_error', 'nope'),
        text: fc.oneof(fc.constant('hello'), fc.integer().map(() => inputs.prompt()), fc.string({ maxLength: 50 })),
        requestId: fc.string({ maxLength: 10 }), behavior: fc.constantFrom('allow', 'deny', 'maybe'), mode: fc.constantFrom('default', 'plan', 'acceptEdits', 'bypassPermissions', 'x'),
        model: fc.constantFrom('fake-small', 'fake-large', 'nope'), executionId: fc.string({ maxLength: 10 }), result: fc.jsonValue({ maxDepth: 3 }), error: fc.string({ maxLength: 20 }),
        attachmentIds: fc.array(fc.string({ maxLength: 8 }), { maxLength: 2 }),
      }, { requiredKeys: ['type'] }).map((c) => JSON.stringify(c)),
      hostileJson,
    )
    // The HTTP fuzz may have deleted the seeded sessions: a fresh one, with a turn behind it.
    const session = await gw.createSession({ prompt: inputs.prompt() })
    sessionIds[0] = session.id
    const socket = await gw.attach(session.id)
    const frames = fc.sample(command, { numRuns: WS_FRAMES, seed: SEED + 1 })
    for (const f of frames) socket.send(f)
    socket.send({ type: 'nope-final' })
    await socket.waitFor((f) => f.type === 'protocol_error' && f.message === 'unknown command: nope-final', 60_000)
    const open = socket.ws.readyState === socket.ws.OPEN
    socket.close()
    const problems = await healthy()
    announce('fuzz-ws', { frames: WS_FRAMES, protocolErrors: socket.frames.filter((f) => f.type === 'protocol_error').length, socketOpen: open, findings: problems.length })
    expect(open).toBe(true)
    expect(problems).toEqual([])
    expect((await gw.request('GET', `/sessions/${sessionIds[0]}`)).status).toBe(200)
  }, scaled(120_000, 600_000))
})
