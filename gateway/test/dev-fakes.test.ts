/**
 * `gateway dev` imports the fakes from the conformance kit by package name, so the gateway's build
 * never compiles them in (gateway/dev-fakes.ts). These are the same modules the kit exports as
 * `gateway-conformance/fakes/*`: they must have the shape dev-fakes.ts relies on.
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import * as claudeCli from '../../fake-engines/claude-cli/index.ts'
import * as codexAppServer from '../../fake-engines/codex-app-server/index.ts'
import * as anthropicMessages from '../../fake-engines/model-apis/anthropic-messages/server.ts'
import * as mcpServer from '../../fake-engines/mcp-server/server.ts'
import * as providerModel from '../../fake-engines/provider-model/server.ts'
import type { KitFakes } from '../dev-fakes.ts'

describe('the kit fakes gateway dev loads', () => {
  // The annotation is the type check (tsc --noEmit); the body checks what types cannot.
  const fakes: KitFakes = { ...providerModel, ...mcpServer, ...claudeCli, ...codexAppServer, ...anthropicMessages }

  // From the sources: Node's own type stripping where it has it (22.18+), else the tsx loader.
  const expectedArgs = process.features.typescript ? [] : ['--import', expect.stringMatching(/tsx/)]

  it('name the fake Claude CLI script that exists, run by Node from the sources', () => {
    expect(fakes.FAKE_CLAUDE_CLI_PATH).toMatch(/fake-engines\/claude-cli\/main\.ts$/)
    expect(existsSync(fakes.FAKE_CLAUDE_CLI_PATH)).toBe(true)
    expect(fakes.FAKE_CLAUDE_CLI_NODE_ARGS).toEqual(expectedArgs)
  })

  it('name the fake codex app-server script that exists, run the same way, and it runs with those arguments', () => {
    expect(fakes.FAKE_CODEX_APP_SERVER_PATH).toMatch(/fake-engines\/codex-app-server\/main\.ts$/)
    expect(existsSync(fakes.FAKE_CODEX_APP_SERVER_PATH)).toBe(true)
    expect(fakes.FAKE_CODEX_APP_SERVER_NODE_ARGS).toEqual(expectedArgs)
    const version = execFileSync(process.execPath, [...fakes.FAKE_CODEX_APP_SERVER_NODE_ARGS, fakes.FAKE_CODEX_APP_SERVER_PATH, '--version'], { encoding: 'utf8' })
    expect(version).toMatch(/^codex-cli \S+ \(fake\)/)
  })

  it('start and stop the fake model server and the fake MCP server', async () => {
    const model = await fakes.startFakeModelServer({ host: '127.0.0.1', port: 0 })
    const mcp = await fakes.startFakeMcpServer({ host: '127.0.0.1', port: 0 })
    try {
      expect((await fetch(`${model.baseURL}/models`)).status).toBe(200)
      expect((await fetch(mcp.url)).status).toBe(405) // stateless MCP endpoint: GET is not served
    } finally {
      await model.close()
      await mcp.close()
    }
  })
})
