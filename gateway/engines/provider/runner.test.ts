import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeModelServer, type FakeModelServer } from '../../../fake-engines/provider-model/server.ts'
import { streamedText, type ProfileConfig, type SessionEvent } from '../../protocol/index.ts'
import type { Runner, RunnerConfig } from '../../sessions/runner.ts'
import { createAiSdkRunner } from './create-runner.ts'

const SECRET = 'sk-test-should-never-leak-4242'
let model: FakeModelServer
beforeAll(async () => {
  process.env.FAKE_PROVIDER_KEY = SECRET
  model = await startFakeModelServer()
})
afterAll(async () => {
  delete process.env.FAKE_PROVIDER_KEY
  await model?.close()
})

const profile: ProfileConfig = { name: 'p', engine: 'provider', provider: { id: 'fake', model: 'fake-small', models: ['fake-small', 'fake-large'], apiKeyEnv: 'FAKE_PROVIDER_KEY' } }
let seq = 0
function runner(extra: Partial<RunnerConfig> = {}): { runner: Runner; events: SessionEvent[] } {
  const config: RunnerConfig = { id: `s${++seq}`, profile: 'p', engine: 'provider', permissionMode: 'default', canBypassPermissions: true, createdAt: Date.now(), ...extra }
  const r = createAiSdkRunner({ config, profile, bridge: { attachedCount: () => 0 } }, { baseURL: model.baseURL, maxRetries: 0 })
  const events: SessionEvent[] = []
  r.subscribe((e) => events.push(e))
  return { runner: r, events }
}

async function until(events: SessionEvent[], predicate: (e: SessionEvent) => boolean): Promise<SessionEvent> {
  for (let i = 0; i < 500; i++) {
    const hit = events.find(predicate)
    if (hit) return hit
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`no such event; got ${events.map((e) => e.type).join(',')}`)
}
const turnResult = (n: number) => (e: SessionEvent) => e.type === 'turn_result' && e.numTurns === n

describe('provider runner on the AI SDK', () => {
  it('plays a text turn: user message, running, deltas, assistant message, turn result, idle', async () => {
    const { runner: r, events } = runner({ includePartialMessages: true })
    await r.start()
    r.sendMessage('scenario:hello')
    await until(events, turnResult(1))
    const types = events.map((e) => (e.type === 'status_changed' ? `status:${e.status}` : e.type === 'stream_delta' ? `delta:${e.event.type}` : e.type))
    expect(types).toEqual(['system_init', 'capabilities', 'status:idle', 'user_message', 'status:running',
      'delta:message_start', 'delta:content_block_start', 'delta:content_block_delta', 'delta:content_block_delta', 'delta:content_block_stop', 'delta:message_delta', 'delta:message_stop',
      'assistant_message', 'turn_result', 'status:idle'].slice(0, types.length))
    // Protocol 7's raw Messages-API shape: text_delta frames rebuild the assistant's text.
    const deltas = events.flatMap((e) => (e.type === 'stream_delta' && e.event.type === 'content_block_delta' ? [e.event] : []))
    expect(deltas[0]).toEqual({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello, ' } })
    expect(deltas.map((d) => streamedText(d)).join('')).toBe('Hello, world!')
    expect(events.filter((e) => e.type === 'stream_delta').every((e) => e.parentToolUseId === null && typeof e.uuid === 'string')).toBe(true)
    const result = events.find((e) => e.type === 'turn_result')!
    expect(result).toMatchObject({ subtype: 'success', isError: false, result: 'Hello, world!', usage: { input_tokens: 12, output_tokens: 4 } })
    expect(r.info().status).toBe('idle')
  })

  it('emits no stream_delta without includePartialMessages and counts turns cumulatively', async () => {
    const { runner: r, events } = runner()
    await r.start()
    r.sendMessage('one')
    r.sendMessage('two') // queued behind the first, never interrupting it
    await until(events, turnResult(2))
    expect(events.some((e) => e.type === 'stream_delta')).toBe(false)
    const texts = events.filter((e) => e.type === 'assistant_message').map((e) => (e as any).message.content[0].text)
    expect(texts).toEqual(['echo: one', 'echo: two'])
  })

  it('turns a model error into an error turn_result and keeps the session usable', async () => {
    const { runner: r, events } = runner()
    await r.start()
    r.sendMessage('scenario:model-error')
    const failed = await until(events, turnResult(1))
    expect(failed).toMatchObject({ isError: true, subtype: 'error_during_execution' })
    r.sendMessage('again')
    expect(await until(events, turnResult(2))).toMatchObject({ isError: false, result: 'echo: again' })
    expect(events.some((e) => e.type === 'session_error')).toBe(false)
  })

  it('interrupts a hanging turn', async () => {
    const { runner: r, events } = runner()
    await r.start()
    r.sendMessage('scenario:hang')
    await until(events, (e) => e.type === 'status_changed' && e.status === 'running')
    r.interrupt()
    expect(await until(events, turnResult(1))).toMatchObject({ subtype: 'error_during_execution', isError: true, errors: ['interrupted'] })
  })

  it('switches models within the catalog and refuses others', async () => {
    const { runner: r, events } = runner()
    await r.start()
    r.setModel('fake-large')
    expect(r.info().model).toBe('fake-large')
    expect(() => r.setModel('gpt-nope')).toThrow(/unknown model 'gpt-nope'/)
    r.setModel(undefined)
    expect(events.filter((e) => e.type === 'model_changed').map((e) => (e as any).model)).toEqual(['fake-large', undefined])
  })

  it('never puts the API key in an event or in info, and reports its source', async () => {
    const { runner: r, events } = runner({ prompt: 'hello' })
    await r.start()
    await until(events, turnResult(1))
    expect(JSON.stringify(events) + JSON.stringify(r.info())).not.toContain(SECRET)
    expect(r.info().apiKeySource).toBe('env')
  })

  it('closes once, then refuses messages', async () => {
    let disposed = 0
    const config: RunnerConfig = { id: 'closing', profile: 'p', engine: 'provider', permissionMode: 'default', canBypassPermissions: true, createdAt: Date.now() }
    const r = createAiSdkRunner({ config, profile, bridge: { attachedCount: () => 0 } }, { baseURL: model.baseURL, onClose: () => disposed++ })
    const events: SessionEvent[] = []
    r.subscribe((e) => events.push(e))
    await r.start()
    r.close('client')
    r.close('server')
    expect(events.filter((e) => e.type === 'session_closed')).toHaveLength(1)
    expect(r.info().status).toBe('closed')
    expect(disposed).toBe(1)
    expect(() => r.sendMessage('late')).toThrow('session is closed')
  })
})
