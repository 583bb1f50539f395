/**
 * Interrupt, death and dormancy (embedding-rules.14) on the real Claude Code CLI (against the fake Messages API): an interrupt ends the turn
 * with the one interrupted `turn_result` every engine gives (the CLI's own `errors` are its
 * diagnostics) and its "[Request interrupted by user]" message is `synthetic`; a SIGKILL of the
 * CLI mid-turn ends the turn and the next message resumes the same conversation; a dormant record
 * (file store, persistLive) brings the session back in a new gateway with its transcript replayed.
 * Skipped only when the real CLI cannot be installed (reason printed).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCliPrimaryAdapter } from '../engines/cli-primary/index.ts'
import { createFileSessionStore } from '../sessions/stores/file-store.ts'
import { startTestGateway, type TestGateway } from './harness.ts'
import { installRealClaude, REAL_CLAUDE_PACKAGE, realClaudeWorld, type RealClaudeWorld } from './real-claude.ts'

const real = await installRealClaude()
if (!real.ok) console.warn(`SKIPPED the real-CLI lifecycle test: ${REAL_CLAUDE_PACKAGE.name}@${REAL_CLAUDE_PACKAGE.version} could not be installed: ${real.reason}`)

const TURN_MS = 60_000

describe.skipIf(!real.ok)('the real Claude CLI: interrupt, death and dormancy', () => {
  let world: RealClaudeWorld
  let storeDir: string
  const pids: number[] = []
  const gateways: TestGateway[] = []
  beforeAll(async () => {
    world = await realClaudeWorld('claude-lifecycle')
    storeDir = await mkdtemp(join(tmpdir(), 'claude-dormant-store-'))
  })
  afterAll(async () => {
    for (const g of gateways) await g.close().catch(() => undefined)
    await world?.dispose()
    if (storeDir) await rm(storeDir, { recursive: true, force: true })
  })

  async function gateway(cwdRoot?: string): Promise<TestGateway> {
    if (!real.ok) throw new Error('unreachable')
    const g = await startTestGateway({
      profiles: [{ name: 'primary', engine: 'cli_primary', configDir: world.configDir }],
      engines: { cli_primary: createCliPrimaryAdapter({
        pathToClaudeCodeExecutable: real.binary, env: world.env, respawn: { backoffMs: 10 },
        onProcess: (e) => { if (e.type === 'spawn' && e.pid) pids.push(e.pid) },
      }) },
      parking: { store: createFileSessionStore({ dir: storeDir }), persistLive: true },
      ...(cwdRoot ? { allowedCwdRoots: [cwdRoot] } : {}),
    })
    gateways.push(g)
    return g
  }

  it('an interrupt gives errors ["interrupted"] and a synthetic interrupt message', async () => {
    const g = await gateway()
    const session = await g.createSession({ profile: 'primary', cwd: g.cwdRoot })
    const ws = await g.attach(session.id)
    ws.send({ type: 'user_message', text: 'scenario:hang' })
    await ws.waitForEvent('system_init', () => true, TURN_MS)
    ws.send({ type: 'interrupt' })
    const result = await ws.waitForEvent('turn_result', () => true, TURN_MS)
    expect({ subtype: result.subtype, isError: result.isError, errors: result.errors }).toEqual({ subtype: 'error_during_execution', isError: true, errors: ['interrupted'] })
    const typed = ws.events().filter((e) => e.type === 'user_message' && !e.synthetic)
    expect(typed.map((e) => e.message.content)).toEqual(['scenario:hang'])
  }, TURN_MS * 2)

  it('a SIGKILL mid-turn ends the turn; the next message resumes the same conversation', async () => {
    const g = await gateway()
    // A first turn stores the conversation: the CLI keeps none of one killed in its first turn.
    const session = await g.createSession({ profile: 'primary', cwd: g.cwdRoot, prompt: 'scenario:hello' })
    const ws = await g.attach(session.id)
    const first = await ws.waitForEvent('turn_result', () => true, TURN_MS)
    ws.send({ type: 'user_message', text: 'scenario:hang' })
    const init = await ws.waitForEvent('system_init', (e) => e.seq > first.seq, TURN_MS)
    process.kill(pids.at(-1)!, 'SIGKILL')
    const failed = await ws.waitForEvent('turn_result', (e) => e.seq > init.seq, TURN_MS)
    expect(failed.isError).toBe(true)
    ws.send({ type: 'user_message', text: 'scenario:hello' })
    const next = await ws.waitForEvent('system_init', (e) => e.seq > failed.seq, TURN_MS)
    expect(next.sdkSessionId).toBe(init.sdkSessionId)
    expect(await ws.waitForEvent('turn_result', (e) => e.seq > failed.seq, TURN_MS)).toMatchObject({ isError: false })
    expect(ws.events().some((e) => e.type === 'session_error')).toBe(false)
  }, TURN_MS * 2)

  it('a SIGKILL in the first turn, which the CLI never stored, starts a new conversation on the next message', async () => {
    const g = await gateway()
    const session = await g.createSession({ profile: 'primary', cwd: g.cwdRoot })
    const ws = await g.attach(session.id)
    ws.send({ type: 'user_message', text: 'scenario:hang' })
    const init = await ws.waitForEvent('system_init', () => true, TURN_MS)
    process.kill(pids.at(-1)!, 'SIGKILL')
    const failed = await ws.waitForEvent('turn_result', () => true, TURN_MS)
    ws.send({ type: 'user_message', text: 'scenario:hello' })
    const next = await ws.waitForEvent('system_init', (e) => e.seq > failed.seq, TURN_MS)
    expect(next.sdkSessionId).not.toBe(init.sdkSessionId)
    expect(await ws.waitForEvent('turn_result', (e) => e.seq > failed.seq, TURN_MS)).toMatchObject({ isError: false })
  }, TURN_MS * 2)

  it('a dormant session comes back in a new gateway with its transcript replayed and seq continuing', async () => {
    const first = await gateway()
    const session = await first.createSession({ profile: 'primary', cwd: first.cwdRoot, prompt: 'scenario:hello' })
    const ws = await first.attach(session.id)
    const init = await ws.waitForEvent('system_init', () => true, TURN_MS)
    await ws.waitForEvent('turn_result', () => true, TURN_MS)
    await ws.waitForEvent('status_changed', (e) => e.status === 'idle' && ws.events().some((x) => x.type === 'turn_result'), TURN_MS)
    const shown = Math.max(...ws.events().map((e) => e.seq))
    ws.close()
    await first.close()

    const second = await gateway(first.cwdRoot)
    expect((await second.request('GET', `/sessions/${session.id}`)).body.session).toMatchObject({ status: 'idle' })
    const again = await second.attach(session.id)
    const replayed = await again.waitForEvent('user_message', (e) => e.replay === true && JSON.stringify(e.message.content).includes('scenario:hello'), TURN_MS)
    expect(replayed.seq).toBeGreaterThan(shown)
    await again.waitForEvent('assistant_message', (e) => e.replay === true, TURN_MS)
    again.send({ type: 'user_message', text: 'scenario:hello' })
    const next = await again.waitForEvent('system_init', () => true, TURN_MS)
    expect(next.sdkSessionId).toBe(init.sdkSessionId)
    expect(await again.waitForEvent('turn_result', () => true, TURN_MS)).toMatchObject({ isError: false })
  }, TURN_MS * 2)
})
