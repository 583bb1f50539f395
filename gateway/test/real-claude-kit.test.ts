/**
 * The conformance kit's cli_primary cases on the self target whose cli_primary profiles
 * run the REAL Claude Code CLI (against the fake Messages API) instead of our fake CLI. Skipped
 * only when the CLI cannot be installed (reason printed).
 *
 * Three cli_primary cases are left out because they script behaviour only the fake CLI can play,
 * not because the gateway differs (a manifest with `realEngines` makes them `unsupported` with
 * that reason: real-engines-kit.test.ts):
 * - cli-primary-engine-death: the `crash` step makes the fake CLI exit 137; a Messages API cannot
 *   kill the real CLI.
 * - cli-primary-rate-limit: the fake CLI emits `rate_limit_event` for the `rate_limit` step; the
 *   fake Messages API sends no rate-limit headers yet.
 * - cli-primary-require-api-key: the `subscription` profile's oauth login is the fake CLI's
 *   `fake-account.json`; the real CLI reports ANTHROPIC_API_KEY, which wins for every profile
 *   (authentication.8).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runSuite } from '../../conformance/run-suite.ts'
import { startSelfTarget, type SelfTarget } from '../../conformance/target/self.ts'
import type { Report } from '../../conformance/types.ts'
import { installRealClaude, REAL_CLAUDE_PACKAGE } from './real-claude.ts'

const real = await installRealClaude()
if (!real.ok) console.warn(`SKIPPED the kit on the real Claude Code CLI: ${REAL_CLAUDE_PACKAGE.name}@${REAL_CLAUDE_PACKAGE.version} could not be installed: ${real.reason}`)

const CASES = [
  'cli-primary-turn-events', 'cli-primary-permission-flow', 'cli-primary-approval-timeout', 'cli-primary-controls', 'cli-primary-produced-files', 'cli-primary-mcp-servers',
  'cli-primary-sdk-sessions-and-resume', 'cli-primary-clear-context', 'session-project-and-icon',
]

describe.skipIf(!real.ok)('the kit\'s cli_primary cases against the real Claude Code CLI', () => {
  let target: SelfTarget
  let report: Report
  beforeAll(async () => {
    if (!real.ok) return
    target = await startSelfTarget({ claudeExecutable: real.binary })
    // A real CLI is far slower than the fake on a loaded machine (one npm test run saw a Bash
    // permission ask take over 15 s): each wait may take 45 s, as a manifest's timers.turnMs would allow.
    report = await runSuite({ manifest: target.manifest, seed: 1234, receiver: target.receiver, filters: CASES, timeoutMs: 45_000 })
  }, 180_000)
  afterAll(async () => { await target?.close() })

  it('passes every one of them', () => {
    expect(report.cases.map((c) => c.id).sort()).toEqual([...CASES].sort())
    expect(report.cases.filter((c) => c.outcome !== 'pass').map((c) => `${c.id}: ${c.outcome} ${c.message ?? ''}`)).toEqual([])
  })
})
