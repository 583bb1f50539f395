/**
 * Dormancy on the PostgreSQL session store (embedding-rules.14): the dormant records of
 * a cli_primary and a cli_secondary session go through the same store as parks, name the
 * conversation to resume (renewed by clear_context before any next system_init), and a second
 * gateway on the same database resumes both with their transcripts replayed and seq continuing.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCliPrimaryAdapter } from '../engines/cli-primary/index.ts'
import { createCliSecondaryAdapter } from '../engines/cli-secondary/index.ts'
import { createPostgresSessionStore, type PostgresSessionStore } from '../sessions/stores/postgres-store.ts'
import { FAKE_CODEX } from './fake-codex.ts'
import { PROVIDER_PROFILE, startTestGateway, until, type TestGateway } from './harness.ts'
import { startPostgresServer, type PostgresServer } from './postgres-server.ts'

const FAKE_CLI = {
  pathToClaudeCodeExecutable: fileURLToPath(new URL('../../fake-engines/claude-cli/main.ts', import.meta.url)),
  executable: process.execPath,
  executableArgs: ['--import', fileURLToPath(import.meta.resolve('tsx'))],
}

let pg: PostgresServer
let dir: string
const opened: Array<TestGateway | PostgresSessionStore> = []
beforeAll(async () => {
  pg = await startPostgresServer()
  dir = await mkdtemp(join(tmpdir(), 'gw-dormant-pg-'))
  await mkdir(join(dir, 'claude'))
  await mkdir(join(dir, 'codex'))
}, 120_000)
afterAll(async () => {
  for (const o of opened.reverse()) await o.close().catch(() => undefined)
  await pg?.stop()
  if (dir) await rm(dir, { recursive: true, force: true })
})

async function gatewayOn(url: string): Promise<{ g: TestGateway; store: PostgresSessionStore }> {
  const store = await createPostgresSessionStore({ url })
  const g = await startTestGateway({
    engines: { cli_primary: createCliPrimaryAdapter(FAKE_CLI), cli_secondary: createCliSecondaryAdapter(FAKE_CODEX) },
    profiles: [PROVIDER_PROFILE, { name: 'primary', engine: 'cli_primary', configDir: join(dir, 'claude') }, { name: 'codex', engine: 'cli_secondary', codexHome: join(dir, 'codex') }],
    allowedCwdRoots: [dir],
    parking: { store, persistLive: true },
  })
  opened.push(store, g)
  return { g, store }
}

describe('dormant CLI sessions on the PostgreSQL store (embedding-rules.14)', { timeout: 120_000 }, () => {
  it('records follow the engine id (clear_context included) and a second gateway resumes both engines', async () => {
    const url = await pg.createDatabase('dormant')
    const first = await gatewayOn(url)
    const shown = new Map<string, number>()
    const ids: Record<string, string> = {}
    for (const profile of ['primary', 'codex']) {
      const session = await first.g.createSession({ profile, cwd: dir, prompt: `${profile} before` })
      const ws = await first.g.attach(session.id)
      const init = await ws.waitForEvent('system_init')
      const done = await ws.waitForEvent('turn_result')
      const record = await until(() => first.store.load(session.id), (r) => r !== undefined && r.snapshot.seq >= done.seq, 'the dormant record')
      expect(record).toMatchObject({ kind: 'live', info: { status: 'idle' }, snapshot: { resumeId: init.sdkSessionId, events: [] } })
      if (profile === 'primary') {
        // /clear starts a new conversation: the record must name it before any next system_init.
        ws.send({ type: 'clear_context' })
        const reset = await ws.waitForEvent('conversation_reset')
        expect(reset.sdkSessionId).not.toBe(init.sdkSessionId)
        await until(() => first.store.load(session.id), (r) => r?.snapshot.resumeId === reset.sdkSessionId, 'the record renewed by clear_context')
        ws.send({ type: 'user_message', text: 'primary after clear' })
        await ws.waitForEvent('turn_result', (e) => e.seq > reset.seq)
      }
      await until(() => first.g.request('GET', `/sessions/${session.id}`), (r) => r.body.session.status === 'idle', 'idle')
      shown.set(session.id, Math.max(...ws.events().map((e) => e.seq)))
      ids[profile] = session.id
      ws.close()
    }
    await first.g.close()

    const second = await gatewayOn(url)
    const listed = (await second.g.request('GET', '/sessions')).body.sessions
    for (const [id] of shown) expect(listed.find((s: any) => s.id === id)).toMatchObject({ status: 'idle' })
    const expected = { primary: 'primary after clear', codex: 'codex before' }
    for (const profile of ['primary', 'codex'] as const) {
      const id = ids[profile]
      const ws = await second.g.attach(id)
      const replayed = await ws.waitForEvent('user_message', (e) => e.replay === true)
      expect(JSON.stringify(replayed.message.content)).toContain(expected[profile])
      expect(replayed.seq).toBeGreaterThan(shown.get(id)!)
      await ws.waitForEvent('status_changed', (e) => e.status === 'idle')
      ws.send({ type: 'user_message', text: `${profile} after restart` })
      const next = await ws.waitForEvent('turn_result', (e) => /after restart/.test(e.result ?? ''))
      expect(next.seq).toBeGreaterThan(shown.get(id)!)
      ws.close()
    }
  })
})
