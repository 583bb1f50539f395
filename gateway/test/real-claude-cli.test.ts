/**
 * The gateway's `cli_primary` adapter driving the REAL Claude Code CLI, offline, against
 * the fake Messages API (fake-engines/model-apis/anthropic-messages). The binary is the Agent
 * SDK's own native package at the SDK's version, installed once into the real-binary cache;
 * skipped only when it cannot be installed, with the reason printed.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCliPrimaryAdapter, type EngineProcessEvent } from '../engines/cli-primary/index.ts'
import { startTestGateway, until, type TestGateway } from './harness.ts'
import { installRealClaude, REAL_CLAUDE_PACKAGE, realClaudeWorld, type RealClaudeWorld } from './real-claude.ts'

const real = await installRealClaude()
if (!real.ok) console.warn(`SKIPPED the real Claude Code CLI tests: ${REAL_CLAUDE_PACKAGE.name}@${REAL_CLAUDE_PACKAGE.version} could not be installed: ${real.reason}`)
else console.info(`real Claude Code CLI ${REAL_CLAUDE_PACKAGE.name}@${REAL_CLAUDE_PACKAGE.version}: ${real.installed.cached ? 'cached' : 'installed'} (install ${real.installed.installMs} ms, ${Math.round(real.installed.sizeBytes / 2 ** 20)} MiB)`)

const TURN_MS = 60_000

describe.skipIf(!real.ok)('the real Claude Code CLI through the cli_primary adapter', () => {
  let world: RealClaudeWorld
  let gw: TestGateway
  const processes: EngineProcessEvent[] = []
  beforeAll(async () => {
    if (!real.ok) return
    world = await realClaudeWorld()
    gw = await startTestGateway({
      profiles: [{ name: 'primary', engine: 'cli_primary', configDir: world.configDir }],
      // Through the observed launcher gateway serve uses, so it is proven on the real binary too.
      engines: { cli_primary: createCliPrimaryAdapter({ pathToClaudeCodeExecutable: real.binary, env: world.env, onProcess: (e) => processes.push(e) }) },
    })
  })
  afterAll(async () => {
    await gw?.close()
    await world?.dispose()
  })

  it('streams a text turn and reports the API key as the credential source', async () => {
    const session = await gw.createSession({ profile: 'primary', cwd: gw.cwdRoot, prompt: 'scenario:hello' })
    const ws = await gw.attach(session.id)
    const result = await ws.waitForEvent('turn_result', () => true, TURN_MS)
    expect(result.isError).toBe(false)
    // hello's two text steps are one text block (the fake Messages API streams it in two deltas), as on every fake engine.
    const texts = ws.events().filter((e) => e.type === 'assistant_message').flatMap((e) => e.message.content.map((b: { text?: string }) => b.text ?? ''))
    expect(texts).toEqual(['Hello, world!'])
    expect(result.result).toBe('Hello, world!')
    expect((await gw.request('GET', `/sessions/${session.id}`)).body.session.apiKeySource).toBe('ANTHROPIC_API_KEY')
    ws.close()
  }, TURN_MS * 2)

  it('asks permission for a mutating Bash command and runs it on allow', async () => {
    const session = await gw.createSession({ profile: 'primary', cwd: gw.cwdRoot, prompt: 'scenario:touch' })
    const ws = await gw.attach(session.id)
    const asked = await ws.waitForEvent('permission_requested', () => true, TURN_MS)
    expect(asked.request.toolName).toBe('Bash')
    ws.send({ type: 'permission_decision', requestId: asked.request.id ?? asked.request.requestId, behavior: 'allow', updatedInput: asked.request.input })
    expect((await ws.waitForEvent('turn_result', () => true, TURN_MS)).isError).toBe(false)
    expect(existsSync(join(gw.cwdRoot, 'touched.txt'))).toBe(true)
    ws.close()
  }, TURN_MS * 2)

  it('reports each CLI process it spawned, and its exit once the session is deleted', async () => {
    const before = processes.length
    const session = await gw.createSession({ profile: 'primary', cwd: gw.cwdRoot, prompt: 'scenario:hello' })
    const ws = await gw.attach(session.id)
    await ws.waitForEvent('turn_result', () => true, TURN_MS)
    const spawned = processes.slice(before).filter((e) => e.type === 'spawn').map((e) => e.pid)
    expect(spawned).toHaveLength(1)
    expect(typeof spawned[0]).toBe('number')
    await gw.request('DELETE', `/sessions/${session.id}`)
    await until(async () => processes.filter((e) => e.type === 'exit').map((e) => e.pid), (ended) => spawned.every((pid) => ended.includes(pid)), 'every CLI exited', TURN_MS)
  }, TURN_MS * 2)
})
