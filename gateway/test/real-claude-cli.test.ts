/**
 * Opt-in smoke against the real Claude Code CLI (issue 4, item 7): the same adapter, only the
 * executable differs. Runs when GATEWAY_REAL_CLAUDE_CLI names the real `claude` binary and that
 * binary is logged in (it spends a few tokens); skipped otherwise, since CI has neither.
 */
import { describe, expect, it } from 'vitest'
import { createCliPrimaryAdapter } from '../engines/cli-primary/index.ts'
import { startTestGateway } from './harness.ts'

const REAL_CLI = process.env.GATEWAY_REAL_CLAUDE_CLI

describe.skipIf(!REAL_CLI)('the real Claude Code CLI (opt-in: GATEWAY_REAL_CLAUDE_CLI)', () => {
  it('runs one turn and one permission through the same adapter', async () => {
    const g = await startTestGateway({ engines: { cli_primary: createCliPrimaryAdapter({ pathToClaudeCodeExecutable: REAL_CLI! }) } })
    try {
      const session = await g.createSession({ profile: 'primary', cwd: g.cwdRoot })
      const ws = await g.attach(session.id)
      ws.send({ type: 'user_message', text: 'Reply with exactly the word: pong' })
      expect((await ws.waitForEvent('turn_result', () => true, 120_000)).isError).toBe(false)
      ws.send({ type: 'user_message', text: 'Use the Bash tool to run exactly `echo smoke-test` and tell me its output.' })
      const asked = await ws.waitForEvent('permission_requested', () => true, 120_000)
      ws.send({ type: 'permission_decision', requestId: asked.request.requestId, behavior: 'allow' })
      const result = await ws.waitForEvent('turn_result', (e) => e.numTurns >= 2, 120_000)
      expect(result.isError).toBe(false)
      expect(JSON.stringify(ws.events())).toContain('smoke-test')
    } finally {
      await g.close()
    }
  }, 300_000)
})
