/**
 * After a restart, a persistLive session that nothing has attached to yet is a stored row whose
 * status is idle: a rename or an MCP read on it rebuilds it (embedding-rules.14) instead of being
 * refused as parked; only a session resting parked answers 409 (errors.6). Found by the kit's
 * commands-on-dormant cells.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createFileSessionStore } from '../sessions/stores/file-store.ts'
import { startTestGateway, until, type TestGateway } from './harness.ts'

const gateways: TestGateway[] = []
afterEach(async () => {
  for (const g of gateways.splice(0)) await g.close()
})

async function start(dir: string) {
  const g = await startTestGateway({ parking: { parkDelayMs: 20, store: createFileSessionStore({ dir }), persistLive: true } }, { deferredTools: { deferred_task: { expiresInMs: 60_000 } } })
  gateways.push(g)
  return g
}

describe('commands on a session stored but not yet rebuilt after a restart', () => {
  it('renames a dormant idle session (200, kept) and still refuses a parked one (409)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gw-dormant-'))
    const a = await start(dir)
    const idle = await a.createSession({ prompt: 'before the restart' })
    await until(() => a.request('GET', `/sessions/${idle.id}`), (r) => r.body.session.status === 'idle' && r.body.session.lastSeq > 0, 'the first turn done')
    const parked = await a.createSession({})
    const ws = await a.attach(parked.id)
    ws.send({ type: 'user_message', text: 'scenario:deferred' })
    await ws.waitForEvent('execution_dispatched')
    ws.close()
    await until(async () => a.gateway.context.parking.isParked(parked.id), (p) => p, 'parked')
    await a.close()
    gateways.splice(gateways.indexOf(a), 1)

    const b = await start(dir)
    expect(b.gateway.context.parking.isParked(idle.id)).toBe(true)
    expect((await b.request('GET', `/sessions/${idle.id}`)).body.session.status).toBe('idle')
    const renamed = await b.request('PATCH', `/sessions/${idle.id}`, { body: { title: 'after the restart' } })
    expect(renamed.status).toBe(200)
    expect(renamed.body.session).toMatchObject({ id: idle.id, title: 'after the restart', status: 'idle' })
    expect((await b.request('GET', `/sessions/${idle.id}`)).body.session.title).toBe('after the restart')
    expect((await b.request('GET', `/sessions/${idle.id}/mcp`)).status).not.toBe(409)

    const refused = await b.request('PATCH', `/sessions/${parked.id}`, { body: { title: 'no' } })
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe('session_parked')
  })
})
