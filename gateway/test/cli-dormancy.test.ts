/**
 * Dormancy (embedding-rules.14): a cli_primary and a cli_secondary session, on the fake
 * Claude CLI and the fake codex app-server, survive a SIGKILL of `gateway` with a file store and
 * `persistLive` (`--store-dir`). The store holds only a dormant record (the engine's resume id,
 * no transcript); after the restart the session is listed and readable, the first attach resumes
 * the engine's own conversation with the earlier transcript replayed (`replay: true`), seq goes on
 * after every seq shown before, and DELETE removes the record.
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
])('a dormant $engine session across a restart (embedding-rules.14)', ({ profile, engine }) => {
  it('is listed after kill -9, resumes on attach with its transcript replayed and seq continuing, and DELETE removes it', async () => {
    dir = await mkdtemp(join(tmpdir(), 'gw-dormant-'))
    const first = await startGateway(dir, 1, children)
    const created = await first.call('POST', '/sessions', { profile, cwd: dir, prompt: 'before the restart' })
    expect(created).toMatchObject({ status: 201 })
    const id = created.body.session.id as string
    const ws = await first.attach(id)
    const init = await ws.waitForEvent('system_init')
    const done = await ws.waitForEvent('turn_result')
    expect(done.result).toMatch(/before the restart/)
    await until(() => first.call('GET', `/sessions/${id}`), (r) => r.body.session.status === 'idle', 'idle')
    // The record names the engine's conversation and holds no transcript.
    const record = await until(() => readRecord(id), (r) => r !== undefined && r.snapshot.seq >= done.seq, 'a dormant record on disk')
    expect(record).toMatchObject({ kind: 'live', id, info: { status: 'idle', engine }, snapshot: { resumeId: init.sdkSessionId, events: [] } })
    const before = (await first.call('GET', `/sessions/${id}`)).body.session
    const shown = Math.max(...ws.events().map((e) => e.seq))
    ws.close()
    first.child.kill('SIGKILL')

    const second = await startGateway(dir, 2, children)
    const listed = (await second.call('GET', '/sessions')).body.sessions.find((s: any) => s.id === id)
    expect(listed).toMatchObject({ id, engine, profile, status: 'idle', title: before.title })
    expect((await second.call('GET', `/sessions/${id}`)).body.session).toMatchObject({ id, status: 'idle' })

    const again = await second.attach(id)
    const replayed = await again.waitForEvent('user_message', (e) => e.replay === true && JSON.stringify(e.message.content).includes('before the restart'))
    await again.waitForEvent('assistant_message', (e) => e.replay === true)
    expect(replayed.seq).toBeGreaterThan(shown)
    // The opening prompt is not run again on top of the resumed conversation.
    await again.waitForEvent('status_changed', (e) => e.status === 'idle')
    again.send({ type: 'user_message', text: 'after the restart' })
    const next = await again.waitForEvent('turn_result', (e) => /after the restart/.test(e.result ?? ''))
    expect(next.seq).toBeGreaterThan(shown)
    expect(again.events().filter((e) => e.type === 'turn_result')).toHaveLength(1)
    const seqs = again.events().map((e) => e.seq)
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
    const resumedInit = again.events().find((e) => e.type === 'system_init')
    expect(resumedInit.sdkSessionId).toBe(init.sdkSessionId)
    again.close()

    expect((await second.call('DELETE', `/sessions/${id}`)).status).toBeLessThan(300)
    await until(() => readRecord(id), (r) => r === undefined, 'the record removed')
    expect((await second.call('GET', `/sessions/${id}`)).status).toBe(404)
  }, 60_000)
})
