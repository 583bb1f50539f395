/**
 * Every case of the kit that needs a cli_primary or cli_secondary profile,
 * run against `gateway serve` (the operator command) whose profiles run the REAL Claude Code CLI
 * and the REAL codex app-server, pointed at the kit's fake model APIs, with a manifest saying so
 * (`realEngines`; the kit starts the fakes at the addresses it names). 0 fail, and each
 * `unsupported` names its reason: the cases that need a scripted fault say which one. Skipped only
 * when a pinned binary cannot be installed (reason printed); the binaries are cached outside the
 * project's dependencies (real-binaries.ts), so a machine installs them once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkManifest } from '../../conformance/manifest.ts'
import { preflight } from '../../conformance/preflight.ts'
import { ALL_CASES } from '../../conformance/cases/index.ts'
import { runSuite } from '../../conformance/run-suite.ts'
import { prepareModelApis, type ModelApis } from '../../conformance/target/model-apis.ts'
import type { Report } from '../../conformance/types.ts'
import { findNpmCodex } from '../engines/cli-secondary/binary.ts'
import { installPinned } from './real-binaries.ts'
import { installRealClaude, REAL_CLAUDE_PACKAGE } from './real-claude.ts'
import { startRealEnginesTarget, type RealEnginesTarget } from './real-engines-target.ts'

const CODEX = { name: '@openai/codex', version: '0.169.0' }
const [claude, codexInstall] = await Promise.all([installRealClaude(), installPinned(CODEX)])
const codex = codexInstall.ok ? findNpmCodex(codexInstall.dir) : undefined
const skipReason = !claude.ok ? `${REAL_CLAUDE_PACKAGE.name}@${REAL_CLAUDE_PACKAGE.version}: ${claude.reason}`
  : !codexInstall.ok ? `${CODEX.name}@${CODEX.version}: ${codexInstall.reason}`
    : !codex ? `no native codex binary for ${process.platform}-${process.arch} in ${codexInstall.dir}` : undefined
if (skipReason) console.warn(`SKIPPED the kit on real engines: ${skipReason}`)

/** The cases this test is about: every one requiring a cli_primary or cli_secondary profile. */
const CASES = ALL_CASES.filter((c) => c.requires.includes('cli_primary') || c.requires.includes('cli_secondary')).map((c) => c.id)

/** The cases that need what only the kit's scripted engines play, and the words their reason must carry. */
const SCRIPTED_ONLY: Record<string, RegExp> = {
  'cli-primary-engine-death': /scripted engine, for its process dying mid-turn.*realEngines\.cli_primary runs a real CLI/,
  'cli-primary-rate-limit': /scripted engine, for a rate-limit reading.*realEngines\.cli_primary/,
  'cli-primary-require-api-key': /feature requireApiKey/, // not configured here; on a real CLI it would also need the scripted login
  'cli-secondary-engine-death': /scripted engine, for its process dying mid-turn.*realEngines\.cli_secondary runs a real CLI/,
  'cli-secondary-refused-turn-ends-with-turn-result': /scripted engine, for refusing to start a turn.*realEngines\.cli_secondary runs a real CLI/,
  'cli-primary-resume-after-crash': /scripted engine, for its process dying mid-turn.*realEngines\.cli_primary runs a real CLI/,
  'cli-secondary-resume-after-crash': /scripted engine, for its process dying mid-turn.*realEngines\.cli_secondary runs a real CLI/,
  'cli-primary-subagent-events': /scripted engine, for a sub-agent on cue.*realEngines\.cli_primary runs a real CLI/,
  'cli-secondary-subagent-events': /scripted engine, for a sub-agent on cue.*realEngines\.cli_secondary runs a real CLI/,
  'cli-secondary-question': /scripted engine, for a question to its user on cue.*realEngines\.cli_secondary runs a real CLI/,
}

/**
 * Defects of the gateway the kit finds only on a real engine, each with what the client sees;
 * remove an entry once it is fixed (the case must then pass).
 */
const KNOWN_REAL_ENGINE_DEFECTS: Record<string, string> = {
  // An interrupt sent before the real CLI starts the turn now withdraws the queued message
  // (cancel_queued, unstarted-turn.ts): the case passed 7 runs of 7 here, on a quiet and a loaded
  // machine. Once, in a fresh-clone CI run under load, the CLI still ran the message after the
  // turn had ended as interrupted, and the next message waited behind it (scenario:hang).
  'commands-in-state-cli-primary-running': 'commands.3, commands.10: rarely, an interrupt sent before the real CLI starts the turn of the message just sent leaves that message to run later',
}

describe.skipIf(skipReason !== undefined)('the kit\'s cli_primary and cli_secondary cases against gateway serve on the real Claude Code CLI and real codex', () => {
  let target: RealEnginesTarget
  let apis: ModelApis
  let problems: string[]
  let report: Report
  let ms: number
  beforeAll(async () => {
    const started = Date.now()
    target = await startRealEnginesTarget({ claude: (claude as { binary: string }).binary, codex: codex! })
    const manifest = checkManifest(target.manifest, 'real-engines manifest')
    apis = await prepareModelApis(manifest)
    problems = [...apis.problems, ...(await preflight(manifest))]
    // Two at a time: each case starts a CLI process, and the machine may have two cores.
    report = await runSuite({ manifest, seed: 2020, filters: CASES, concurrency: 2 })
    ms = Date.now() - started
    const table = report.cases.map((c) => `  ${c.outcome.padEnd(11)} ${c.id.padEnd(40)} ${(c.durationMs / 1000).toFixed(1)} s${c.outcome === 'pass' ? '' : `  ${c.message ?? ''}`}`)
    console.info(`the kit on real engines: ${report.cases.length} cases in ${(ms / 1000).toFixed(1)} s (target start included); model requests served: ${JSON.stringify(apis.served())}\n${table.join('\n')}`)
  }, 600_000)
  afterAll(async () => {
    await apis?.close()
    await target?.close()
  })

  it('the kit starts the fake model APIs the manifest names, and the preflight passes', () => {
    expect(problems).toEqual([])
    expect(apis.started).toEqual([
      expect.stringMatching(/^cli_primary: the fake Anthropic Messages API .* started by the kit at http:\/\/127\.0\.0\.1:\d+$/),
      expect.stringMatching(/^cli_secondary: the fake OpenAI Responses API .* started by the kit at http:\/\/127\.0\.0\.1:\d+$/),
    ])
  })

  it('the CLIs were real and reached the fake model APIs (the cases did not pass on fakes)', () => {
    const served = apis.served()
    expect(served.cli_primary).toBeGreaterThan(10)
    expect(served.cli_secondary).toBeGreaterThan(5)
  })

  it('fails none but the known defects, and every case it does not run names why', () => {
    expect(report.cases.map((c) => c.id).sort()).toEqual([...CASES].sort())
    expect(report.cases.filter((c) => ['fail', 'error', 'flaky'].includes(c.outcome) && !(c.id in KNOWN_REAL_ENGINE_DEFECTS)).map((c) => `${c.id}: ${c.outcome} ${c.message ?? ''}`)).toEqual([])
    const unsupported = Object.fromEntries(report.cases.filter((c) => c.outcome === 'unsupported').map((c) => [c.id, c.message ?? '']))
    for (const [id, reason] of Object.entries(SCRIPTED_ONLY)) expect(unsupported[id], id).toMatch(reason)
    // Every other case this target does not run needs a feature its manifest does not offer (a
    // provider profile, a queue, a profile store): never a real engine blamed for what it cannot do.
    const offered = new Set(checkManifest(target.manifest, 'real-engines manifest').features)
    const others = Object.entries(unsupported).filter(([id]) => !(id in SCRIPTED_ONLY))
    for (const [id, reason] of others) {
      const feature = /^needs feature (\w+)/.exec(reason)?.[1]
      expect(feature !== undefined && !offered.has(feature as never), `${id}: ${reason}`).toBe(true)
    }
  })
})
