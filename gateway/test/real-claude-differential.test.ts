/**
 * The differential test: each scenario played by our fake Claude CLI and by the real
 * Claude Code CLI (against the fake Messages API) gives the same gateway events, after the
 * normalisations listed and justified in differential-claude.ts. This is what keeps the fake
 * honest when the CLI changes. Skipped only when the real CLI cannot be installed (reason printed).
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCliPrimaryAdapter } from '../engines/cli-primary/index.ts'
import { normaliseClaudeEvents } from './differential-claude.ts'
import { startTestGateway, type TestGateway } from './harness.ts'
import { installRealClaude, REAL_CLAUDE_PACKAGE, realClaudeWorld, type RealClaudeWorld } from './real-claude.ts'

const real = await installRealClaude()
if (!real.ok) console.warn(`SKIPPED the differential test: ${REAL_CLAUDE_PACKAGE.name}@${REAL_CLAUDE_PACKAGE.version} could not be installed: ${real.reason}`)

const TURN_MS = 60_000
type Decision = 'allow' | 'deny' | undefined
const CASES: Array<{ title: string; prompt: string; decision: Decision }> = [
  { title: 'text in one block of two deltas (hello)', prompt: 'scenario:hello', decision: undefined },
  { title: 'a mutating Bash command, allowed (touch)', prompt: 'scenario:touch', decision: 'allow' },
  { title: 'a mutating Bash command, denied with a message (touch)', prompt: 'scenario:touch', decision: 'deny' },
  { title: 'the Write tool, allowed, producing a file (write-file)', prompt: 'scenario:write-file', decision: 'allow' },
]

/** One scenario, start to idle, answering the one permission request it raises. */
async function play(gw: TestGateway, prompt: string, decision: Decision): Promise<Array<Record<string, unknown>>> {
  const session = await gw.createSession({ profile: 'primary', cwd: gw.cwdRoot, prompt })
  const ws = await gw.attach(session.id)
  if (decision) {
    const asked = await ws.waitForEvent('permission_requested', () => true, TURN_MS)
    const requestId = asked.request.id ?? asked.request.requestId
    ws.send(decision === 'allow'
      ? { type: 'permission_decision', requestId, behavior: 'allow', updatedInput: asked.request.input }
      : { type: 'permission_decision', requestId, behavior: 'deny', message: 'not in this test' })
  }
  await ws.waitForEvent('turn_result', () => true, TURN_MS)
  await ws.waitForEvent('status_changed', (e) => e.status === 'idle' && ws.events().some((x) => x.type === 'turn_result'), TURN_MS)
  ws.close()
  await gw.request('DELETE', `/sessions/${session.id}`)
  return ws.events()
}

describe.skipIf(!real.ok)('differential: the fake Claude CLI against the real one', () => {
  let world: RealClaudeWorld
  let realGw: TestGateway
  let fakeGw: TestGateway
  beforeAll(async () => {
    if (!real.ok) return
    world = await realClaudeWorld('claude-differential')
    const fakeConfig = join(world.configDir, '..', 'fake-claude-config')
    await mkdir(fakeConfig, { recursive: true })
    await writeFile(join(fakeConfig, 'fake-account.json'), JSON.stringify({ apiKeySource: 'ANTHROPIC_API_KEY' }))
    realGw = await startTestGateway({
      profiles: [{ name: 'primary', engine: 'cli_primary', configDir: world.configDir }],
      engines: { cli_primary: createCliPrimaryAdapter({ pathToClaudeCodeExecutable: real.binary, env: world.env }) },
    })
    fakeGw = await startTestGateway({
      profiles: [{ name: 'primary', engine: 'cli_primary', configDir: fakeConfig }],
      engines: { cli_primary: createCliPrimaryAdapter({
        pathToClaudeCodeExecutable: fileURLToPath(new URL('../../fake-engines/claude-cli/main.ts', import.meta.url)),
        executable: process.execPath as 'node', executableArgs: ['--import', fileURLToPath(import.meta.resolve('tsx'))],
      }) },
    })
  })
  afterAll(async () => {
    await realGw?.close()
    await fakeGw?.close()
    await world?.dispose()
  })

  for (const c of CASES) {
    it(`gives the same gateway events: ${c.title}`, async () => {
      const [fromReal, fromFake] = await Promise.all([play(realGw, c.prompt, c.decision), play(fakeGw, c.prompt, c.decision)])
      const normalisedReal = normaliseClaudeEvents(fromReal, realGw.cwdRoot)
      expect(normaliseClaudeEvents(fromFake, fakeGw.cwdRoot)).toEqual(normalisedReal)
      // The comparison is about something: the scenario's own events are there.
      expect(normalisedReal.map((e) => (e as { type: string }).type)).toContain(c.decision ? 'permission_resolved' : 'assistant_message')
    }, TURN_MS * 2)
  }
})
