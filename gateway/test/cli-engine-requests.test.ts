/**
 * What the CLIs do beyond a plain turn, on both CLI engines, each with the
 * fake CLI playing its real wire protocol: a question (the Claude CLI's AskUserQuestion, codex's
 * `item/tool/requestUserInput`) and an MCP elicitation reach the client as `permission_requested`
 * and come back through `permission_decision`; a sub-agent's messages reach it nested under the
 * call that spawned it.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createCliPrimaryAdapter } from '../engines/cli-primary/index.ts'
import { createCliSecondaryAdapter } from '../engines/cli-secondary/index.ts'
import type { ProfileConfig } from '../protocol/index.ts'
import { FAKE_CODEX } from './fake-codex.ts'
import { PROVIDER_PROFILE, startTestGateway, type TestGateway } from './harness.ts'
import { FAKE_CLAUDE } from './fake-claude.ts'

const FAKE_CLI = FAKE_CLAUDE

const gateways: TestGateway[] = []
afterEach(async () => {
  for (const g of gateways.splice(0)) await g.close()
})

async function start(): Promise<TestGateway> {
  const codexHome = await mkdtemp(join(tmpdir(), 'codex-home-'))
  const profiles: ProfileConfig[] = [PROVIDER_PROFILE, { name: 'primary', engine: 'cli_primary' }, { name: 'codex', engine: 'cli_secondary', codexHome }]
  const g = await startTestGateway({ engines: { cli_primary: createCliPrimaryAdapter(FAKE_CLI), cli_secondary: createCliSecondaryAdapter(FAKE_CODEX) }, profiles })
  gateways.push(g)
  return g
}

async function session(g: TestGateway, profile: string, body: Record<string, unknown> = {}) {
  const created = await g.createSession({ profile, cwd: g.cwdRoot, ...body })
  return g.attach(created.id)
}

// The fake CLIs word their tool results after their engine's answer shapes.
const ANSWERED = {
  primary: (label: string) => `Answer: User answered: {"Which colour?":"${label}"}`,
  codex: (label: string) => `Answer: User answered: {"q1":{"answers":["${label}"]}}`,
}

describe.each(['primary', 'codex'] as const)('CLI engine requests and sub-agents on %s', (profile) => {
  it('a question is an AskUserQuestion permission request; the chosen label reaches the engine', async () => {
    const g = await start()
    const ws = await session(g, profile)
    ws.send({ type: 'user_message', text: 'scenario:question' })
    const asked = await ws.waitForEvent('permission_requested')
    expect(asked.request).toMatchObject({ toolName: 'AskUserQuestion', input: { questions: [{ question: 'Which colour?', options: [{ label: 'red' }, { label: 'blue' }] }] } })
    ws.send({ type: 'permission_decision', requestId: asked.request.requestId, behavior: 'allow', updatedInput: { ...asked.request.input, answers: { 'Which colour?': 'blue' } } })
    expect(await ws.waitForEvent('permission_resolved')).toMatchObject({ requestId: asked.request.requestId, behavior: 'allow', resolvedBy: 'client' })
    expect((await ws.waitForEvent('turn_result')).result).toBe(ANSWERED[profile]('blue'))
  })

  it('questionBehavior auto settles a question by policy with the first option, still shown in the transcript', async () => {
    const g = await start()
    const ws = await session(g, profile, { questionBehavior: 'auto' })
    ws.send({ type: 'user_message', text: 'scenario:question' })
    expect((await ws.waitForEvent('permission_requested')).request.toolName).toBe('AskUserQuestion')
    expect(await ws.waitForEvent('permission_resolved')).toMatchObject({ behavior: 'allow', resolvedBy: 'policy' })
    expect((await ws.waitForEvent('turn_result')).result).toBe(ANSWERED[profile]('red'))
  })

  it('an MCP elicitation is a permission request named for its server; allow sends the edited input as content, deny declines', async () => {
    const g = await start()
    const ws = await session(g, profile)
    ws.send({ type: 'user_message', text: 'scenario:elicitation' })
    const asked = await ws.waitForEvent('permission_requested')
    expect(asked.request).toMatchObject({ toolName: 'mcp__tickets__elicitation', title: 'Which project should the ticket go to?', input: { serverName: 'tickets', requestedSchema: { required: ['project'] } } })
    ws.send({ type: 'permission_decision', requestId: asked.request.requestId, behavior: 'allow', updatedInput: { project: 'apollo' } })
    expect((await ws.waitForEvent('turn_result')).result).toBe('Elicited: Elicitation accept: {"project":"apollo"}')

    ws.send({ type: 'user_message', text: 'scenario:elicitation' })
    const second = await ws.waitForEvent('permission_requested', (e) => e.request.requestId !== asked.request.requestId)
    ws.send({ type: 'permission_decision', requestId: second.request.requestId, behavior: 'deny', message: 'not now' })
    expect(await ws.waitForEvent('permission_resolved', (e) => e.requestId === second.request.requestId)).toMatchObject({ behavior: 'deny', message: 'not now' })
    expect((await ws.waitForEvent('turn_result', (e) => e.seq > second.seq)).result).toBe('Elicited: Elicitation decline: null')
  })

  it('a sub-agent\'s messages carry parentToolUseId = the spawning call; its own turn end does not end the session\'s turn', async () => {
    const g = await start()
    const ws = await session(g, profile)
    ws.send({ type: 'user_message', text: 'scenario:subagent' })
    const result = await ws.waitForEvent('turn_result')
    expect(result.result).toBe('The sub-agent said: There are 3 files.')
    const events = ws.events()
    const spawn = events.flatMap((e) => (e.type === 'assistant_message' && e.parentToolUseId === null ? e.message.content : [])).find((b: { type: string }) => b.type === 'tool_use')
    expect(spawn).toBeDefined()
    const nested = events.filter((e) => e.type === 'assistant_message' && e.parentToolUseId === spawn.id)
    expect(nested.flatMap((e) => e.message.content).filter((b: { type: string }) => b.type === 'text').map((b: { text: string }) => b.text)).toEqual(['There are 3 files.'])
    expect(events.filter((e) => e.type === 'turn_result')).toHaveLength(1)
  })
})
