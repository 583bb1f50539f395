/**
 * JSON depth and breadth are resources like size: a body nested past the limit is a 400
 * `json_too_complex` where it is parsed, before anything is registered, on every route that stores
 * or re-serialises client JSON; a WS frame past it is a protocol_error. Listing keeps working.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMemoryProfileStore } from '../host/profile-store.ts'
import { MAX_JSON_DEPTH, MAX_JSON_ENTRIES } from '../server/json-limits.ts'
import { startTestGateway, type TestGateway, type Who } from './harness.ts'

let gw: TestGateway
let sessionId: string
beforeAll(async () => {
  gw = await startTestGateway({ queue: {}, profileStore: createMemoryProfileStore() })
  sessionId = (await gw.createSession({ scope: { tenant: 'a' } })).id
})
afterAll(async () => { await gw?.close() })

/** `{"a":{"a":...}}` `depth` levels deep, built as text so the test itself never recurses. */
function nested(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
}
const deepMeta = (depth = 5000) => `{"meta":${nested(depth)}}`
const wideMeta = () => `{"meta":{${Array.from({ length: MAX_JSON_ENTRIES + 1 }, (_, i) => `"k${i}":0`).join(',')}}}`

async function listStatus(who: Who): Promise<number> {
  return (await gw.request('GET', '/sessions', { who })).status
}

function expectTooComplex(res: { status: number; body: any }): void {
  expect(res.status).toBe(400)
  expect(res.body).toMatchObject({ code: 'json_too_complex' })
  expect(typeof res.body.error).toBe('string')
}

describe('JSON depth and breadth limits', () => {
  it('POST /sessions with meta nested 5,000 deep is 400 and registers nothing; listing still works for everyone', async () => {
    const before = gw.gateway.context.registry.size
    for (const who of ['operator', 'tenantA'] as const) {
      const res = await gw.request('POST', '/sessions', { who, raw: deepMeta(), headers: { 'content-type': 'application/json' } })
      expectTooComplex(res)
    }
    expect(gw.gateway.context.registry.size).toBe(before)
    expect(await listStatus('operator')).toBe(200)
    expect(await listStatus('tenantA')).toBe(200)
  })

  it('a body exactly at the depth limit is accepted; one level more is refused', async () => {
    // The whole body counts: {"meta": ...} adds one level around the nested value.
    const atLimit = await gw.request('POST', '/sessions', { raw: `{"meta":${nested(MAX_JSON_DEPTH - 1)}}`, headers: { 'content-type': 'application/json' } })
    expect(atLimit.status).toBe(201)
    await gw.request('DELETE', `/sessions/${atLimit.body.session.id}`)
    expectTooComplex(await gw.request('POST', '/sessions', { raw: `{"meta":${nested(MAX_JSON_DEPTH)}}`, headers: { 'content-type': 'application/json' } }))
  })

  it('a container with more entries than the breadth limit is refused', async () => {
    expectTooComplex(await gw.request('POST', '/sessions', { raw: wideMeta(), headers: { 'content-type': 'application/json' } }))
    expectTooComplex(await gw.request('POST', '/sessions', { raw: `[${Array(MAX_JSON_ENTRIES + 1).fill(0).join(',')}]`, headers: { 'content-type': 'application/json' } }))
  })

  it('POST /jobs, PATCH, profiles and execution results refuse the same body with 400', async () => {
    const jobsBefore = (await gw.request('GET', '/jobs')).body.jobs.length
    expectTooComplex(await gw.request('POST', '/jobs', { raw: `{"session":{"prompt":"hi","meta":${nested(5000)}}}`, headers: { 'content-type': 'application/json' } }))
    expect((await gw.request('GET', '/jobs')).body.jobs.length).toBe(jobsBefore)
    expectTooComplex(await gw.request('PATCH', `/sessions/${sessionId}`, { raw: `{"title":"x","extra":${nested(5000)}}`, headers: { 'content-type': 'application/json' } }))
    expectTooComplex(await gw.request('POST', '/profiles', { who: 'manager', raw: `{"name":"deep","engine":"provider","session":${nested(5000)}}`, headers: { 'content-type': 'application/json' } }))
    expectTooComplex(await gw.request('POST', '/executions/x/result', { raw: `{"status":"ok","output":${nested(5000)}}`, headers: { 'content-type': 'application/json' } }))
    expect(await listStatus('operator')).toBe(200)
  })

  it('judges syntax first: a malformed body nested past the limit is 400 invalid_json', async () => {
    const res = await gw.request('POST', '/sessions', { raw: `{"meta":${nested(5000)}`, headers: { 'content-type': 'application/json' } })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ code: 'invalid_json' })
  })

  it('a body nested 200,000 deep (within the size limit) is still refused, the check overflowing no stack', async () => {
    expectTooComplex(await gw.request('POST', '/sessions', { raw: `{"meta":${'['.repeat(200_000)}${']'.repeat(200_000)}}`, headers: { 'content-type': 'application/json' } }))
  })

  it('strings that look like brackets do not count as nesting', async () => {
    const text = '['.repeat(10_000) + '{"\\"'
    const res = await gw.request('POST', '/sessions', { body: { meta: { text } } })
    expect(res.status).toBe(201)
    await gw.request('DELETE', `/sessions/${res.body.session.id}`)
  })

  it('a WS command nested past the limit is a protocol_error and the socket stays open', async () => {
    const socket = await gw.attach(sessionId)
    socket.send(`{"type":"tool_call_result","executionId":"e","result":${nested(5000)}}`)
    const frame = await socket.waitFor((f) => f.type === 'protocol_error')
    expect(frame.message).toMatch(/nest|entries/)
    socket.send({ type: 'nope' })
    await socket.waitFor((f) => f.type === 'protocol_error' && /unknown command/.test(f.message))
    socket.close()
  })
})

describe('the registry never holds a session whose create failed', () => {
  it('a create whose SessionInfo cannot be serialised is refused, registers nothing, and listing stays 200', async () => {
    // A host hook can put anything into the config; a BigInt makes JSON.stringify throw.
    const g = await startTestGateway({ buildRunnerConfig: (config) => ({ ...config, meta: { ...config.meta, n: 1n as unknown as number } }) })
    try {
      const res = await g.request('POST', '/sessions', { body: {} })
      expect(res.status).toBeGreaterThanOrEqual(400)
      expect(res.status).not.toBe(500)
      expect(res.body).toMatchObject({ code: 'engine_failed' })
      expect(g.gateway.context.registry.size).toBe(0)
      expect((await g.request('GET', '/sessions')).status).toBe(200)
      expect((await g.request('GET', '/sessions', { who: 'tenantA' })).status).toBe(200)
    } finally {
      await g.close()
    }
  })
})
