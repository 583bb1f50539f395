/**
 * An interrupt that reaches the Claude CLI while the message it interrupts is still queued there
 * (commands.3, commands.10). The real CLI reads control requests ahead of a queued message it has
 * not started; the fake CLI plays that window with FAKE_CLAUDE_PREWAIT_MS. A plain interrupt then
 * stops nothing and the message runs later, as a turn nobody waits for (on the real CLI the next
 * message was never answered). The runner withdraws the queued message instead (`cancel_queued`):
 * the turn ends interrupted, the message never runs, and the next one is answered.
 */
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { createCliPrimaryAdapter } from '../engines/cli-primary/index.ts'
import { PRIMARY_PROFILE, PROVIDER_PROFILE, startTestGateway, type TestGateway } from './harness.ts'

const FAKE_CLI = {
  pathToClaudeCodeExecutable: fileURLToPath(new URL('../../fake-engines/claude-cli/main.ts', import.meta.url)),
  executable: process.execPath,
  executableArgs: ['--import', fileURLToPath(import.meta.resolve('tsx'))],
}

let g: TestGateway | undefined
afterEach(async () => {
  await g?.close()
  g = undefined
})

describe('an interrupt before the Claude CLI starts the turn', () => {
  it('withdraws the queued message: the turn ends interrupted, the message never runs, the next one is answered', async () => {
    g = await startTestGateway({
      engines: { cli_primary: createCliPrimaryAdapter({ ...FAKE_CLI, env: { FAKE_CLAUDE_PREWAIT_MS: '300' } }) },
      profiles: [PROVIDER_PROFILE, PRIMARY_PROFILE],
    })
    const session = await g.createSession({ profile: 'primary', cwd: g.cwdRoot })
    const ws = await g.attach(session.id)
    ws.send({ type: 'user_message', text: 'a first turn' })
    const first = await ws.waitForEvent('turn_result', (e) => e.result === 'echo: a first turn')

    ws.send({ type: 'user_message', text: 'withdrawn before it ran' })
    await ws.waitForEvent('status_changed', (e) => e.status === 'running' && e.seq > first.seq)
    ws.send({ type: 'interrupt' })
    const ended = await ws.waitForEvent('turn_result', (e) => e.seq > first.seq)
    expect(ended).toMatchObject({ isError: true, subtype: 'error_during_execution' })

    ws.send({ type: 'user_message', text: 'answered after the interrupt' })
    const next = await ws.waitForEvent('turn_result', (e) => e.seq > ended.seq)
    expect(next).toMatchObject({ isError: false, result: 'echo: answered after the interrupt' })
    const results = ws.events().filter((e) => e.type === 'turn_result').map((e) => e.result ?? e.errors)
    expect(results).toHaveLength(3)
    expect(JSON.stringify(ws.events())).not.toContain('echo: withdrawn before it ran')
  })
})
