/**
 * An interrupted turn ends with one `turn_result` shape on every engine
 * (subtype `error_during_execution`, `isError: true`, `errors: ["interrupted"]`), whatever the
 * engine itself reported (the Claude CLI says "Request was aborted." or a diagnostic), and the
 * Claude CLI's "[Request interrupted by user]" message is marked `synthetic`, live and replayed.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { createCliPrimaryAdapter } from '../engines/cli-primary/index.ts'
import { createCliSecondaryAdapter } from '../engines/cli-secondary/index.ts'
import { FAKE_CODEX } from './fake-codex.ts'
import { PRIMARY_PROFILE, PROVIDER_PROFILE, startTestGateway, type TestGateway } from './harness.ts'

const FAKE_CLI = {
  pathToClaudeCodeExecutable: fileURLToPath(new URL('../../fake-engines/claude-cli/main.ts', import.meta.url)),
  executable: process.execPath,
  executableArgs: ['--import', fileURLToPath(import.meta.resolve('tsx'))],
}

let g: TestGateway | undefined
let codexHome: string | undefined
afterEach(async () => {
  await g?.close()
  g = undefined
  if (codexHome) await rm(codexHome, { recursive: true, force: true })
})

describe('one interrupted turn_result on every engine', () => {
  it.each(['default', 'primary', 'codex'])('profile %s: an interrupt mid-turn ends it with errors ["interrupted"]', async (profile) => {
    codexHome = await mkdtemp(join(tmpdir(), 'codex-home-'))
    g = await startTestGateway({
      engines: { cli_primary: createCliPrimaryAdapter(FAKE_CLI), cli_secondary: createCliSecondaryAdapter(FAKE_CODEX) },
      profiles: [PROVIDER_PROFILE, PRIMARY_PROFILE, { name: 'codex', engine: 'cli_secondary', codexHome }],
    })
    const session = await g.createSession({ profile, cwd: g.cwdRoot })
    const ws = await g.attach(session.id)
    await ws.waitForEvent('status_changed', (e) => e.status === 'idle')
    ws.send({ type: 'user_message', text: 'scenario:hang' })
    await ws.waitForEvent('status_changed', (e) => e.status === 'running')
    ws.send({ type: 'interrupt' })
    const result = await ws.waitForEvent('turn_result')
    expect({ subtype: result.subtype, isError: result.isError, errors: result.errors }).toEqual({ subtype: 'error_during_execution', isError: true, errors: ['interrupted'] })
    expect(result.result).toBeUndefined()
    // Every user message after the client's own is the engine's, never typed by anyone.
    const typed = ws.events().filter((e) => e.type === 'user_message' && !e.synthetic)
    expect(typed.map((e) => e.message.content)).toEqual(['scenario:hang'])
    if (profile === 'primary') {
      const marker = ws.events().find((e) => e.type === 'user_message' && JSON.stringify(e.message.content).includes('[Request interrupted by user'))
      expect(marker?.synthetic).toBe(true)
    }
    // The session goes on: the next turn succeeds.
    ws.send({ type: 'user_message', text: 'and now?' })
    expect(await ws.waitForEvent('turn_result', (e) => e.seq > result.seq)).toMatchObject({ subtype: 'success', isError: false })
  }, 30_000)

  // A deny with `interrupt: true` is an interrupt too: the same shape, not the engine's own errors
  // (the Claude CLI reports "Request was aborted." or a diagnostic; codex a declined turn).
  it.each(['primary', 'codex'])('profile %s: a permission denied with interrupt: true ends the turn with errors ["interrupted"]', async (profile) => {
    codexHome = await mkdtemp(join(tmpdir(), 'codex-home-'))
    g = await startTestGateway({
      engines: { cli_primary: createCliPrimaryAdapter(FAKE_CLI), cli_secondary: createCliSecondaryAdapter(FAKE_CODEX) },
      profiles: [PROVIDER_PROFILE, PRIMARY_PROFILE, { name: 'codex', engine: 'cli_secondary', codexHome }],
    })
    const session = await g.createSession({ profile, cwd: g.cwdRoot })
    const ws = await g.attach(session.id)
    await ws.waitForEvent('status_changed', (e) => e.status === 'idle')
    ws.send({ type: 'user_message', text: 'scenario:permission' })
    const asked = await ws.waitForEvent('permission_requested')
    ws.send({ type: 'permission_decision', requestId: asked.request.requestId, behavior: 'deny', message: 'stop here', interrupt: true })
    const result = await ws.waitForEvent('turn_result')
    expect({ subtype: result.subtype, isError: result.isError, errors: result.errors }).toEqual({ subtype: 'error_during_execution', isError: true, errors: ['interrupted'] })
    await ws.waitForEvent('status_changed', (e) => e.status === 'idle' && e.seq > result.seq)
    ws.send({ type: 'user_message', text: 'and now?' })
    expect(await ws.waitForEvent('turn_result', (e) => e.seq > result.seq)).toMatchObject({ subtype: 'success', isError: false })
  }, 30_000)
})
