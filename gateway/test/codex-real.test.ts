/**
 * The cli_secondary adapter against the real `codex app-server` 0.169.0, with only the model
 * faked (a loopback OpenAI Responses API, fake-engines/model-apis/openai-responses), and the same
 * scenarios against our fake app-server: the gateway events must be the same (differential.ts).
 * This is what keeps the fake honest when codex changes. Skipped only when the pinned package
 * cannot be installed, with the reason printed.
 */
import { writeFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeResponsesServer, type FakeResponsesServer } from '../../fake-engines/model-apis/openai-responses/server.ts'
import { createCliSecondaryAdapter, type CliSecondaryOptions } from '../engines/cli-secondary/index.ts'
import { normaliseEvents, type GatewayEvent } from './differential.ts'
import { PROVIDER_PROFILE, startTestGateway, until, type TestGateway, type TestSocket } from './harness.ts'
import { isolatedDirs } from './real-binaries.ts'
import { codexConfigToml, installRealCodex, PINNED_CODEX } from './real-codex.ts'
import { FAKE_CODEX } from './fake-codex.ts'

const PINNED = PINNED_CODEX
const { installed, codexBin, skipReason } = await installRealCodex()
if (skipReason) console.warn(`codex-real: SKIPPED, ${PINNED.name}@${PINNED.version} is not usable: ${skipReason}`)
else if (installed.ok) console.info(`codex-real: ${PINNED.name}@${PINNED.version} ${installed.cached ? 'cached' : 'installed'} (install ${installed.installMs} ms, ${(installed.sizeBytes / 1e6).toFixed(1)} MB)`)

const configToml = codexConfigToml

interface Engine {
  g: TestGateway
  paths: Record<string, string>
  dispose(): Promise<void>
}

async function startEngine(kind: 'real' | 'fake', api: FakeResponsesServer): Promise<Engine> {
  const dirs = await isolatedDirs(`codex-${kind}`)
  const codexHome = await dirs.extra('codex-home')
  if (kind === 'real') await writeFile(join(codexHome, 'config.toml'), configToml(api.baseURL))
  const env = { HOME: dirs.home, TMPDIR: dirs.tmp }
  const options: CliSecondaryOptions = kind === 'real' ? { codexPath: codexBin!, env } : { ...FAKE_CODEX, env }
  const g = await startTestGateway({
    engines: { cli_secondary: createCliSecondaryAdapter(options) },
    profiles: [PROVIDER_PROFILE, { name: 'codex', engine: 'cli_secondary', codexHome }],
  })
  return { g, paths: { cwd: g.cwdRoot, home: dirs.root }, async dispose() { await g.close(); await dirs.dispose() } }
}

const COMMAND = 'scenario:{"name":"cmd","steps":[{"type":"tool","name":"Bash","input":{"command":"echo hello"}},{"type":"text","text":"ran"}]}'

/** The differential scenarios, one session then a resume; returns every session's events. */
async function play(e: Engine, reachedModel: (text: string) => Promise<unknown>): Promise<{ first: GatewayEvent[]; resumed: GatewayEvent[]; produced: boolean }> {
  const first = await e.g.createSession({ profile: 'codex', cwd: e.g.cwdRoot, prompt: 'scenario:hello' })
  const ws = await e.g.attach(first.id)
  const turn = (n: number) => ws.waitForEvent('turn_result', (r) => r.numTurns === n, 60_000)
  await turn(1)
  ws.send({ type: 'user_message', text: COMMAND })
  await answer(ws, 'allow')
  await turn(2)
  ws.send({ type: 'user_message', text: COMMAND })
  await answer(ws, 'deny')
  await turn(3)
  ws.send({ type: 'user_message', text: 'scenario:write-file' })
  await answer(ws, 'allow')
  await turn(4)
  const mark = ws.events().at(-1).seq
  ws.send({ type: 'user_message', text: 'scenario:hang' })
  await ws.waitForEvent('status_changed', (s) => s.status === 'running' && s.seq > mark, 60_000)
  // Interrupt once the turn is under way at the model: earlier, real codex may not have recorded the prompt yet.
  await reachedModel('scenario:hang')
  ws.send({ type: 'interrupt' })
  await turn(5)
  const threadId = ws.events().find((x) => x.type === 'system_init').sdkSessionId
  const closed = await e.g.request('DELETE', `/sessions/${first.id}`)
  expect(closed.status).toBe(200)
  const second = await e.g.createSession({ profile: 'codex', cwd: e.g.cwdRoot, resume: threadId })
  const ws2 = await e.g.attach(second.id)
  await ws2.waitForEvent('system_init', () => true, 60_000)
  ws2.send({ type: 'user_message', text: 'after resume' })
  await ws2.waitForEvent('turn_result', () => true, 60_000)
  return { first: ws.events(), resumed: ws2.events(), produced: existsSync(join(e.g.cwdRoot, 'notes.md')) }
}

async function answer(ws: TestSocket, behavior: 'allow' | 'deny'): Promise<void> {
  const seen = new Set(ws.events().filter((x) => x.type === 'permission_requested').map((x) => x.request.requestId))
  const asked = await ws.waitForEvent('permission_requested', (x) => !seen.has(x.request.requestId), 60_000)
  ws.send({ type: 'permission_decision', requestId: asked.request.requestId, behavior })
}

describe.skipIf(skipReason !== undefined)('cli_secondary against the real codex app-server 0.169.0 (differential with the fake)', () => {
  let api: FakeResponsesServer
  const engines: Engine[] = []
  beforeAll(async () => {
    api = await startFakeResponsesServer()
  })
  afterAll(async () => {
    for (const e of engines.splice(0)) await e.dispose()
    await api?.close()
  })

  it('text, command accepted and declined, file change with approval, interrupt, resume in a fresh process: the same gateway events', async () => {
    const started = Date.now()
    const real = await startEngine('real', api)
    engines.push(real)
    const realRun = await play(real, (text) => until(async () => JSON.stringify(api.requests), (sent) => sent.includes(text), 'the prompt reached the model API'))
    const realMs = Date.now() - started
    const fake = await startEngine('fake', api)
    engines.push(fake)
    // The fake app-server plays scenarios itself; its prompt is recorded when the turn starts.
    const fakeRun = await play(fake, async () => undefined)
    console.info(`codex-real: real binary run ${realMs} ms, fake run ${Date.now() - started - realMs} ms`)
    // The real run did what the scenarios ask, on disk and in the model's next request.
    expect(realRun.produced).toBe(true)
    const results = realRun.first.filter((x) => x.type === 'turn_result')
    expect(results.map((r) => [r.subtype, r.result ?? r.errors])).toEqual([
      ['success', 'Hello, world!'], ['success', 'ran'], ['success', 'ran'], ['success', 'Wrote notes.md.'], ['error_during_execution', ['interrupted']],
    ])
    const lastRequest = JSON.stringify(api.requests.at(-1))
    expect(lastRequest).toContain('after resume')
    expect(lastRequest).toContain('scenario:hello') // the resumed thread's history reached the model
    expect(normaliseEvents(fakeRun.first, fake.paths)).toEqual(normaliseEvents(realRun.first, real.paths))
    expect(normaliseEvents(fakeRun.resumed, fake.paths)).toEqual(normaliseEvents(realRun.resumed, real.paths))
  }, 240_000)
})
