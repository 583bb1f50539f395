/**
 * End to end: a provider session on the fake model server emits the same events whether its
 * profile streams with the lean client (the default) or with `@ai-sdk/openai-compatible`
 * (`provider.client: 'ai-sdk'`): a text turn with partial messages, a tool call, a deferred tool
 * answered from outside, a turn with cache usage, and a model error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeModelServer, type FakeModelServer } from '../../../../fake-engines/provider-model/server.ts'
import type { ProfileConfig, ProviderSettings, SessionEvent } from '../../../protocol/index.ts'
import { createAiSdkRunner } from '../create-runner.ts'

let model: FakeModelServer
beforeAll(async () => {
  model = await startFakeModelServer()
})
afterAll(() => model?.close())

async function until(events: SessionEvent[], predicate: (e: SessionEvent) => boolean): Promise<SessionEvent> {
  for (let i = 0; i < 1000; i++) {
    const hit = events.find(predicate)
    if (hit) return hit
    await new Promise((r) => setTimeout(r, 5))
  }
  throw new Error(`no such event; got ${events.map((e) => e.type).join(',')}`)
}

let sessions = 0
/** One session's events for one message, a deferred call answered when it is dispatched. */
async function session(client: ProviderSettings['client'], message: string): Promise<SessionEvent[]> {
  const profile: ProfileConfig = { name: `p-${client}`, engine: 'provider', provider: { id: 'fake', model: 'fake-small', client } }
  const config = { id: `s${++sessions}`, profile: profile.name, engine: 'provider' as const, permissionMode: 'default' as const, canBypassPermissions: true, createdAt: 0, includePartialMessages: true }
  const runner = createAiSdkRunner({ config, profile, bridge: { attachedCount: () => 0 } }, { baseURL: model.baseURL, maxRetries: 0, deferredTools: { deferred_task: { description: 'Answered from outside.' } } })
  const events: SessionEvent[] = []
  runner.subscribe((e) => events.push(e))
  await runner.start()
  runner.sendMessage(message)
  const ended = (e: SessionEvent) => e.type === 'turn_result' || e.type === 'execution_dispatched'
  const first = await until(events, ended)
  if (first.type === 'execution_dispatched') {
    runner.settleExecution?.(first.executionId, { status: 'ok', output: { approved: true } })
    await until(events, (e) => e.type === 'turn_result')
  }
  runner.close('client')
  return events
}

/** Events without what differs run to run: times, uuids, the fake model's call ids. */
function comparable(events: SessionEvent[]): unknown {
  const ids = new Map<string, string>()
  const text = JSON.stringify(events, (key, value) => (['ts', 'durationMs', 'expiresAt', 'createdAt'].includes(key) ? 0 : key === 'uuid' || key === 'sdkSessionId' ? 'uuid' : value))
  return JSON.parse(text.replace(/call_[0-9a-f]+_\d+/g, (id) => {
    if (!ids.has(id)) ids.set(id, `call#${ids.size}`)
    return ids.get(id)!
  }))
}

describe('provider session events: lean client vs ai-sdk client', () => {
  for (const message of ['scenario:hello', 'scenario:tool-echo', 'scenario:deferred', 'scenario:usage-heavy', 'scenario:model-error']) {
    it(`${message}: the same events`, async () => {
      const theirs = comparable(await session('ai-sdk', message))
      const ours = comparable(await session('lean', message))
      expect(ours).toEqual(theirs)
      expect((theirs as SessionEvent[]).some((e) => e.type === 'turn_result')).toBe(true)
    })
  }
})
