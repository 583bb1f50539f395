/**
 * Through the whole gateway (HTTP create, WebSocket attach, POST /executions/:id/result): a
 * provider session on the fake model server sends its client the same events whether its profile
 * streams with the lean OpenAI-compatible client (the default) or with `@ai-sdk/openai-compatible`
 * (`provider.client: 'ai-sdk'`): a text turn with partial messages (events.11), a tool call, a
 * deferred tool answered over HTTP, and a model error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ProfileConfig } from '../protocol/index.ts'
import { startTestGateway, type TestGateway } from './harness.ts'

const profile = (name: string, client: 'lean' | 'ai-sdk'): ProfileConfig => ({ name, engine: 'provider', provider: { id: 'fake', model: 'fake-small', client } })

let g: TestGateway
beforeAll(async () => {
  g = await startTestGateway(
    { profiles: [profile('lean', 'lean'), profile('sdk', 'ai-sdk')] },
    { deferredTools: { deferred_task: { description: 'Answered over HTTP.' } } },
  )
})
afterAll(() => g?.close())

/** The events a client sees for one message on one profile. */
async function events(profileName: string, message: string): Promise<unknown[]> {
  const session = await g.createSession({ profile: profileName, includePartialMessages: true })
  const ws = await g.attach(session.id)
  ws.send({ type: 'user_message', text: message })
  const ended = (f: any) => f.type === 'event' && (f.event.type === 'turn_result' || f.event.type === 'execution_dispatched')
  const first = (await ws.waitFor(ended)).event
  if (first.type === 'execution_dispatched') {
    const res = await g.request('POST', `/executions/${first.executionId}/result`, { body: { status: 'ok', output: { type: 'text', value: 'approved' } } })
    expect(res.status).toBe(200)
    await ws.waitForEvent('turn_result')
  }
  ws.ws.close()
  return comparable(ws.events(), session.id, profileName)
}

/** Without what differs run to run or profile to profile: times, uuids, ids, the profile's name. */
function comparable(list: unknown[], sessionId: string, profileName: string): unknown[] {
  const ids = new Map<string, string>()
  const text = JSON.stringify(list, (key, value) => {
    if (['ts', 'durationMs', 'expiresAt', 'createdAt'].includes(key)) return 0
    if (key === 'uuid' || key === 'sdkSessionId') return 'uuid'
    if (value === sessionId) return 'session'
    if (value === profileName) return 'profile'
    return value
  })
  return JSON.parse(text.replace(/call_[0-9a-f]+_\d+/g, (id) => {
    if (!ids.has(id)) ids.set(id, `call#${ids.size}`)
    return ids.get(id)!
  }))
}

describe('a provider session over the gateway: lean client vs ai-sdk client', () => {
  for (const message of ['scenario:hello', 'scenario:tool-echo', 'scenario:deferred', 'scenario:model-error']) {
    it(`${message}: the same events at the client`, async () => {
      const theirs = await events('sdk', message)
      const ours = await events('lean', message)
      expect(ours).toEqual(theirs)
      expect(theirs.some((e) => (e as { type: string }).type === 'turn_result')).toBe(true)
    })
  }
})
