/**
 * The configuration file's bounds as `gateway check` reports them: every documented value of an
 * enumeration is accepted, an empty string where a name or path is needed is refused at its path.
 * config.test.ts covers the problems' wording and the cross-field rules.
 */
import { describe, expect, it } from 'vitest'
import { validateConfig } from './load.ts'

const AUTH = { auth: { allowUnauthenticated: true } }
const problemsOf = (config: Record<string, unknown>) => validateConfig({ ...AUTH, ...config }, '/').problems

describe('configuration bounds', () => {
  it('accepts each documented value of the enumerations and adapter kinds', () => {
    expect(problemsOf({
      engines: { provider: { baseURL: 'http://127.0.0.1:9/v1' }, cli_primary: { questionBehavior: 'deny' } },
      profiles: [{ name: 'llm', engine: 'provider', provider: { id: 'openai-compatible', model: 'm', client: 'lean' } }],
      queue: { adapter: { kind: 'memory' } },
      health: { healthPath: '/live', readyPath: '/ready' },
    })).toEqual([])
    for (const questionBehavior of ['ask', 'auto', 'deny']) expect(problemsOf({ engines: { cli_primary: { questionBehavior } } })).toEqual([])
  })

  it('refuses an empty name or path at its path, and a health path not starting with /', () => {
    expect(problemsOf({ profiles: [{ name: 'c', engine: 'cli_primary', executable: '' }] })).toEqual([expect.stringMatching(/^profiles\[0\]\.executable: /)])
    expect(problemsOf({ hooks: '' })).toEqual([expect.stringMatching(/^hooks: /)])
    expect(problemsOf({ allowedConfigDirRoots: [''] })).toEqual([expect.stringMatching(/^allowedConfigDirRoots\[0\]: /)])
    expect(problemsOf({ health: { healthPath: 'healthz' } })).toEqual([expect.stringMatching(/^health\.healthPath: /)])
    expect(problemsOf({ queue: { adapter: { kind: 'redis' } } })).toEqual([expect.stringMatching(/^queue\.adapter\.kind: /)])
  })

  it("suggests the closest key inside a map's entries too (an MCP server named by the operator)", () => {
    expect(problemsOf({ engines: { provider: { mcpServers: { docs: { url: 'http://127.0.0.1:9/mcp', bearerTokenEnvv: 'DOCS_TOKEN' } } } } }))
      .toEqual(["engines.provider.mcpServers.docs.bearerTokenEnvv: unknown key (did you mean 'bearerTokenEnv'?)"])
  })
})
