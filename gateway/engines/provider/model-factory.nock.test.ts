/**
 * The model factory's error handling against nock: the provider client built by
 * providerFor surfaces HTTP failures, resets and malformed bodies as rejections (never a hang),
 * sends the key only as its bearer header, and never puts it in an error. End-to-end turns keep
 * the real fake model server on loopback.
 */
import { generateText } from 'ai'
import nock from 'nock'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { ProfileConfig } from '../../protocol/index.ts'
import { catalogOf, providerFor } from './model-factory.ts'

const BASE = 'http://models.example.test/v1'
const KEY_ENV = 'GW_NOCK_TEST_KEY'
const SECRET = 'sk-nock-secret-5b1e'
const profile: ProfileConfig = { name: 'nock', engine: 'provider', provider: { id: 'fake', model: 'm-1', apiKeyEnv: KEY_ENV } }

beforeAll(() => {
  nock.disableNetConnect()
  process.env[KEY_ENV] = SECRET
})
afterEach(() => nock.cleanAll())
afterAll(() => {
  nock.enableNetConnect()
  delete process.env[KEY_ENV]
})

function ask() {
  const { provider } = providerFor(profile, { baseURL: BASE })
  return generateText({ model: provider.chatModel('m-1'), prompt: 'hello', maxRetries: 0 })
}

async function failure(): Promise<Error> {
  try {
    await ask()
  } catch (err) {
    return err as Error
  }
  throw new Error('the call did not fail')
}

const completion = { id: 'c1', object: 'chat.completion', created: 1, model: 'm-1', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }

describe('providerFor against nock', () => {
  it('sends the key only as the bearer header and reads a completion', async () => {
    const scope = nock(BASE, { reqheaders: { authorization: `Bearer ${SECRET}` } }).post('/chat/completions').reply(200, completion)
    const result = await ask()
    expect(result.text).toBe('hi')
    expect(scope.isDone()).toBe(true)
    expect(providerFor(profile, { baseURL: BASE }).apiKeySource).toBe('env')
  })

  it('rejects on 5xx, 429 and 401 with the status, and no error carries the key', async () => {
    for (const status of [500, 429, 401]) {
      nock(BASE).post('/chat/completions').reply(status, { error: { message: `upstream said ${status}` } })
      const err = await failure()
      expect(String((err as { statusCode?: number }).statusCode)).toBe(String(status))
      expect(`${err.message} ${JSON.stringify(err)}`).not.toContain(SECRET)
    }
  })

  it('rejects on a connection reset and on a malformed body', async () => {
    nock(BASE).post('/chat/completions').replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))
    expect((await failure()).message).toBeTruthy()
    nock(BASE).post('/chat/completions').reply(200, '{"choices": [', { 'content-type': 'application/json' })
    expect((await failure()).message).toBeTruthy()
  })

  it('builds one provider client per profile, URL and key, and refuses a profile without a base URL', () => {
    expect(providerFor(profile, { baseURL: BASE }).provider).toBe(providerFor(profile, { baseURL: BASE }).provider)
    expect(providerFor(profile, { baseURL: `${BASE}/other` }).provider).not.toBe(providerFor(profile, { baseURL: BASE }).provider)
    expect(() => providerFor(profile, {})).toThrow(/no base URL/)
    expect(catalogOf({ ...profile, provider: { id: 'fake', model: 'm-1', models: ['m-1', 'm-2'] } })).toEqual(['m-1', 'm-2'])
  })
})
