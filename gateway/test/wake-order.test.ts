/**
 * A session woken after a restart takes no client command before the history it replays
 * (events.10, embedding-rules.14): a `user_message` sent the moment the socket opens, as clients
 * do, is numbered after every replayed event, on every engine that persists a session. The title
 * derived from the first prompt therefore survives another restart.
 */
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { until } from './harness.ts'
import { startGateway } from './restartable-gateway.ts'

const children: ChildProcess[] = []
let dir: string | undefined
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL')
  if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 })
})

const readRecord = (id: string) => readFile(join(dir!, 'store', `${encodeURIComponent(id)}.json`), 'utf8').then((t) => JSON.parse(t)).catch(() => undefined)

describe.each([
  { profile: 'primary', engine: 'cli_primary' },
  { profile: 'codex', engine: 'cli_secondary' },
  { profile: undefined, engine: 'provider' },
])('a message sent on open to a woken $engine session', ({ profile, engine }) => {
  it('is numbered after the replayed history, and the title stays the first prompt across restarts', async () => {
    dir = await mkdtemp(join(tmpdir(), 'gw-wake-order-'))
    const first = await startGateway(dir, 1, children)
    const created = await first.call('POST', '/sessions', { ...(profile ? { profile } : {}), cwd: dir, prompt: 'the first prompt' })
    expect(created).toMatchObject({ status: 201, body: { session: { engine } } })
    const id = created.body.session.id as string
    const idle = await until(() => first.call('GET', `/sessions/${id}`), (r) => r.body.session.status === 'idle' && r.body.session.numTurns === 1, 'idle after the first turn')
    await until(() => readRecord(id), (r) => r !== undefined && r.snapshot.seq >= idle.body.session.lastSeq - 1, 'the record on disk')
    first.child.kill('SIGKILL')

    const second = await startGateway(dir, 2, children)
    const ws = await second.attach(id)
    ws.send({ type: 'user_message', text: 'sent on open' })
    await ws.waitForEvent('turn_result', (e) => /sent on open/.test(e.result ?? ''), 20_000)
    const events = ws.events()
    const sent = events.find((e) => e.type === 'user_message' && e.replay !== true && JSON.stringify(e.message.content).includes('sent on open'))
    expect(sent).toBeDefined()
    const history = events.filter((e) => e.replay === true || (e.type === 'user_message' && JSON.stringify(e.message.content).includes('the first prompt')))
    expect(history.length).toBeGreaterThan(0)
    for (const e of history) expect(e.seq, `${e.type} of the history`).toBeLessThan(sent.seq)
    const wokenIdle = await until(() => second.call('GET', `/sessions/${id}`), (r) => r.body.session.status === 'idle' && r.body.session.numTurns >= 1, 'idle after the new turn')
    expect(wokenIdle.body.session.title).toBe('the first prompt')
    await until(() => readRecord(id), (r) => r !== undefined && r.snapshot.seq >= sent.seq, 'the record after the new turn')
    ws.close()
    second.child.kill('SIGKILL')

    const third = await startGateway(dir, 3, children)
    const listed = (await third.call('GET', '/sessions')).body.sessions.find((s: any) => s.id === id)
    expect(listed).toMatchObject({ id, title: 'the first prompt' })
  }, 90_000)
})
