/**
 * One scenario, one answer on every engine's fake: adjacent text steps are one answer written in
 * several deltas, so `scenario:hello` ("Hello, " then "world!") is one assistant message
 * "Hello, world!" and the turn's result is that text, on the provider fake, the fake Claude CLI
 * and the fake codex app-server alike (as the fake model APIs behind the real CLIs play it).
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCliPrimaryAdapter } from '../engines/cli-primary/index.ts'
import { createCliSecondaryAdapter } from '../engines/cli-secondary/index.ts'
import { FAKE_CLAUDE } from './fake-claude.ts'
import { FAKE_CODEX } from './fake-codex.ts'
import { PRIMARY_PROFILE, PROVIDER_PROFILE, startTestGateway, type TestGateway } from './harness.ts'

let gw: TestGateway
beforeAll(async () => {
  const codexHome = await mkdtemp(join(tmpdir(), 'codex-home-'))
  gw = await startTestGateway({
    engines: { cli_primary: createCliPrimaryAdapter(FAKE_CLAUDE), cli_secondary: createCliSecondaryAdapter(FAKE_CODEX) },
    profiles: [PROVIDER_PROFILE, PRIMARY_PROFILE, { name: 'codex', engine: 'cli_secondary', codexHome }],
  })
})
afterAll(async () => {
  await gw?.close()
})

describe('the fake engines answer a scenario alike', { timeout: 60_000 }, () => {
  it.each([PROVIDER_PROFILE.name, PRIMARY_PROFILE.name, 'codex'])('%s: scenario:hello is one assistant message "Hello, world!", streamed in two deltas, and the result', async (profile) => {
    const session = await gw.createSession({ profile, cwd: gw.cwdRoot, prompt: 'scenario:hello', includePartialMessages: true })
    const ws = await gw.attach(session.id)
    const result = await ws.waitForEvent('turn_result')
    const messages = ws.events().filter((e) => e.type === 'assistant_message').map((e) => e.message.content)
    expect(messages).toEqual([[expect.objectContaining({ type: 'text', text: 'Hello, world!' })]])
    const deltas = ws.events().filter((e) => e.type === 'stream_delta' && e.event.type === 'content_block_delta').map((e) => e.event.delta.text)
    expect(deltas).toEqual(['Hello, ', 'world!'])
    expect(result).toMatchObject({ isError: false, result: 'Hello, world!' })
    ws.close()
  })
})
