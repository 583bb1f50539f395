/**
 * The rule behind a respawn (events.12, events.21): no engine failure, at any moment of a respawn,
 * leaves a session `running` without a `turn_result`. After a mid-turn death the next message
 * respawns the engine; the new process is then killed at each moment of its start-up (the fakes'
 * FAKE_ENGINE_DIE_AT knob: before reading input, asked to initialize, initialized, thread resumed,
 * its first turn begun), on every CLI engine. Every combination is run: the space is small enough
 * to enumerate, so nothing is left to sampling. The message that waited for the start ends with an
 * error `turn_result` free of terminal colour codes, the session is `idle`, and the next message works.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { createCliPrimaryAdapter } from '../engines/cli-primary/index.ts'
import { createCliSecondaryAdapter } from '../engines/cli-secondary/index.ts'
import type { StartupMoment } from '../../fake-engines/startup-death.ts'
import { FAKE_CODEX } from './fake-codex.ts'
import { PRIMARY_PROFILE, PROVIDER_PROFILE, startTestGateway, until, type TestGateway } from './harness.ts'

const FAKE_CLI = {
  pathToClaudeCodeExecutable: fileURLToPath(new URL('../../fake-engines/claude-cli/main.ts', import.meta.url)),
  executable: process.execPath,
  executableArgs: ['--import', fileURLToPath(import.meta.resolve('tsx'))],
}

/** The moments each engine's start-up has (the Claude CLI resumes from its argv: no separate resume step). */
const CASES: Array<[profile: 'primary' | 'codex', moment: StartupMoment]> = [
  ...(['start', 'initialize', 'initialized', 'first-turn'] as const).map((m) => ['primary', m] as ['primary', StartupMoment]),
  ...(['start', 'initialize', 'initialized', 'resumed', 'first-turn'] as const).map((m) => ['codex', m] as ['codex', StartupMoment]),
]

let g: TestGateway | undefined
let dir: string | undefined
afterEach(async () => {
  await g?.close()
  g = undefined
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('an engine that dies while it is respawned never leaves the session running (events.12)', () => {
  it.each(CASES)('profile %s, killed at %s: the waiting message gets an error turn_result, the session idles and goes on', async (profile, moment) => {
    dir = await mkdtemp(join(tmpdir(), 'respawn-death-'))
    const dieAt = join(dir, 'die-at')
    const env = { FAKE_ENGINE_DIE_AT: dieAt }
    const respawn = { backoffMs: 10 }
    g = await startTestGateway({
      engines: {
        cli_primary: createCliPrimaryAdapter({ ...FAKE_CLI, env, respawn }),
        cli_secondary: createCliSecondaryAdapter({ ...FAKE_CODEX, env, respawn }),
      },
      profiles: [PROVIDER_PROFILE, PRIMARY_PROFILE, { name: 'codex', engine: 'cli_secondary', codexHome: dir }],
    })
    const session = await g.createSession({ profile, cwd: g.cwdRoot })
    const ws = await g.attach(session.id)
    // A first turn stores the conversation, so the respawn resumes it.
    ws.send({ type: 'user_message', text: 'remember me' })
    const stored = await ws.waitForEvent('turn_result')
    ws.send({ type: 'user_message', text: 'scenario:crash' })
    const crashed = await ws.waitForEvent('turn_result', (e) => e.seq > stored.seq)
    expect(crashed.isError).toBe(true)
    await ws.waitForEvent('status_changed', (e) => e.status === 'idle' && e.seq > crashed.seq)

    await writeFile(dieAt, moment)
    ws.send({ type: 'user_message', text: 'after the crash' })
    const failed = await ws.waitForEvent('turn_result', (e) => e.seq > crashed.seq)
    expect(existsSync(dieAt)).toBe(false) // the respawned process did die at that moment
    expect(failed).toMatchObject({ subtype: 'error_during_execution', isError: true })
    // Terminal colour codes from the engine's stderr never reach a client.
    expect(JSON.stringify(failed.errors)).not.toMatch(/\\u001b|\u001b/)
    await until(async () => (await g!.request('GET', `/sessions/${session.id}`)).body.session.status, (s) => s === 'idle', 'idle after the failed start')
    expect(ws.events().some((e) => e.type === 'session_error')).toBe(false)

    ws.send({ type: 'user_message', text: 'and again' })
    expect(await ws.waitForEvent('turn_result', (e) => e.seq > failed.seq)).toMatchObject({ isError: false })
  }, 30_000)

  it.each(['primary', 'codex'] as const)('profile %s: an interrupt sent while the engine is being respawned is not lost: the waiting turn ends as an interrupt', async (profile) => {
    dir = await mkdtemp(join(tmpdir(), 'respawn-interrupt-'))
    // A long first backoff, so the interrupt surely lands while the respawn waits.
    const respawn = { backoffMs: 1500 }
    g = await startTestGateway({
      engines: { cli_primary: createCliPrimaryAdapter({ ...FAKE_CLI, respawn }), cli_secondary: createCliSecondaryAdapter({ ...FAKE_CODEX, respawn }) },
      profiles: [PROVIDER_PROFILE, PRIMARY_PROFILE, { name: 'codex', engine: 'cli_secondary', codexHome: dir }],
    })
    const session = await g.createSession({ profile, cwd: g.cwdRoot })
    const ws = await g.attach(session.id)
    ws.send({ type: 'user_message', text: 'remember me' })
    const stored = await ws.waitForEvent('turn_result')
    ws.send({ type: 'user_message', text: 'scenario:crash' })
    const crashed = await ws.waitForEvent('turn_result', (e) => e.seq > stored.seq)
    await ws.waitForEvent('status_changed', (e) => e.status === 'idle' && e.seq > crashed.seq)
    ws.send({ type: 'user_message', text: 'scenario:hang' })
    await ws.waitForEvent('status_changed', (e) => e.status === 'running' && e.seq > crashed.seq)
    ws.send({ type: 'interrupt' })
    const ended = await ws.waitForEvent('turn_result', (e) => e.seq > crashed.seq)
    expect({ subtype: ended.subtype, isError: ended.isError, errors: ended.errors }).toEqual({ subtype: 'error_during_execution', isError: true, errors: ['interrupted'] })
    await until(async () => (await g!.request('GET', `/sessions/${session.id}`)).body.session.status, (s) => s === 'idle', 'idle after the interrupt')
  }, 30_000)
})
