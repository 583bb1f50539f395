/**
 * Engine death and dormancy (embedding-rules.14) on the real `codex app-server` (model faked by the loopback Responses API): a SIGKILL
 * of codex mid-turn ends the turn and the next message respawns codex on the same thread; a
 * dormant session (file store, persistLive) comes back in a new gateway, its thread's turns
 * replayed and seq continuing. Skipped only when the pinned package cannot be installed.
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeResponsesServer, type FakeResponsesServer } from '../../fake-engines/model-apis/openai-responses/server.ts'
import { createCliSecondaryAdapter } from '../engines/cli-secondary/index.ts'
import { createFileSessionStore } from '../sessions/stores/file-store.ts'
import { PROVIDER_PROFILE, startTestGateway, until, type TestGateway } from './harness.ts'
import { isolatedDirs } from './real-binaries.ts'
import { codexConfigToml, installRealCodex, PINNED_CODEX } from './real-codex.ts'

const { codexBin, skipReason } = await installRealCodex()
if (skipReason) console.warn(`codex-real-lifecycle: SKIPPED, ${PINNED_CODEX.name}@${PINNED_CODEX.version} is not usable: ${skipReason}`)

const TURN_MS = 60_000

/** The real codex children of this test process (the gateway runs in-process). */
function codexChildren(): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
  return out.split('\n').filter((l) => l.includes(codexBin!) && l.includes('app-server')).map((l) => Number(l.trim().split(/\s+/)[0]))
}

describe.skipIf(skipReason !== undefined)('the real codex: death and dormancy', () => {
  let api: FakeResponsesServer
  let dirs: Awaited<ReturnType<typeof isolatedDirs>>
  let codexHome: string
  let storeDir: string
  const gateways: TestGateway[] = []
  beforeAll(async () => {
    api = await startFakeResponsesServer()
    dirs = await isolatedDirs('codex-lifecycle')
    codexHome = await dirs.extra('codex-home')
    await writeFile(join(codexHome, 'config.toml'), codexConfigToml(api.baseURL))
    storeDir = await mkdtemp(join(tmpdir(), 'codex-dormant-store-'))
  })
  afterAll(async () => {
    for (const g of gateways) await g.close().catch(() => undefined)
    await api?.close()
    await dirs?.dispose()
    if (storeDir) await rm(storeDir, { recursive: true, force: true })
  })

  async function gateway(cwdRoot?: string): Promise<TestGateway> {
    const g = await startTestGateway({
      engines: { cli_secondary: createCliSecondaryAdapter({ codexPath: codexBin!, env: { HOME: dirs.home, TMPDIR: dirs.tmp }, respawn: { backoffMs: 10 } }) },
      profiles: [PROVIDER_PROFILE, { name: 'codex', engine: 'cli_secondary', codexHome }],
      parking: { store: createFileSessionStore({ dir: storeDir }), persistLive: true },
      ...(cwdRoot ? { allowedCwdRoots: [cwdRoot] } : {}),
    })
    gateways.push(g)
    return g
  }

  it('a SIGKILL mid-turn ends the turn; the next message respawns codex on the same thread', async () => {
    const g = await gateway()
    const before = codexChildren()
    const session = await g.createSession({ profile: 'codex', cwd: g.cwdRoot, prompt: 'scenario:hello' })
    const ws = await g.attach(session.id)
    const init = await ws.waitForEvent('system_init', () => true, TURN_MS)
    const first = await ws.waitForEvent('turn_result', () => true, TURN_MS)
    ws.send({ type: 'user_message', text: 'scenario:hang' })
    await until(async () => JSON.stringify(api.requests), (sent) => sent.includes('scenario:hang'), 'the prompt reached the model API')
    const pid = codexChildren().find((p) => !before.includes(p))!
    process.kill(pid, 'SIGKILL')
    const failed = await ws.waitForEvent('turn_result', (e) => e.seq > first.seq, TURN_MS)
    expect(failed).toMatchObject({ isError: true, errors: [expect.stringMatching(/signal SIGKILL/)] })
    ws.send({ type: 'user_message', text: 'scenario:hello' })
    expect(await ws.waitForEvent('turn_result', (e) => e.seq > failed.seq, TURN_MS)).toMatchObject({ isError: false, subtype: 'success' })
    expect(ws.events().filter((e) => e.type === 'system_init').map((e) => e.sdkSessionId)).toEqual([init.sdkSessionId])
    expect(ws.events().some((e) => e.type === 'session_error')).toBe(false)
  }, TURN_MS * 2)

  it('a dormant session comes back in a new gateway with its thread replayed and seq continuing', async () => {
    const first = await gateway()
    const session = await first.createSession({ profile: 'codex', cwd: first.cwdRoot, prompt: 'scenario:hello' })
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
    const replayed = await again.waitForEvent('user_message', (e) => e.replay === true, TURN_MS)
    expect(JSON.stringify(replayed.message.content)).toContain('scenario:hello')
    expect(replayed.seq).toBeGreaterThan(shown)
    expect((await again.waitForEvent('system_init', () => true, TURN_MS)).sdkSessionId).toBe(init.sdkSessionId)
    again.send({ type: 'user_message', text: 'scenario:hello' })
    expect(await again.waitForEvent('turn_result', () => true, TURN_MS)).toMatchObject({ isError: false })
  }, TURN_MS * 2)
})
