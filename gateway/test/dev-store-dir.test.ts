/**
 * `gateway dev --store-dir D` without `--cwd-root` (embedding-rules.14): the engines' homes and the
 * cwd root are stable under the store directory, so a dormant Claude CLI or codex session comes
 * back after a restart with its history and goes on; and a `--cwd-root` that does not exist is a
 * usage error naming the option (exit 2), not a stack trace from `realpath`.
 */
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runGateway } from './gateway-command.ts'
import { until } from './harness.ts'
import { startGateway } from './restartable-gateway.ts'

const children: ChildProcess[] = []
let dir: string | undefined
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL')
  if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 })
  dir = undefined
})

const readRecord = (id: string) => readFile(join(dir!, 'store', `${encodeURIComponent(id)}.json`), 'utf8').then((t) => JSON.parse(t)).catch(() => undefined)

describe.each([
  { profile: 'primary', engine: 'cli_primary' },
  { profile: 'codex', engine: 'cli_secondary' },
])('gateway dev --store-dir without --cwd-root: a $engine session', ({ profile }) => {
  it('resumes after a restart with its history replayed and answers the next message', async () => {
    dir = await mkdtemp(join(tmpdir(), 'gw-dev-store-'))
    const first = await startGateway(dir, 1, children, { cwdRoot: false })
    expect(first.cwdRoot).toBeDefined()
    const created = await first.call('POST', '/sessions', { profile, cwd: first.cwdRoot, prompt: 'before the restart' })
    expect(created).toMatchObject({ status: 201 })
    const id = created.body.session.id as string
    const idle = await until(() => first.call('GET', `/sessions/${id}`), (r) => r.body.session.status === 'idle' && r.body.session.numTurns === 1, 'idle after the first turn')
    await until(() => readRecord(id), (r) => r?.snapshot.resumeId !== undefined && r.snapshot.seq >= idle.body.session.lastSeq - 1, 'a dormant record on disk')
    first.child.kill('SIGKILL')

    const second = await startGateway(dir, 2, children, { cwdRoot: false })
    const ws = await second.attach(id)
    await ws.waitForEvent('user_message', (e) => e.replay === true && JSON.stringify(e.message.content).includes('before the restart'), 20_000)
    ws.send({ type: 'user_message', text: 'after the restart' })
    const next = await ws.waitForEvent('turn_result', (e) => /after the restart/.test(e.result ?? ''), 20_000)
    expect(next.isError).toBe(false)
    expect(ws.events().filter((e) => e.type === 'session_error')).toEqual([])
    ws.close()
    expect(second.cwdRoot).toBe(first.cwdRoot)
  }, 90_000)
})

describe('gateway dev --cwd-root that does not exist', () => {
  it('exits 2 with a line naming --cwd-root', async () => {
    dir = await mkdtemp(join(tmpdir(), 'gw-dev-cwd-'))
    const missing = join(dir, 'no-such-folder')
    const result = await runGateway(['dev', '--port', '0', '--cwd-root', missing])
    expect(result.code).toBe(2)
    const first = result.stderr.split('\n')[0]
    expect(first).toContain('--cwd-root')
    expect(first).toContain(missing)
    expect(result.stderr).not.toMatch(/ENOENT|realpath|\n\s+at /)
  }, 60_000)
})
