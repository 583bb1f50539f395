/**
 * The configuration schema and loader: every problem named by its path, relative paths resolved
 * against the file, unset credential variables as warnings, and the committed JSON Schema in step.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { configJsonSchema, JSON_SCHEMA_FILE } from './json-schema.ts'
import { loadConfigFile, validateConfig } from './load.ts'

const AUTH = { auth: { allowUnauthenticated: true } }

describe('configuration validation', () => {
  it('names every problem by its path', () => {
    const { problems, config } = validateConfig({
      ...AUTH,
      profiles: [
        { name: 'a', engine: 'provider', provider: { id: 'openai-compatible', model: 'm' } },
        { name: 'b', engine: 'mystery' },
        { name: 'c', engine: 'provider', provider: { id: 'openai', model: 'gpt', apiKeyEnv: 'not a name' } },
      ],
      cors: { origins: ['https://*.example.com'] },
      queue: { maxConcurrency: 0 },
      listen: { port: 'eighty' },
      surprise: true,
    }, '/')
    expect(config).toBeUndefined()
    expect(problems).toEqual(expect.arrayContaining([
      "profiles[0].provider.baseURL: required for provider id 'openai-compatible' (or set engines.provider.baseURL)",
      expect.stringMatching(/^profiles\[1\]\.engine: /),
      'profiles[2].provider.apiKeyEnv: an environment variable name',
      'cors.origins[0]: origins are exact, no wildcard',
      expect.stringMatching(/^queue\.maxConcurrency: /),
      expect.stringMatching(/^listen\.port: /),
      'surprise: unknown key', // no known key is close enough for a did-you-mean
    ]))
    expect(problems).toHaveLength(7)
  })

  it('refuses webSockets limits the server would refuse', () => {
    const { problems } = validateConfig({ ...AUTH, webSockets: { maxBufferedBytes: 1024, maxPerSession: 0 } }, '/')
    expect(problems).toEqual([expect.stringMatching(/^webSockets\.maxBufferedBytes: /), expect.stringMatching(/^webSockets\.maxPerSession: /)])
    expect(validateConfig({ ...AUTH, webSockets: { maxBufferedBytes: 65536, slowReaderTimeoutMs: 5000, maxPerPrincipal: 8, maxPerSession: 4 } }, '/').problems).toEqual([])
  })

  it("takes engines.provider.baseURL for a declared openai-compatible profile that names no baseURL of its own, as operating.md says", () => {
    const profile = { name: 'llm', engine: 'provider', provider: { id: 'openai-compatible', model: 'm' } }
    const withEngine = validateConfig({ ...AUTH, engines: { provider: { baseURL: 'http://127.0.0.1:9/v1' } }, profiles: [profile] }, '/')
    expect(withEngine.problems).toEqual([])
    const without = validateConfig({ ...AUTH, profiles: [profile] }, '/')
    expect(without.problems).toEqual(["profiles[0].provider.baseURL: required for provider id 'openai-compatible' (or set engines.provider.baseURL)"])
  })

  it('says "required" for a missing field', () => {
    const { problems } = validateConfig({ ...AUTH, profiles: [{ name: 'p', engine: 'provider', provider: { id: 'openai' } }] }, '/')
    expect(problems).toEqual(['profiles[0].provider.model: required'])
  })

  it('refuses duplicate profile names and a config directory that does not exist', () => {
    const { problems } = validateConfig({ ...AUTH, profiles: [
      { name: 'x', engine: 'cli_primary', configDir: '/definitely/not/here' },
      { name: 'x', engine: 'provider', provider: { id: 'anthropic', model: 'claude' } },
    ] }, '/')
    expect(problems).toEqual(["profiles[0].configDir: /definitely/not/here does not exist", "profiles[1].name: duplicate profile name 'x'"])
  })

  it('needs a way to authenticate', () => {
    expect(validateConfig({}, '/').problems).toEqual(['auth.principalsFile: required (or a hooks module exporting authenticate, or auth.allowUnauthenticated: true)'])
  })

  it('warns, naming the variable and where it is named, when a credential variable is unset; never a value', () => {
    const { problems, warnings } = validateConfig({ ...AUTH, profiles: [{ name: 'p', engine: 'provider', provider: { id: 'openai', model: 'gpt', apiKeyEnv: 'GATEWAY_TEST_UNSET_KEY_42' } }] }, '/')
    expect(problems).toEqual([])
    expect(warnings).toEqual(['profiles[0].provider.apiKeyEnv: environment variable GATEWAY_TEST_UNSET_KEY_42 is not set'])
  })

  it('resolves relative paths against the file, reads YAML and JSON alike', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gw-config-'))
    await writeFile(join(dir, 'g.yaml'), 'auth: { principalsFile: p.json }\nparking: { store: { kind: file, dir: state } }\n')
    await writeFile(join(dir, 'g.json'), JSON.stringify({ auth: { principalsFile: 'p.json' } }))
    const yaml = await loadConfigFile(join(dir, 'g.yaml'))
    expect(yaml.config?.auth?.principalsFile).toBe(join(dir, 'p.json'))
    expect(yaml.config?.parking?.store).toEqual({ kind: 'file', dir: join(dir, 'state') })
    expect((await loadConfigFile(join(dir, 'g.json'))).config?.auth?.principalsFile).toBe(join(dir, 'p.json'))
    await writeFile(join(dir, 'bad.yaml'), 'profiles: [\n')
    expect((await loadConfigFile(join(dir, 'bad.yaml'))).problems[0]).toMatch(/bad\.yaml: not valid YAML/)
  })
})

describe('the JSON Schema for editors', () => {
  it('is the one generated from the zod schema (regenerate: gateway schema > gateway/config/gateway-config.schema.json)', async () => {
    expect(JSON.parse(await readFile(JSON_SCHEMA_FILE, 'utf8'))).toEqual(configJsonSchema())
  })
})

describe('unknown keys', () => {
  it('name the closest known key at their place, in any union branch', () => {
    const { problems } = validateConfig({
      ...AUTH, lisen: { port: 1 },
      profiles: [{ name: 'p', engine: 'cli_primary', confDir: '/x' }, { name: 'q', engine: 'provider', provider: { id: 'openai', model: 'm', apikeyenv: 'K' } }],
      queue: { maxConcurency: 2 },
    }, '/')
    expect(problems).toEqual(expect.arrayContaining([
      "lisen: unknown key (did you mean 'listen'?)",
      "profiles[0].confDir: unknown key (did you mean 'configDir'?)",
      "profiles[1].provider.apikeyenv: unknown key (did you mean 'apiKeyEnv'?)",
      "queue.maxConcurency: unknown key (did you mean 'maxConcurrency'?)",
    ]))
  })
})
