/**
 * A manifest's `realEngines` makes the
 * cases that need a scripted fault `unsupported` with the reason in words (and only those), and
 * the kit finds, or starts, the fake model API each real engine is pointed at.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { ALL_CASES } from '../cases/index.ts'
import { checkManifest, ManifestError } from '../manifest.ts'
import { describeRequirement, missingRequirement } from '../runner.ts'
import { prepareModelApis, type ModelApis } from '../target/model-apis.ts'
import { startFakeAnthropicServer } from '../../fake-engines/model-apis/anthropic-messages/server.ts'
import type { TargetManifest } from '../types.ts'

const base = { baseUrl: 'http://127.0.0.1:9/v1', tokens: { operator: 't', tenantA: 'a' }, profiles: { cli_primary: 'claude', cli_secondary: 'codex' }, cwdRoot: '/w' }
const fake = checkManifest({ ...base, features: ['cli_primary', 'cli_secondary'] }, 'fake')
const real = checkManifest({ ...base, features: ['cli_primary', 'cli_secondary'], realEngines: { cli_primary: { modelApi: 'http://127.0.0.1:4100' }, cli_secondary: { modelApi: 'http://127.0.0.1:4101/v1' } } }, 'real')

const opened: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of opened.splice(0)) await close()
})

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

function manifestWith(realEngines: TargetManifest['realEngines']): TargetManifest {
  return checkManifest({ ...base, features: ['cli_primary', 'cli_secondary'], realEngines }, 'test')
}

describe('realEngines in the manifest', () => {
  it('makes exactly the scripted-fault cases unsupported, naming the fault and the manifest field', () => {
    const blocked = (m: TargetManifest) => Object.fromEntries(ALL_CASES.map((c) => [c.id, missingRequirement(c, m)]).filter(([, why]) => why !== undefined && /scripted engine/.test(why)))
    expect(blocked(fake)).toEqual({})
    const onReal = blocked(real)
    expect(Object.keys(onReal).sort()).toEqual([
      'cli-primary-engine-death', 'cli-primary-rate-limit', 'cli-primary-resume-after-crash', 'cli-primary-subagent-events',
      'cli-secondary-engine-death', 'cli-secondary-question', 'cli-secondary-refused-turn-ends-with-turn-result', 'cli-secondary-resume-after-crash', 'cli-secondary-subagent-events',
    ])
    expect(onReal['cli-primary-engine-death']).toBe("needs the cli_primary profiles on the kit's scripted engine, for its process dying mid-turn on cue (a model API cannot kill the real CLI); the manifest's realEngines.cli_primary runs a real CLI")
    expect(onReal['cli-secondary-engine-death']).toMatch(/realEngines\.cli_secondary runs a real CLI$/)
    // requireApiKey's case needs a subscription login too, listed in words by --list.
    const apiKey = ALL_CASES.find((c) => c.id === 'cli-primary-require-api-key')!
    expect(apiKey.requires.map(describeRequirement)).toContain("the cli_primary profiles on the kit's scripted engine, for a subscription (oauth) login (the real CLI signs in with the API key the gateway gives it); the manifest's realEngines.cli_primary runs a real CLI")
    // Only one engine real: the other engine's scripted cases still run.
    const primaryOnly = manifestWith({ cli_primary: { modelApi: 'http://127.0.0.1:4100' } })
    expect(missingRequirement(ALL_CASES.find((c) => c.id === 'cli-secondary-engine-death')!, primaryOnly)).toBeUndefined()
  })

  it('is checked: an unknown engine, a modelApi that is not a URL, a real engine the features do not offer', () => {
    expect(() => checkManifest({ ...base, features: ['cli_primary'], realEngines: { provider: { modelApi: 'http://127.0.0.1:1' } } }, 'm')).toThrow(/unknown field realEngines\.provider/)
    expect(() => checkManifest({ ...base, features: ['cli_primary'], realEngines: { cli_primary: { modelApi: '127.0.0.1:4100' } } }, 'm')).toThrow(/realEngines\.cli_primary\.modelApi: an http\(s\) URL/)
    expect(() => checkManifest({ ...base, features: ['cli_primary'], realEngines: { cli_secondary: { modelApi: 'http://127.0.0.1:1/v1' } } }, 'm')).toThrow(ManifestError)
  })
})

describe('the fake model APIs behind real engines', () => {
  it('starts each fake on its free loopback port, and uses one already running there', async () => {
    const running = await startFakeAnthropicServer()
    opened.push(running.close)
    const port = await freePort()
    const apis: ModelApis = await prepareModelApis(manifestWith({ cli_primary: { modelApi: running.url }, cli_secondary: { modelApi: `http://127.0.0.1:${port}/v1` } }))
    opened.push(apis.close)
    expect(apis.problems).toEqual([])
    expect(apis.started).toEqual([`cli_secondary: the fake OpenAI Responses API (\`fake-openai-responses\`) started by the kit at http://127.0.0.1:${port}`])
    const identity = await fetch(`http://127.0.0.1:${port}/fake-model-api`)
    expect(await identity.json()).toEqual({ api: 'openai-responses' })
    expect(apis.served()).toEqual({ cli_secondary: 0 })
    await apis.close()
    await expect(fetch(`http://127.0.0.1:${port}/fake-model-api`)).rejects.toThrow()
  })

  it('reports, instead of running, an address answering as another fake, one without a port, and one shared by both engines', async () => {
    const running = await startFakeAnthropicServer()
    opened.push(running.close)
    const wrong = await prepareModelApis(manifestWith({ cli_secondary: { modelApi: `${running.url}/v1` } }))
    opened.push(wrong.close)
    expect(wrong.problems).toEqual([expect.stringMatching(/^realEngines\.cli_secondary\.modelApi: http:\/\/127\.0\.0\.1:\d+ answers, but not as the fake OpenAI Responses API .*HTTP 200 \{"api":"anthropic-messages"\}/)])
    const shared = await prepareModelApis(manifestWith({ cli_primary: { modelApi: running.url }, cli_secondary: { modelApi: `${running.url}/v1` } }))
    opened.push(shared.close)
    expect(shared.problems).toEqual([expect.stringMatching(/^realEngines\.cli_secondary\.modelApi: 127\.0\.0\.1:\d+ is already realEngines\.cli_primary\.modelApi/)])
    const portless = await prepareModelApis(manifestWith({ cli_primary: { modelApi: 'http://localhost' } }))
    opened.push(portless.close)
    expect(portless.started).toEqual([])
    expect(portless.problems).toEqual([expect.stringMatching(/^realEngines\.cli_primary\.modelApi: nothing answers at http:\/\/localhost .*only on a loopback address with a port/)])
  })
})
