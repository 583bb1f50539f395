/**
 * The environment variables a configuration names: where each is named, which are credentials
 * (their values redacted from logs), which unset ones are warnings and which stop `serve`.
 */
import { describe, expect, it } from 'vitest'
import { credentialValues, envReferences, missingEnvProblems, missingEnvWarnings } from './env.ts'
import type { GatewayConfig } from './schema.ts'

const config = (c: Record<string, unknown>) => c as GatewayConfig

describe('envReferences', () => {
  it('is empty for a file that names no variable', () => {
    expect(envReferences(config({}))).toEqual([])
    expect(envReferences(config({ engines: { provider: {} }, notifications: { webhook: { url: 'http://127.0.0.1:9/' } }, queue: {} }))).toEqual([])
  })

  it('names an MCP server bearer token variable and a webhook header variable, as warnings when unset', () => {
    const c = config({
      engines: { provider: { mcpServers: { docs: { url: 'http://127.0.0.1:9/mcp', bearerTokenEnv: 'DOCS_TOKEN' } } } },
      notifications: { webhook: { url: 'http://127.0.0.1:9/', headersFromEnv: { Authorization: 'HOOK_AUTH' } } },
    })
    expect(missingEnvWarnings(c, {})).toEqual([
      'engines.provider.mcpServers.docs.bearerTokenEnv: environment variable DOCS_TOKEN is not set',
      'notifications.webhook.headersFromEnv.Authorization: environment variable HOOK_AUTH is not set',
    ])
    expect(missingEnvProblems(c, {})).toEqual([])
    expect(credentialValues(c, { DOCS_TOKEN: 'secret-1' })).toEqual(['secret-1'])
  })

  it('makes a PostgreSQL queue URL variable required', () => {
    const c = config({ queue: { adapter: { kind: 'postgres', urlEnv: 'QUEUE_DB' } } })
    expect(missingEnvProblems(c, {})).toEqual(['queue.adapter.urlEnv: environment variable QUEUE_DB is not set (it must hold a postgres:// URL)'])
    expect(missingEnvWarnings(c, {})).toEqual([])
    expect(credentialValues(c, {})).toEqual([])
  })
})
